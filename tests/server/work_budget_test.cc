// The work budget over a real channel (handlers/work.h): each job whose
// work alone is more than a character may ask is refused with its field,
// a character whose jobs together are is refused as a whole -- before any
// of its work runs, the other characters answered -- and a single call is
// held to the same budget. The work figures come from the refusals
// themselves (a server that allows 1 unit refuses every job, naming its
// work), so the test does not restate the model.
#include <cstdint>
#include <regex>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "gtest/gtest.h"
#include "handlers/work.h"
#include "tick_fixture.h"

namespace ik::server {
namespace {

// The work a refusal names: "<path>: <what>'s work, <N> (...".
std::int64_t WorkIn(const std::string& message) {
  static const std::regex kWork("work, ([0-9]+)");
  std::smatch match;
  std::int64_t work = -1;
  if (std::regex_search(message, match, kWork)) {
    EXPECT_TRUE(absl::SimpleAtoi(match[1].str(), &work)) << message;
  }
  return work;
}

class WorkBudgetTest : public IkServiceTest {
 protected:
  void Start(std::int64_t per_character, std::int64_t per_call = -1) {
    ServerOptions options;
    options.rig_dir = std::string(IK_EXAMPLES_DIR) + "/rigs";
    options.terrain_dir = std::string(IK_EXAMPLES_DIR) + "/terrains";
    options.limits.max_work_per_character = per_character;
    options.limits.max_work_per_call =
        per_call > 0 ? per_call : options.limits.max_work_per_call;
    StartServer(options);
  }

  v1::TickResponse Tick(const v1::TickRequest& request) {
    v1::TickResponse response;
    const grpc::Status status =
        stub_->Tick(Context().get(), request, &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return response;
  }
};

TEST_F(WorkBudgetTest, JobsAndCharactersBeyondTheBudgetAreRefusedBeforeWork) {
  const v1::TickRequest crowd = TickTest::Crowd(17, 3);
  // One unit: every job refused alone, each naming its field and work.
  Start(1);
  const v1::TickCharacterResult refused = Tick(crowd).characters(0);
  EXPECT_TRUE(absl::StartsWith(refused.ground_status().message(),
                               "characters[0].ground.ground: grounding's "
                               "work, "))
      << refused.ground_status().message();
  EXPECT_TRUE(
      absl::StartsWith(refused.goals_status().message(), "characters[0].goals"))
      << refused.goals_status().message();
  EXPECT_TRUE(absl::StartsWith(refused.dynamics_status().message(),
                               "characters[0].dynamics.chains: the dynamics' "
                               "work, "))
      << refused.dynamics_status().message();
  for (const v1::JobStatus* status :
       {&refused.ground_status(), &refused.goals_status(),
        &refused.dynamics_status()}) {
    EXPECT_EQ(status->code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
    EXPECT_TRUE(
        absl::StrContains(status->message(), "(ikd --max_work_per_character)"))
        << status->message();
  }
  const std::int64_t grounding = WorkIn(refused.ground_status().message());
  const std::int64_t dynamics = WorkIn(refused.dynamics_status().message());
  ASSERT_GT(grounding, 0);
  ASSERT_GT(dynamics, 0);
  // The goals' work comes with the goals' path only when their sum is over;
  // two two-bone goals of 3 joints each, one pass.
  const std::int64_t goals = 2 * 3 * kJointIteration;

  // Room for each job alone, not for all three: the character is refused
  // whole, its jobs unrun, the solve counters untouched.
  const std::int64_t largest = std::max({grounding, goals, dynamics});
  ASSERT_LT(largest, grounding + goals + dynamics);
  Start(largest);
  const v1::TickResponse whole = Tick(crowd);
  for (const v1::TickCharacterResult& character : whole.characters()) {
    EXPECT_EQ(character.status().code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
    EXPECT_TRUE(
        absl::StrContains(character.status().message(), "its jobs' work, "))
        << character.status().message();
    EXPECT_FALSE(character.has_ground());
    EXPECT_EQ(character.goals_size(), 0);
    EXPECT_FALSE(character.has_dynamics());
  }
  EXPECT_TRUE(absl::StartsWith(whole.characters(1).status().message(),
                               "characters[1]: its jobs' work, "))
      << whole.characters(1).status().message();
  EXPECT_EQ(server_->solve_counters().solver(SolverKind::kTwoBone).goals, 0);

  // Room for all: answered.
  Start(grounding + goals + dynamics);
  const v1::TickResponse answered = Tick(crowd);
  for (const v1::TickCharacterResult& character : answered.characters()) {
    EXPECT_EQ(character.status().code(), 0) << character.status().message();
    EXPECT_EQ(character.ground_status().code(), 0);
    EXPECT_EQ(character.dynamics_status().code(), 0);
  }
}

// A tick whose characters fit each but not together is refused as a
// whole before any of them runs, on a TickStream too (which stays usable).
TEST_F(WorkBudgetTest, ATickOverTheCallsBudgetIsRefusedBeforeAnyWork) {
  // Characters all on the shared stairs: the same work each.
  const auto on_stairs = [](int count) {
    v1::TickRequest request = TickTest::Crowd(23, count);
    for (v1::TickCharacter& character : *request.mutable_characters()) {
      character.mutable_ground()->clear_ground();
    }
    return request;
  };
  // One character's work, from a refusal.
  const v1::TickRequest one = on_stairs(1);
  Start(1);
  const v1::TickCharacterResult refused = Tick(one).characters(0);
  const std::int64_t character = WorkIn(refused.ground_status().message()) +
                                 WorkIn(refused.dynamics_status().message()) +
                                 2 * 3 * kJointIteration;  // two goals
  // Room for five such characters in a call.
  Start(character, 5 * character);
  const v1::TickRequest five = on_stairs(5);
  const v1::TickRequest six = on_stairs(6);
  v1::TickResponse response;
  grpc::Status status = stub_->Tick(Context().get(), six, &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_TRUE(
      absl::StartsWith(status.error_message(), "characters: the tick's work, "))
      << status.error_message();
  EXPECT_TRUE(
      absl::StrContains(status.error_message(), "(ikd --max_work_per_call)"))
      << status.error_message();
  EXPECT_EQ(server_->solve_counters().solver(SolverKind::kTwoBone).goals, 0);

  grpc::ClientContext context;
  auto stream = stub_->TickStream(&context);
  v1::TickRequest tick = six;
  tick.set_sequence(1);
  ASSERT_TRUE(stream->Write(tick));
  ASSERT_TRUE(stream->Read(&response));
  EXPECT_EQ(response.status().code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_EQ(response.characters_size(), 0);
  EXPECT_EQ(server_->solve_counters().solver(SolverKind::kTwoBone).goals, 0);
  tick = five;
  tick.set_sequence(2);
  ASSERT_TRUE(stream->Write(tick));
  ASSERT_TRUE(stream->Read(&response));
  EXPECT_EQ(response.status().code(), 0) << response.status().message();
  ASSERT_EQ(response.characters_size(), 5);
  for (const v1::TickCharacterResult& answered : response.characters()) {
    EXPECT_EQ(answered.status().code(), 0) << answered.status().message();
  }
  EXPECT_EQ(server_->solve_counters().solver(SolverKind::kTwoBone).goals, 10);
  stream->WritesDone();
  EXPECT_TRUE(stream->Finish().ok());
}

TEST_F(WorkBudgetTest, ASingleCallIsOneCharacter) {
  const v1::TickRequest crowd = TickTest::Crowd(17, 1);
  const v1::TickCharacter& character = crowd.characters(0);
  Start(1);
  v1::GroundFeetRequest ground = character.ground();
  ground.set_rig(character.rig());
  *ground.mutable_pose() = character.pose();
  *ground.mutable_ground() = crowd.shared_ground();
  v1::GroundFeetResponse grounded;
  grpc::Status status = stub_->GroundFeet(Context().get(), ground, &grounded);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_TRUE(
      absl::StartsWith(status.error_message(), "ground: grounding's work, "))
      << status.error_message();
  v1::StepDynamicsRequest dynamics = character.dynamics();
  dynamics.set_rig(character.rig());
  *dynamics.mutable_pose() = character.pose();
  v1::StepDynamicsResponse stepped;
  status = stub_->StepDynamics(Context().get(), dynamics, &stepped);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_TRUE(
      absl::StartsWith(status.error_message(), "chains: the dynamics' work, "))
      << status.error_message();
  v1::SolveChainRequest solve;
  solve.set_rig(character.rig());
  *solve.mutable_pose() = character.pose();
  *solve.mutable_goals() = character.goals();
  v1::SolveChainResponse solved;
  status = Solve(solve, &solved);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_TRUE(absl::StartsWith(status.error_message(), "goals"))
      << status.error_message();
}

// With the default limits, the largest tick allowed -- every character at
// the per-character budget, on one goal -- is refused whole before any of
// it runs, and a character at the budget alone is answered.
TEST_F(WorkBudgetTest, TheLargestTickAtTheDefaultsIsRefusedBeforeWork) {
  const ServiceLimits defaults;
  ServerOptions options;
  options.rig_dir = std::string(IK_EXAMPLES_DIR) + "/rigs";
  options.max_receive_message_bytes = 64 << 20;
  StartServer(options);
  // left_arm_clavicle has 4 joints: the iteration cap that makes the goal
  // exactly the per-character budget.
  const std::int64_t iterations =
      (defaults.max_work_per_character / 4 - kGoalFixedPerJoint) /
      kJointIteration;
  ASSERT_EQ(4 * (iterations * kJointIteration + kGoalFixedPerJoint),
            defaults.max_work_per_character);
  v1::TickRequest crowd = TickTest::Crowd(29, defaults.max_characters_per_tick);
  crowd.clear_shared_ground();
  for (v1::TickCharacter& character : *crowd.mutable_characters()) {
    character.clear_ground();
    character.clear_dynamics();
    character.clear_goals();
    v1::ChainGoal* goal = character.add_goals();
    goal->set_chain("left_arm_clavicle");
    goal->set_solver(v1::SOLVER_FABRIK);
    goal->set_max_iterations(static_cast<int>(iterations));
    goal->mutable_target()->set_y(1.2);
  }
  v1::TickResponse response;
  grpc::Status status = stub_->Tick(Context().get(), crowd, &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_TRUE(
      absl::StartsWith(status.error_message(), "characters: the tick's work, "))
      << status.error_message();
  EXPECT_EQ(server_->solve_counters().solver(SolverKind::kFabrik).goals, 0);

  v1::TickRequest one;
  *one.add_characters() = crowd.characters(0);
  status = stub_->Tick(Context().get(), one, &response);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(response.characters(0).status().code(), 0)
      << response.characters(0).status().message();
  EXPECT_EQ(server_->solve_counters().solver(SolverKind::kFabrik).goals, 1);
}

}  // namespace
}  // namespace ik::server
