// The tick's service tests' fixture: a real ikd over a real channel with the
// example rigs and terrains and a solver pool of GetParam() threads, a seeded
// crowd of the example humanoid, and the single RPCs' answers as a tick gives
// them (for tick_test.cc and tick_check_test.cc).
#ifndef IK_TESTS_SERVER_TICK_FIXTURE_H_
#define IK_TESTS_SERVER_TICK_FIXTURE_H_

#include <cmath>
#include <cstdint>
#include <optional>
#include <random>
#include <string>

#include "absl/strings/str_cat.h"
#include "crowd.h"
#include "ground_feet_fixture.h"
#include "gtest/gtest.h"
#include "packed_state.h"
#include "service_fixture.h"

namespace ik::server {

using ::ik::testing::Rotation;
using ::ik::testing::Vec;

inline constexpr int kCharacters = 24;

// A single RPC's answer as a tick gives it (with job_rotations): joints by
// index only, no revision (the character's result has it).
inline void DropNames(
    google::protobuf::RepeatedPtrField<v1::JointRotation>& rotations) {
  for (v1::JointRotation& joint : rotations) {
    EXPECT_FALSE(joint.name().empty());
    joint.clear_name();
  }
}
inline v1::GroundFeetResponse WithoutNames(v1::GroundFeetResponse answer) {
  DropNames(*answer.mutable_rotations());
  EXPECT_FALSE(answer.revision().empty());
  answer.clear_revision();
  return answer;
}
inline v1::GoalResult WithoutNames(v1::GoalResult answer) {
  DropNames(*answer.mutable_rotations());
  return answer;
}
// ... and its state packed.
inline v1::StepDynamicsResponse WithoutNames(v1::StepDynamicsResponse answer) {
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
inline std::optional<v1::Quat> RotationIn(const v1::Pose& pose, int index) {
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
inline v1::TickCharacterResult WithoutJobRotations(
    v1::TickCharacterResult out) {
  out.mutable_ground()->clear_rotations();
  for (v1::GoalResult& goal : *out.mutable_goals()) goal.clear_rotations();
  for (v1::DynamicChainResult& chain :
       *out.mutable_dynamics()->mutable_results()) {
    chain.clear_rotations();
  }
  return out;
}

inline v1::Quat RandomSmallRotation(std::mt19937_64& engine, double max_angle) {
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

 public:
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

 protected:
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
      // As ikd reads it (a claim off unit within the tolerance is
      // normalised).
      const Quat read = FromProto(*last) / Norm(FromProto(*last));
      EXPECT_TRUE(SameRotation(MakeQuat(q[0], q[1], q[2], q[3]), read, 1e-15))
          << "joint " << joint;
    }
  }
};

}  // namespace ik::server

#endif  // IK_TESTS_SERVER_TICK_FIXTURE_H_
