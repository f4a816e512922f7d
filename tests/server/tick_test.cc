// Tick over a real channel: a seeded crowd of the example humanoid on the
// bundled stairs, each character grounded, reaching with both arms and
// stepping its ponytail. Every job's answer must be the single RPC's answer
// bit for bit (joints by index only, as a tick answers), given the pose the
// jobs before it left (sent back as a caller chaining the single RPCs would
// send it), whatever the solver pool's size;
// a bad job or character fails alone, with its field path from the tick.
#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "client/crowd.h"
#include "gtest/gtest.h"
#include "ik/rig_json.h"
#include "tests/server/ground_feet_fixture.h"
#include "tests/server/packed_state.h"
#include "tests/server/service_fixture.h"

namespace ik::server {
namespace {

using ::ik::testing::Rotation;
using ::ik::testing::Vec;

constexpr int kCharacters = 24;

// A single RPC's answer as a tick gives it (with job_rotations): joints by
// index only, no revision (the character's result has it).
void DropNames(
    google::protobuf::RepeatedPtrField<v1::JointRotation>& rotations) {
  for (v1::JointRotation& joint : rotations) {
    EXPECT_FALSE(joint.name().empty());
    joint.clear_name();
  }
}
v1::GroundFeetResponse WithoutNames(v1::GroundFeetResponse answer) {
  DropNames(*answer.mutable_rotations());
  EXPECT_FALSE(answer.revision().empty());
  answer.clear_revision();
  return answer;
}
v1::GoalResult WithoutNames(v1::GoalResult answer) {
  DropNames(*answer.mutable_rotations());
  return answer;
}
// ... and its state packed.
v1::StepDynamicsResponse WithoutNames(v1::StepDynamicsResponse answer) {
  EXPECT_FALSE(answer.revision().empty());
  answer.clear_revision();
  for (v1::DynamicChainResult& chain : *answer.mutable_results()) {
    EXPECT_GT(chain.joints_size(), 0);
    chain.clear_joints();
    DropNames(*chain.mutable_rotations());
    *chain.mutable_state() = ::ik::testing::Packed(chain.state());
  }
  return answer;
}

// Joint `index`'s rotation in `pose`: packed, or its JointPose; null when
// the pose leaves it at rest.
std::optional<v1::Quat> RotationIn(const v1::Pose& pose, int index) {
  if (4 * index + 3 < pose.rotations_size()) {
    const double* q = pose.rotations().data() + 4 * index;
    return Rotation(q[0], q[1], q[2], q[3]);
  }
  for (const v1::JointPose& posed : pose.joints()) {
    if (posed.index() == index) return posed.local().rotation();
  }
  return std::nullopt;
}

// A tick's job answers without their rotations, as a tick gives them when
// job_rotations is unset.
v1::TickCharacterResult WithoutJobRotations(v1::TickCharacterResult out) {
  out.mutable_ground()->clear_rotations();
  for (v1::GoalResult& goal : *out.mutable_goals()) goal.clear_rotations();
  for (v1::DynamicChainResult& chain :
       *out.mutable_dynamics()->mutable_results()) {
    chain.clear_rotations();
  }
  return out;
}

v1::Quat RandomSmallRotation(std::mt19937_64& engine, double max_angle) {
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  const double x = unit(engine);
  const double y = unit(engine);
  const double z = unit(engine);
  const double angle = max_angle * unit(engine);
  const double norm = std::sqrt(x * x + y * y + z * z) + 1e-12;
  const double s = std::sin(angle / 2) / norm;
  return Rotation(s * x, s * y, s * z, std::cos(angle / 2));
}

class TickTest : public IkServiceTest,
                 public ::testing::WithParamInterface<int> {
 protected:
  void SetUp() override {
    ServerOptions options;
    options.terrain_dir = std::string(IK_EXAMPLES_DIR) + "/terrains";
    options.rig_dir = std::string(IK_EXAMPLES_DIR) + "/rigs";
    options.solver_threads = GetParam();
    StartServer(options);
  }

  // A seeded crowd: walking over the stairs' span, a few joints turned, two
  // arm goals near the shoulders, ponytail dynamics; every third character
  // stands on a plane of its own instead of the shared stairs. Every even
  // character sends its pose packed (Pose.rotations, all 28 joints, at
  // rest but for the turned ones), the others as JointPoses.
  static v1::TickRequest Crowd(std::uint64_t seed, int count) {
    std::mt19937_64 engine(seed);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    v1::TickRequest request;
    request.mutable_shared_ground()->add_terrains("stairs");
    for (int k = 0; k < count; ++k) {
      v1::TickCharacter& character = *request.add_characters();
      character.set_id(absl::StrCat("npc-", k));
      character.set_rig("humanoid");
      v1::Pose& pose = *character.mutable_pose();
      const double x = 4.0 * unit(engine) - 2.0;
      const double y = 0.1 + 0.3 * unit(engine);
      const double z = 4.0 * unit(engine) - 2.0;
      *pose.mutable_root()->mutable_translation() = Vec(x, y, z);
      *pose.mutable_root()->mutable_rotation() =
          AboutY(2.0 * kPi * unit(engine));
      if (k % 2 == 0) {
        for (int j = 0; j < 28; ++j) {
          for (double value : {0.0, 0.0, 0.0, 1.0}) pose.add_rotations(value);
        }
      }
      for (int joint : {1, 2, 5, 9, 14, 19, 23}) {
        SetJointRotation(pose, joint, RandomSmallRotation(engine, 0.3));
      }
      v1::GroundFeetRequest& ground = *character.mutable_ground();
      if (k % 3 == 2) {
        *ground.mutable_ground()->add_planes() =
            LevelPlane(0.2 * unit(engine) - 0.1);
      }
      ground.add_weights(1.0);
      ground.add_weights(unit(engine));
      for (const char* chain : {"left_arm", "right_arm"}) {
        v1::ChainGoal& goal = *character.add_goals();
        goal.set_chain(chain);
        const double side = chain[0] == 'l' ? 0.35 : -0.35;
        *goal.mutable_target() =
            Vec(x + side * unit(engine), y + 1.0 + 0.4 * unit(engine),
                z + 0.4 * unit(engine) - 0.2);
      }
      v1::StepDynamicsRequest& dynamics = *character.mutable_dynamics();
      dynamics.set_delta_time(1.0 / 60.0);
    }
    return request;
  }

  grpc::Status Tick(const v1::TickRequest& request,
                    v1::TickResponse* response) {
    return stub_->Tick(Context().get(), request, response);
  }

  // Character `k` of `request` replayed as single RPCs, checked against its
  // tick answer.
  void ExpectSameAsSingleRpcs(const v1::TickRequest& request, int k,
                              const v1::TickCharacterResult& ticked) {
    const v1::TickCharacter& character = request.characters(k);
    SCOPED_TRACE(character.id());
    EXPECT_EQ(ticked.id(), character.id());
    EXPECT_EQ(ticked.status().code(), 0) << ticked.status().message();
    v1::Pose pose = character.pose();

    v1::GroundFeetRequest ground = character.ground();
    ground.set_rig(character.rig());
    *ground.mutable_pose() = pose;
    if (!ground.has_ground())
      *ground.mutable_ground() = request.shared_ground();
    v1::GroundFeetResponse grounded;
    grpc::Status status = stub_->GroundFeet(Context().get(), ground, &grounded);
    ASSERT_TRUE(status.ok()) << status.error_message();
    EXPECT_EQ(ticked.ground_status().code(), 0);
    EXPECT_EQ(DeterministicBytes(ticked.ground()),
              DeterministicBytes(WithoutNames(grounded)));
    SetJointRotations(pose, grounded.rotations());
    v1::Vec3& root = *pose.mutable_root()->mutable_translation();
    root.set_x(root.x() + grounded.root_offset().x());
    root.set_y(root.y() + grounded.root_offset().y());
    root.set_z(root.z() + grounded.root_offset().z());

    v1::SolveChainRequest solve;
    solve.set_rig(character.rig());
    *solve.mutable_pose() = pose;
    *solve.mutable_goals() = character.goals();
    v1::SolveChainResponse solved;
    status = stub_->SolveChain(Context().get(), solve, &solved);
    ASSERT_TRUE(status.ok()) << status.error_message();
    EXPECT_EQ(ticked.goals_status().code(), 0);
    ASSERT_EQ(ticked.goals_size(), solved.results_size());
    for (int g = 0; g < solved.results_size(); ++g) {
      EXPECT_EQ(DeterministicBytes(ticked.goals(g)),
                DeterministicBytes(WithoutNames(solved.results(g))))
          << "goal " << g;
      SetJointRotations(pose, solved.results(g).rotations());
    }

    v1::StepDynamicsRequest dynamics = character.dynamics();
    dynamics.set_rig(character.rig());
    *dynamics.mutable_pose() = pose;
    v1::StepDynamicsResponse stepped;
    status = stub_->StepDynamics(Context().get(), dynamics, &stepped);
    ASSERT_TRUE(status.ok()) << status.error_message();
    EXPECT_EQ(ticked.dynamics_status().code(), 0);
    EXPECT_EQ(DeterministicBytes(ticked.dynamics()),
              DeterministicBytes(WithoutNames(stepped)));
    for (const v1::DynamicChainResult& chain : stepped.results()) {
      SetJointRotations(pose, chain.rotations());
    }

    // The final pose: the grounded root, and each joint a job turned at the
    // rotation the last job gave it (up to the read-back's normalisation).
    EXPECT_EQ(DeterministicBytes(ticked.root().translation()),
              DeterministicBytes(pose.root().translation()));
    ASSERT_EQ(ticked.rotations_size(), 4 * ticked.joints_size());
    for (int i = 0; i < ticked.joints_size(); ++i) {
      const int joint = ticked.joints(i);
      if (i > 0) {
        EXPECT_LT(ticked.joints(i - 1), joint);
      }
      const std::optional<v1::Quat> last = RotationIn(pose, joint);
      ASSERT_TRUE(last.has_value()) << "joint " << joint;
      const double* q = ticked.rotations().data() + 4 * i;
      EXPECT_TRUE(SameRotation(MakeQuat(q[0], q[1], q[2], q[3]),
                               FromProto(*last), 1e-15))
          << "joint " << joint;
    }
  }
};

TEST_P(TickTest, EveryJobAnswersAsTheSingleRpcOnThePoseTheJobsBeforeLeft) {
  v1::TickRequest request = Crowd(2026, kCharacters);
  request.set_job_rotations(true);
  v1::TickResponse response;
  grpc::Status status = Tick(request, &response);
  ASSERT_TRUE(status.ok()) << status.error_message();
  ASSERT_EQ(response.characters_size(), kCharacters);
  int grounded = 0;
  int moved_rotations = 0;
  for (int k = 0; k < kCharacters; ++k) {
    ExpectSameAsSingleRpcs(request, k, response.characters(k));
    for (const v1::FootResult& foot : response.characters(k).ground().feet()) {
      grounded += foot.ground_found();
    }
    moved_rotations += response.characters(k).joints_size();
  }
  // The crowd really stands on ground and really moves.
  EXPECT_GT(grounded, kCharacters);
  EXPECT_GT(moved_rotations, 10 * kCharacters);

  // Without job_rotations: the same answers, less the jobs' rotations.
  request.set_job_rotations(false);
  v1::TickResponse lean;
  status = Tick(request, &lean);
  ASSERT_TRUE(status.ok()) << status.error_message();
  ASSERT_EQ(lean.characters_size(), kCharacters);
  for (int k = 0; k < kCharacters; ++k) {
    EXPECT_EQ(DeterministicBytes(lean.characters(k)),
              DeterministicBytes(WithoutJobRotations(response.characters(k))))
        << "character " << k;
    EXPECT_EQ(lean.characters(k).ground().rotations_size(), 0);
    EXPECT_LT(lean.characters(k).ByteSizeLong(),
              response.characters(k).ByteSizeLong());
  }

  // TICK_DETAIL_POSE: the same final poses, statuses and dynamics, without
  // grounding's and the goals' answers.
  request.set_detail(v1::TICK_DETAIL_POSE);
  v1::TickResponse posed;
  status = Tick(request, &posed);
  ASSERT_TRUE(status.ok()) << status.error_message();
  ASSERT_EQ(posed.characters_size(), kCharacters);
  for (int k = 0; k < kCharacters; ++k) {
    v1::TickCharacterResult expected = lean.characters(k);
    EXPECT_TRUE(expected.has_ground());
    EXPECT_EQ(expected.goals_size(), 2);
    expected.clear_ground();
    expected.clear_goals();
    EXPECT_EQ(DeterministicBytes(posed.characters(k)),
              DeterministicBytes(expected))
        << "character " << k;
  }
}

TEST_P(TickTest, APackedPoseAndJointPosesGiveTheSameBits) {
  // The same poses, one character packed, its twin as JointPoses (every
  // joint set, in a shuffled order): the same answers, bit for bit.
  v1::TickRequest request = Crowd(31, 8);
  std::mt19937_64 engine(31);
  for (int k = 0; k < 8; k += 2) {
    v1::TickCharacter twin = request.characters(k);
    v1::Pose& pose = *twin.mutable_pose();
    std::vector<int> order(28);
    for (int j = 0; j < 28; ++j) order[j] = j;
    std::shuffle(order.begin(), order.end(), engine);
    for (int j : order) {
      v1::JointPose& joint = *pose.add_joints();
      joint.set_index(j);
      *joint.mutable_local()->mutable_rotation() = *RotationIn(pose, j);
    }
    pose.clear_rotations();
    twin.set_id(twin.id() + "-twin");
    *request.add_characters() = std::move(twin);
  }
  v1::TickResponse response;
  grpc::Status status = Tick(request, &response);
  ASSERT_TRUE(status.ok()) << status.error_message();
  for (int t = 0; t < 4; ++t) {
    v1::TickCharacterResult packed = response.characters(2 * t);
    v1::TickCharacterResult twin = response.characters(8 + t);
    EXPECT_EQ(twin.id(), packed.id() + "-twin");
    twin.clear_id();
    packed.clear_id();
    EXPECT_EQ(packed.status().code(), 0) << packed.status().message();
    EXPECT_EQ(DeterministicBytes(packed), DeterministicBytes(twin));
  }
}

TEST_P(TickTest, TheSameTickGivesTheSameBytesWhateverThePoolSize) {
  const v1::TickRequest request = Crowd(7, kCharacters);
  v1::TickResponse here;
  ASSERT_TRUE(Tick(request, &here).ok());
  for (int threads : {1, 4}) {
    ServerOptions options;
    options.listen = "127.0.0.1:0";
    options.terrain_dir = std::string(IK_EXAMPLES_DIR) + "/terrains";
    options.rig_dir = std::string(IK_EXAMPLES_DIR) + "/rigs";
    options.solver_threads = threads;
    auto other = IkServer::Start(options);
    ASSERT_TRUE(other.ok()) << other.status();
    auto stub = v1::IkService::NewStub(
        grpc::CreateChannel(absl::StrCat("127.0.0.1:", (*other)->port()),
                            grpc::InsecureChannelCredentials()));
    v1::TickResponse there;
    grpc::Status status = stub->Tick(Context().get(), request, &there);
    ASSERT_TRUE(status.ok()) << status.error_message();
    EXPECT_EQ(DeterministicBytes(here), DeterministicBytes(there))
        << GetParam() << " vs " << threads << " threads";
  }
}

TEST_P(TickTest, ABadJobOrCharacterFailsAloneWithItsPathFromTheTick) {
  v1::TickRequest request = Crowd(99, kCharacters);
  const v1::TickRequest good = request;
  request.mutable_characters(3)->mutable_ground()->set_weights(1, 1.5);
  request.mutable_characters(5)->set_rig("nobody");
  request.mutable_characters(8)->mutable_goals(1)->set_chain("tentacle");
  request.mutable_characters(11)->mutable_dynamics()->set_delta_time(-1.0);
  request.mutable_characters(13)->mutable_ground()->set_rig("humanoid");
  request.mutable_characters(19)->mutable_goals(0)->set_solver(
      v1::SOLVER_FABRIK);
  request.mutable_characters(19)->mutable_goals(0)->set_max_iterations(
      2000000000);
  SetJointRotation(*request.mutable_characters(17)->mutable_pose(), 5,
                   Rotation(0, 0, 0, 0));
  SetJointRotation(*request.mutable_characters(22)->mutable_pose(), 2,
                   Rotation(0, 0, 0, 2));
  v1::TickResponse response;
  grpc::Status status = Tick(request, &response);
  ASSERT_TRUE(status.ok()) << status.error_message();
  ASSERT_EQ(response.characters_size(), kCharacters);
  const auto& at = [&](int k) -> const v1::TickCharacterResult& {
    return response.characters(k);
  };
  const auto expect = [](const v1::JobStatus& job, grpc::StatusCode code,
                         const std::string& field) {
    EXPECT_EQ(job.code(), code) << job.message();
    EXPECT_EQ(job.field(), field) << job.message();
    EXPECT_EQ(job.message().rfind(field + ": ", 0), 0u) << job.message();
  };
  expect(at(3).ground_status(), grpc::INVALID_ARGUMENT,
         "characters[3].ground.weights[1]");
  expect(at(5).status(), grpc::NOT_FOUND, "characters[5].rig");
  expect(at(8).goals_status(), grpc::NOT_FOUND, "characters[8].goals[1].chain");
  expect(at(11).dynamics_status(), grpc::INVALID_ARGUMENT,
         "characters[11].dynamics.delta_time");
  expect(at(13).ground_status(), grpc::INVALID_ARGUMENT,
         "characters[13].ground.rig");
  expect(at(17).status(), grpc::INVALID_ARGUMENT,
         "characters[17].pose.joints[2].local.rotation");
  expect(at(22).status(), grpc::INVALID_ARGUMENT,
         "characters[22].pose.rotations[8]");
  expect(at(19).goals_status(), grpc::RESOURCE_EXHAUSTED,
         "characters[19].goals[0].max_iterations");
  // A failed character runs no job; a failed job leaves no answer, and the
  // jobs after it still run.
  EXPECT_FALSE(at(5).has_ground());
  EXPECT_EQ(at(5).goals_size(), 0);
  EXPECT_EQ(at(5).joints_size(), 0);
  EXPECT_FALSE(at(3).has_ground());
  EXPECT_EQ(at(3).goals_size(), 2);
  EXPECT_EQ(at(3).dynamics_status().code(), 0);
  EXPECT_EQ(at(8).goals_size(), 0);
  EXPECT_EQ(at(8).dynamics().results_size(), 1);
  EXPECT_EQ(at(11).goals_size(), 2);
  EXPECT_FALSE(at(11).has_dynamics());

  // With TICK_DETAIL_POSE, the same statuses (and no job answers but
  // dynamics').
  v1::TickRequest pose_only = request;
  pose_only.set_detail(v1::TICK_DETAIL_POSE);
  v1::TickResponse posed;
  ASSERT_TRUE(Tick(pose_only, &posed).ok());
  for (int k = 0; k < kCharacters; ++k) {
    const v1::TickCharacterResult& full = at(k);
    const v1::TickCharacterResult& lean = posed.characters(k);
    for (const auto& [a, b] :
         {std::pair(&full.status(), &lean.status()),
          std::pair(&full.ground_status(), &lean.ground_status()),
          std::pair(&full.goals_status(), &lean.goals_status()),
          std::pair(&full.dynamics_status(), &lean.dynamics_status())}) {
      EXPECT_EQ(DeterministicBytes(*a), DeterministicBytes(*b))
          << "character " << k;
    }
    EXPECT_FALSE(lean.has_ground());
    EXPECT_EQ(lean.goals_size(), 0);
    EXPECT_EQ(DeterministicBytes(full.dynamics()),
              DeterministicBytes(lean.dynamics()));
  }

  // Every other character is answered as in the tick without the bad ones.
  v1::TickResponse clean;
  ASSERT_TRUE(Tick(good, &clean).ok());
  for (int k : {0, 1, 2, 4, 6, 7, 9, 10, 12, 14, 15, 16, 18, 20}) {
    EXPECT_EQ(DeterministicBytes(response.characters(k)),
              DeterministicBytes(clean.characters(k)))
        << "character " << k;
  }
  // Character 3 without grounding: its goals solved on the animated pose.
  v1::TickRequest ungrounded;
  *ungrounded.add_characters() = good.characters(3);
  ungrounded.mutable_characters(0)->clear_ground();
  v1::TickResponse alone;
  ASSERT_TRUE(Tick(ungrounded, &alone).ok());
  ASSERT_EQ(alone.characters(0).goals_size(), 2);
  for (int g = 0; g < 2; ++g) {
    EXPECT_EQ(DeterministicBytes(at(3).goals(g)),
              DeterministicBytes(alone.characters(0).goals(g)));
  }
}

TEST_P(TickTest, APoseCheckReportsAndRepairsAClaimedPoseBeforeTheJobs) {
  // A cheating client's claim: a NaN spine, an elbow bent backwards, a neck
  // 20 cm longer and a shoulder turned with a non-unit quaternion.
  v1::TickRequest request;
  request.set_job_rotations(true);
  v1::TickCharacter& claimed = *request.add_characters();
  claimed.set_id("player-7");
  claimed.set_rig("humanoid");
  const double nan = std::nan("");
  SetJointRotation(*claimed.mutable_pose(), 1, Rotation(nan, 0, 0, 1));
  SetJointRotation(*claimed.mutable_pose(), 7,
                   Rotation(0, std::sin(1.5), 0, std::cos(1.5)));
  v1::JointPose* neck = claimed.mutable_pose()->add_joints();
  neck->set_index(3);
  *neck->mutable_local()->mutable_translation() = Vec(0, 0.3, 0);
  SetJointRotation(*claimed.mutable_pose(), 6, Rotation(0, 0, 0, 1.01));
  v1::ChainGoal* goal = claimed.add_goals();
  goal->set_chain("left_arm");
  *goal->mutable_target() = Vec(0.45, 1.2, 0.15);

  // Without a check the pose is refused, as a single RPC would refuse it.
  v1::TickResponse refused;
  ASSERT_TRUE(Tick(request, &refused).ok());
  EXPECT_EQ(refused.characters(0).status().code(), grpc::INVALID_ARGUMENT);
  EXPECT_EQ(refused.characters(0).status().field(),
            "characters[0].pose.joints[0].local.rotation");

  claimed.mutable_check();
  v1::TickResponse response;
  ASSERT_TRUE(Tick(request, &response).ok());
  const v1::TickCharacterResult& out = response.characters(0);
  ASSERT_EQ(out.status().code(), 0) << out.status().message();
  EXPECT_EQ(out.check_status().code(), 0);
  std::vector<std::pair<int, v1::PoseViolationKind>> found;
  for (const v1::PoseViolation& v : out.check().violations()) {
    found.emplace_back(v.joint(), v.kind());
    EXPECT_GE(v.amount(), 0.0);
  }
  const std::vector<std::pair<int, v1::PoseViolationKind>> expected = {
      {1, v1::POSE_VIOLATION_ROTATION_NOT_FINITE},
      {3, v1::POSE_VIOLATION_TRANSLATION},
      {6, v1::POSE_VIOLATION_ROTATION_NOT_UNIT},
      {7, v1::POSE_VIOLATION_OUTSIDE_LIMIT}};
  for (const auto& violation : expected) {
    EXPECT_NE(std::find(found.begin(), found.end(), violation), found.end())
        << "joint " << violation.first << " kind " << violation.second;
  }
  // The neck's bone moved by the distance from the rig's.
  absl::StatusOr<std::shared_ptr<const RigEntry>> humanoid =
      server_->registry().Get({"humanoid", "name"});
  ASSERT_TRUE(humanoid.ok());
  const Vec3 rest_neck = (*humanoid)->rig().rest_pose()[3].translation;
  for (const v1::PoseViolation& v : out.check().violations()) {
    if (v.joint() != 3) continue;
    EXPECT_NEAR(v.amount(), glm::length(Vec3(0, 0.3, 0) - rest_neck), 1e-12);
  }

  // The goal was solved on the repaired pose: the same answer as a
  // SolveChain given that pose (the repaired rotations, rest bones).
  v1::SolveChainRequest solve;
  solve.set_rig("humanoid");
  SetJointRotations(*solve.mutable_pose(), out.check().rotations());
  *solve.mutable_goals() = claimed.goals();
  v1::SolveChainResponse solved;
  grpc::Status status = stub_->SolveChain(Context().get(), solve, &solved);
  ASSERT_TRUE(status.ok()) << status.error_message();
  ASSERT_EQ(out.goals_size(), 1);
  EXPECT_EQ(DeterministicBytes(out.goals(0)),
            DeterministicBytes(WithoutNames(solved.results(0))));

  // A malformed check fails the character with its path.
  claimed.mutable_check()->set_tolerance(-1.0);
  ASSERT_TRUE(Tick(request, &response).ok());
  EXPECT_EQ(response.characters(0).check_status().field(),
            "characters[0].check.tolerance");
  EXPECT_EQ(response.characters(0).status().code(), grpc::FAILED_PRECONDITION);
}

TEST_P(TickTest, WholeTickErrors) {
  v1::TickResponse response;
  grpc::Status status = Tick(v1::TickRequest(), &response);
  EXPECT_EQ(status.error_code(), grpc::INVALID_ARGUMENT);
  EXPECT_EQ(status.error_message().rfind("characters: ", 0), 0u)
      << status.error_message();

  v1::TickRequest request = Crowd(5, 2);
  request.mutable_shared_ground()->set_terrains(0, "atlantis");
  status = Tick(request, &response);
  EXPECT_EQ(status.error_code(), grpc::NOT_FOUND);
  EXPECT_EQ(status.error_message().rfind("shared_ground.terrains[0]: ", 0), 0u)
      << status.error_message();

  // Without a shared ground, a ground job needs its own.
  request = Crowd(5, 3);
  request.clear_shared_ground();
  ASSERT_TRUE(Tick(request, &response).ok());
  EXPECT_EQ(response.characters(0).ground_status().field(),
            "characters[0].ground.ground");
  EXPECT_EQ(response.characters(2).ground_status().code(), 0);
}

INSTANTIATE_TEST_SUITE_P(PoolSizes, TickTest, ::testing::Values(1, 3),
                         [](const ::testing::TestParamInfo<int>& info) {
                           return absl::StrCat(info.param, "threads");
                         });

}  // namespace
}  // namespace ik::server
