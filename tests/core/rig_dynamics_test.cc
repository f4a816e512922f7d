// RigDynamicsStep (rig_dynamics.cc): one step of a character's dynamic chain
// from a whole pose. Validate() names each faulty field and leaves the state
// alone; Run() gives every chain joint a rotation, leaves (DynamicChainBinding
// ::turns false) keeping their animated one.
#include "ik/dynamics/rig_dynamics.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "humanoid_rig.h"
#include "ik/character/character.h"
#include "ik/rig/forward_kinematics.h"

namespace ik {
namespace {

class RigDynamicsStepTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<Character> humanoid = testing::HumanoidCharacter();
    ASSERT_TRUE(humanoid.ok()) << humanoid.status();
    character_.emplace(*std::move(humanoid));
    chain_ = character_->FindDynamicChain("ponytail");
    ASSERT_NE(chain_, nullptr);
    const Rig& rig = character_->rig;
    locals_.assign(rig.rest_pose().begin(), rig.rest_pose().end());
    // A turned head, so the animated rotations are not the rest ones.
    locals_[rig.FindJoint("head")].rotation =
        AngleAxis(0.4, glm::normalize(Vec3(0.2, 1.0, 0.1)));
    world_.resize(locals_.size());
    LocalToModelJob fk;
    fk.parents = rig.parents();
    fk.locals = locals_;
    fk.root.translation = Vec3(0.5, 0.0, -1.0);
    fk.models = absl::MakeSpan(world_);
    ASSERT_TRUE(fk.Run().ok());
    rotations_.assign(chain_->joints.size(), Quat(0.0, 0.0, 0.0, 0.0));
  }

  RigDynamicsStep Step() {
    RigDynamicsStep step;
    step.rig = &character_->rig;
    step.colliders = character_->colliders;
    step.chain = chain_;
    step.models_world = world_;
    step.locals = locals_;
    step.delta_time = 1.0 / 60.0;
    step.state = &state_;
    step.rotations_local = absl::MakeSpan(rotations_);
    step.report = &report_;
    return step;
  }

  // Validate() and Run() both refuse `step` with a message that starts
  // with `prefix`, the state and the output untouched.
  void ExpectRefused(const RigDynamicsStep& step, absl::StatusCode code,
                     const std::string& prefix) {
    const std::vector<Quat> rotations_before = rotations_;
    for (const absl::Status& status : {step.Validate(), step.Run()}) {
      EXPECT_EQ(status.code(), code) << status;
      EXPECT_TRUE(absl::StartsWith(status.message(), prefix))
          << status.message() << " does not start with " << prefix;
    }
    EXPECT_TRUE(state_.positions.empty());
    EXPECT_EQ(rotations_, rotations_before);
  }

  std::optional<Character> character_;
  const DynamicChainBinding* chain_ = nullptr;
  std::vector<Transform> locals_;
  std::vector<Transform> world_;
  std::vector<Quat> rotations_;
  DynamicState state_;
  DynamicsReport report_;
};

TEST_F(RigDynamicsStepTest, AcceptsAWholeStep) {
  EXPECT_TRUE(Step().Validate().ok());
  EXPECT_TRUE(state_.positions.empty()) << "Validate() changed the state";
  EXPECT_TRUE(Step().Run().ok());
  EXPECT_EQ(state_.positions.size(), chain_->joints.size());
}

TEST_F(RigDynamicsStepTest, RejectsMissingInputsWithTheirFields) {
  constexpr auto kInvalid = absl::StatusCode::kInvalidArgument;
  RigDynamicsStep step = Step();
  step.rig = nullptr;
  ExpectRefused(step, kInvalid, "rig: not set");
  step = Step();
  step.chain = nullptr;
  ExpectRefused(step, kInvalid, "chain: not set");
  step = Step();
  step.state = nullptr;
  ExpectRefused(step, kInvalid, "state: not set");
  step = Step();
  step.report = nullptr;
  ExpectRefused(step, kInvalid, "report: not set");
}

TEST_F(RigDynamicsStepTest, RejectsSpansOfTheWrongSize) {
  constexpr auto kInvalid = absl::StatusCode::kInvalidArgument;
  RigDynamicsStep step = Step();
  step.models_world = step.models_world.subspan(1);
  ExpectRefused(step, kInvalid, "models_world: 27 transforms for 28 joints");
  step = Step();
  step.locals = {};
  ExpectRefused(step, kInvalid, "locals: 0 transforms for 28 joints");
  step = Step();
  step.rotations_local = step.rotations_local.subspan(2);
  ExpectRefused(step, kInvalid,
                "rotations_local: 5 entries for 7 chain joints");
  // The ponytail collides with the character's four colliders.
  step = Step();
  step.colliders = step.colliders.subspan(0, 3);
  ExpectRefused(step, kInvalid,
                "colliders: 3 colliders; the chain uses collider 3");
}

TEST_F(RigDynamicsStepTest, NamesTheStepsOwnFieldsUnderTheirPaths) {
  WindSettings wind;
  wind.strength = std::numeric_limits<double>::quiet_NaN();
  RigDynamicsStep step = Step();
  step.wind = &wind;
  ExpectRefused(step, absl::StatusCode::kInvalidArgument, "wind.strength: ");
  step = Step();
  step.delta_time = -1.0;
  const absl::Status status = step.Validate();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StartsWith(status.message(), "delta_time: ")) << status;
  step = Step();
  state_.positions.assign(3, Vec3(0.0));
  step.state_path = "states[4]";
  EXPECT_TRUE(
      absl::StartsWith(step.Validate().message(), "states[4].positions"))
      << step.Validate();
}

TEST_F(RigDynamicsStepTest, LeavesKeepTheirAnimatedRotation) {
  const RigDynamicsStep step = Step();
  for (int i = 0; i < 5; ++i) {
    locals_[character_->rig.FindJoint("head")].rotation =
        AngleAxis(0.1 * i, Vec3(0.0, 1.0, 0.0));
    ASSERT_TRUE(step.Run().ok());
  }
  ASSERT_EQ(chain_->turns.size(), chain_->joints.size());
  int turning = 0;
  for (size_t k = 0; k < chain_->joints.size(); ++k) {
    bool has_child = false;
    for (const DynamicJoint& joint : chain_->chain.joints) {
      has_child |= joint.parent == static_cast<int>(k);
    }
    EXPECT_EQ(chain_->turns[k], has_child) << k;
    const Quat animated = glm::normalize(locals_[chain_->joints[k]].rotation);
    if (!chain_->turns[k]) {
      EXPECT_EQ(rotations_[k], animated) << "leaf " << k;
    } else {
      turning += 1;
      EXPECT_NEAR(std::abs(glm::dot(rotations_[k], rotations_[k])), 1.0, 1e-12);
    }
  }
  EXPECT_EQ(turning, 6);  // the ponytail's 7 joints but its tip
}

// BuildDynamicChains prepares each chain once (DynamicChainBinding::
// prepared); a binding without it steps its `chain` instead, to the same
// bits, with or without a wind replacing the chain's.
TEST_F(RigDynamicsStepTest, PreparedChainStepsLikeTheChainItself) {
  ASSERT_FALSE(chain_->prepared.empty());
  DynamicChainBinding unprepared = *chain_;
  unprepared.prepared = PreparedDynamicChain();
  WindSettings wind;
  wind.strength = 6.0;
  wind.direction = Vec3(1.0, 0.0, 0.2);
  wind.turbulence = 0.7;
  wind.seed = 3;
  const int head = character_->rig.FindJoint("head");
  for (const WindSettings* step_wind :
       {static_cast<WindSettings*>(nullptr), &wind}) {
    DynamicState states[2];
    std::vector<Quat> rotations[2];
    for (int frame = 0; frame < 90; ++frame) {
      locals_[head].rotation = AngleAxis(0.6 * std::sin(0.2 * frame),
                                         glm::normalize(Vec3(0.3, 1.0, 0.0)));
      LocalToModelJob fk;
      fk.parents = character_->rig.parents();
      fk.locals = locals_;
      fk.root.translation = Vec3(0.02 * frame, 0.0, 0.03 * frame);
      fk.models = absl::MakeSpan(world_);
      ASSERT_TRUE(fk.Run().ok());
      for (int path = 0; path < 2; ++path) {
        rotations[path].resize(chain_->joints.size());
        RigDynamicsStep step = Step();
        step.chain = path == 0 ? chain_ : &unprepared;
        step.wind = step_wind;
        step.delta_time = frame % 4 == 3 ? 1.0 / 30.0 : 1.0 / 60.0;
        step.state = &states[path];
        step.rotations_local = absl::MakeSpan(rotations[path]);
        const absl::Status status = step.Run();
        ASSERT_TRUE(status.ok()) << status;
      }
      for (size_t k = 0; k < chain_->joints.size(); ++k) {
        ASSERT_EQ(std::memcmp(&rotations[0][k], &rotations[1][k], sizeof(Quat)),
                  0)
            << "frame " << frame << " joint " << k;
        ASSERT_EQ(std::memcmp(&states[0].positions[k], &states[1].positions[k],
                              sizeof(Vec3)),
                  0);
      }
    }
  }
}

}  // namespace
}  // namespace ik
