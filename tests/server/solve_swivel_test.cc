// SolveChain's swivel angle and torque solver through a real channel, on
// the example rigs, and the errors of their fields.
#include <cmath>
#include <cstdio>
#include <random>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ik/rig_json.h"
#include "service_fixture.h"

namespace ik::server {
namespace {

using ::ik::testing::Vec;
using ::testing::HasSubstr;

class SolveSwivelTest : public IkServiceTest {
 protected:
  void SetUp() override {
    IkServiceTest::SetUp();
    for (const char* name : {"humanoid", "tail"}) {
      absl::StatusOr<v1::Rig> rig =
          ReadRigFile(absl::StrCat(IK_EXAMPLES_DIR, "/rigs/", name, ".json"));
      ASSERT_TRUE(rig.ok()) << rig.status();
      v1::RegisterRigResponse response;
      ASSERT_TRUE(Register(*rig, false, &response).ok());
    }
  }
  static v1::SolveChainRequest ArmGoal(double swivel) {
    v1::SolveChainRequest request;
    request.set_rig("humanoid");
    v1::ChainGoal* goal = request.add_goals();
    goal->set_chain("left_arm");
    *goal->mutable_target() = Vec(0.45, 1.2, 0.15);
    goal->set_swivel(swivel);
    return request;
  }
};

TEST_F(SolveSwivelTest, SwivelTurnsTheElbowAndIgnoresTheIncomingPose) {
  v1::SolveChainResponse a, b, moved;
  ASSERT_TRUE(Solve(ArmGoal(0.0), &a).ok());
  ASSERT_TRUE(Solve(ArmGoal(1.0), &b).ok());
  EXPECT_TRUE(a.results(0).reached());
  EXPECT_TRUE(b.results(0).reached());
  EXPECT_GT(a.results(0).singularity_angle(), 0.0);
  EXPECT_NE(a.results(0).rotations(0).rotation().SerializeAsString(),
            b.results(0).rotations(0).rotation().SerializeAsString());
  // The same swivel from a different incoming pose: the same bits.
  v1::SolveChainRequest request = ArmGoal(1.0);
  v1::JointPose* joint = request.mutable_pose()->add_joints();
  joint->set_name("left_shoulder");
  *joint->mutable_local()->mutable_rotation() =
      ::ik::testing::Rotation(0.0, 0.0, 0.3826834, 0.9238795);
  ASSERT_TRUE(Solve(request, &moved).ok());
  EXPECT_EQ(moved.results(0).SerializeAsString(),
            b.results(0).SerializeAsString());
}

TEST_F(SolveSwivelTest, SwivelNearASingularDirectionIsFlagged) {
  // Straight down from the left shoulder: the arm's singular direction.
  v1::SolveChainRequest request = ArmGoal(0.0);
  *request.mutable_goals(0)->mutable_target() = Vec(0.2, 0.95, 0.0);
  v1::SolveChainResponse response;
  ASSERT_TRUE(Solve(request, &response).ok());
  EXPECT_TRUE(response.results(0).near_singularity());
  EXPECT_LT(response.results(0).singularity_angle(), 0.1745);
}

TEST_F(SolveSwivelTest, SwivelWithAPoleIsRejected) {
  v1::SolveChainRequest request = ArmGoal(0.0);
  *request.mutable_goals(0)->mutable_pole() = Vec(0.3, 1.2, -0.5);
  v1::SolveChainResponse response;
  grpc::Status status = Solve(request, &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(), HasSubstr("goals[0].swivel:"));
}

TEST_F(SolveSwivelTest, TorqueSolverReachesTheTail) {
  v1::SolveChainRequest request;
  request.set_rig("tail");
  v1::ChainGoal* goal = request.add_goals();
  goal->set_chain("tail");
  *goal->mutable_target() = Vec(0.25, 0.55, -0.95);
  goal->set_solver(v1::SOLVER_TORQUE);
  v1::SolveChainResponse response;
  ASSERT_TRUE(Solve(request, &response).ok());
  EXPECT_EQ(response.results(0).solver(), v1::SOLVER_TORQUE);
  EXPECT_TRUE(response.results(0).reached());
  EXPECT_LT(response.results(0).residual(), 1e-3);
}

TEST_F(SolveSwivelTest, BadChainSettingsAreRejectedAtRegistration) {
  absl::StatusOr<v1::Rig> rig =
      ReadRigFile(absl::StrCat(IK_EXAMPLES_DIR, "/rigs/tail.json"));
  ASSERT_TRUE(rig.ok());
  rig->set_name("tail_bad");
  v1::Chain* chain = rig->mutable_chains(0);
  v1::RegisterRigResponse response;
  chain->mutable_torque()->set_gain(0.0);
  grpc::Status status = Register(*rig, false, &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(), HasSubstr("rig.chains[0].torque.gain"));
  chain->mutable_torque()->clear_gain();
  chain->mutable_torque()->add_joints()->set_joint("hips");
  status = Register(*rig, false, &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(),
              HasSubstr("rig.chains[0].torque.joints[0].joint"));
  chain->mutable_torque()->clear_joints();
  chain->set_flip_warning_angle(3.0);
  status = Register(*rig, false, &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(),
              HasSubstr("rig.chains[0].flip_warning_angle"));
}

// The two-bone solver's choice among its in-limit solutions, through the
// wire: seeded animated starts (the shoulder and elbow turned up to 1.5 rad)
// and targets around the right shoulder, with a pole behind it. The
// continuity rule and the history-free choice (ChainGoal.history_free) pick
// different solutions on some, never at a cost in exactness (the same
// residual: both take an exact solution whenever the limit allows one);
// only the rule flags branch switches.
TEST_F(SolveSwivelTest, HistoryFreeChoosesAnotherInLimitSolutionAsExactly) {
  std::mt19937_64 engine(31);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  const auto small_rotation = [&](double max_angle) {
    const double x = unit(engine), y = unit(engine), z = unit(engine);
    const double angle = max_angle * unit(engine);
    const double s =
        std::sin(angle / 2) / (std::sqrt(x * x + y * y + z * z) + 1e-12);
    return ::ik::testing::Rotation(s * x, s * y, s * z, std::cos(angle / 2));
  };
  int differ = 0;
  int exact = 0;
  for (int i = 0; i < 300; ++i) {
    v1::SolveChainRequest request;
    request.set_rig("humanoid");
    for (const char* name : {"right_shoulder", "right_elbow"}) {
      v1::JointPose* joint = request.mutable_pose()->add_joints();
      joint->set_name(name);
      *joint->mutable_local()->mutable_rotation() = small_rotation(1.5);
    }
    v1::ChainGoal* goal = request.add_goals();
    goal->set_chain("right_arm");
    // One draw at a time: argument order is the compiler's.
    const double x = -0.18 - 0.3 * std::abs(unit(engine));
    const double y = 1.4 + 0.3 * unit(engine);
    const double z = 0.3 * unit(engine);
    *goal->mutable_target() = Vec(x, y, z);
    *goal->mutable_pole() = Vec(-0.18, 0.9, -0.5);
    v1::SolveChainResponse rule, free;
    ASSERT_TRUE(Solve(request, &rule).ok());
    goal->set_history_free(true);
    ASSERT_TRUE(Solve(request, &free).ok());
    const v1::GoalResult& a = rule.results(0);
    const v1::GoalResult& b = free.results(0);
    EXPECT_NEAR(a.residual(), b.residual(), 1e-9) << i;
    EXPECT_FALSE(b.branch_switch()) << i;
    exact += a.residual() < 1e-9;
    differ += a.rotations(0).rotation().SerializeAsString() !=
              b.rotations(0).rotation().SerializeAsString();
  }
  EXPECT_GT(exact, 100);
  EXPECT_GT(differ, 0);
  std::printf(
      "[ continuity ] %d of 300 exact; %d choose another solution "
      "history-free\n",
      exact, differ);
}

}  // namespace
}  // namespace ik::server
