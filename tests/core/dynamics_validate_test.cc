// Tests of StepDynamicsJob::Validate (core/src/dynamics_validate.cc): every
// error path, its status code and its field path.
#include <cstring>
#include <limits>
#include <vector>

#include "absl/status/status.h"
#include "dynamics_fixtures.h"
#include "gtest/gtest.h"
#include "ik/dynamics/dynamics.h"

namespace ik {
namespace {

using testing::Simulation;
using testing::StraightChain;
using testing::StraightPose;

const Vec3 kRoot(0.0, 1.5, 0.0);
const Vec3 kDown(0.0, -1.0, 0.0);

// A valid job over a Simulation-like set of buffers, for the error paths.
class StepDynamicsJobValidationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    chain_ = StraightChain(4, 0.1, 0.01);
    animated_ = StraightPose(chain_, kRoot, kDown);
    colliders_ = {SphereCollider(kRoot, 0.1)};
    rotations_.resize(4);
    corrections_.resize(4);
    Simulation warm(chain_, animated_);
    ASSERT_TRUE(warm.Step(1.0 / 60.0).ok());
    state_ = warm.state();
    job_.chain = &chain_;
    job_.animated_world = animated_;
    job_.colliders_world = colliders_;
    job_.delta_time = 1.0 / 60.0;
    job_.state = &state_;
    job_.rotations_world = absl::MakeSpan(rotations_);
    job_.corrections_local = absl::MakeSpan(corrections_);
    job_.report = &report_;
    ASSERT_TRUE(job_.Validate().ok());
  }

  void ExpectError(absl::StatusCode code, const char* message_prefix) {
    const absl::Status status = job_.Run();
    EXPECT_EQ(status.code(), code) << status;
    EXPECT_EQ(status.message().substr(0, std::strlen(message_prefix)),
              message_prefix)
        << status.message();
  }
  void ExpectInvalid(const char* message_prefix) {
    ExpectError(absl::StatusCode::kInvalidArgument, message_prefix);
  }

  DynamicChain chain_;
  std::vector<Transform> animated_;
  std::vector<Collider> colliders_;
  DynamicState state_;
  std::vector<Quat> rotations_;
  std::vector<Quat> corrections_;
  DynamicsReport report_;
  StepDynamicsJob job_;
};

constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

TEST_F(StepDynamicsJobValidationTest, RejectsMissingChain) {
  job_.chain = nullptr;
  ExpectInvalid("chain: null input");
}

TEST_F(StepDynamicsJobValidationTest, PrefixesChainErrors) {
  chain_.joints[2].length = 0.0;
  ExpectInvalid("chain.joints[2].length: must be within");
  chain_ = StraightChain(kMaxDynamicJoints + 1, 0.1);
  ExpectError(absl::StatusCode::kResourceExhausted, "chain.joints: ");
}

TEST_F(StepDynamicsJobValidationTest, RejectsBadAnimatedPose) {
  job_.animated_world = absl::MakeConstSpan(animated_).subspan(0, 3);
  ExpectInvalid("animated_world: 3 transforms for 4 joints");
  job_.animated_world = animated_;
  animated_[2].translation.y = kNan;
  ExpectInvalid("animated_world[2].translation: not finite");
  animated_[2].translation.y = 2e9;
  ExpectInvalid("animated_world[2].translation: beyond");
  animated_[2].translation.y = 1.0;
  animated_[3].rotation = Quat(0.0, 0.0, 0.0, 0.0);
  ExpectInvalid("animated_world[3].rotation: not a unit quaternion (norm 0)");
  animated_[3].rotation = Quat(kNan, 0.0, 0.0, 0.0);
  ExpectInvalid("animated_world[3].rotation: not finite");
}

TEST_F(StepDynamicsJobValidationTest, RejectsBadColliders) {
  colliders_[0].radius = -1.0;
  ExpectInvalid("colliders_world[0].radius: must be within");
  colliders_[0] = CapsuleCollider(Vec3(0.0), Vec3(kInf, 0.0, 0.0), 0.1);
  ExpectInvalid("colliders_world[0].end: not finite");
  colliders_.assign(kMaxDynamicColliders + 1, SphereCollider(kRoot, 0.1));
  job_.colliders_world = colliders_;
  ExpectError(absl::StatusCode::kResourceExhausted, "colliders_world: 65");
}

TEST_F(StepDynamicsJobValidationTest, RejectsBadDeltaTime) {
  for (double dt : {-0.01, kNan, kInf}) {
    job_.delta_time = dt;
    ExpectInvalid("delta_time: must be finite and >= 0");
  }
}

TEST_F(StepDynamicsJobValidationTest, RejectsBadState) {
  job_.state = nullptr;
  ExpectInvalid("state: null");
  job_.state = &state_;
  const DynamicState good = state_;

  state_.positions.pop_back();
  ExpectInvalid("state.positions: 3 entries for 4 joints");
  state_ = good;
  state_.previous_positions.push_back(Vec3(0.0));
  ExpectInvalid("state.previous_positions: 5 entries for 4 joints");
  state_ = good;
  state_.rotations.clear();
  ExpectInvalid("state.rotations: 0 entries for 4 joints");
  state_ = good;
  state_.positions[2].z = kNan;
  ExpectInvalid("state.positions[2]: not finite");
  state_ = good;
  state_.previous_positions[1].x = -3e9;
  ExpectInvalid("state.previous_positions[1]: beyond");
  state_ = good;
  state_.rotations[3] = Quat(2.0, 0.0, 0.0, 0.0);
  ExpectInvalid("state.rotations[3]: not a unit quaternion (norm 2)");
  state_ = good;
  state_.time_remainder = -1e-3;
  ExpectInvalid("state.time_remainder: must be within");
  state_.time_remainder = 1.0;  // more than a substep
  ExpectInvalid("state.time_remainder: must be within");
  state_ = good;
  state_.noise_time = kNan;
  ExpectInvalid("state.noise_time: must be within");
}

TEST_F(StepDynamicsJobValidationTest, ResetAcceptsAGarbledState) {
  state_.positions.pop_back();
  state_.rotations[0] = Quat(kNan, 0.0, 0.0, 0.0);
  job_.reset = true;
  ASSERT_TRUE(job_.Run().ok());
  EXPECT_EQ(report_.reset, DynamicsReset::kRequested);
  EXPECT_EQ(state_.positions.size(), 4u);
  // Its clocks still have to be valid.
  state_.noise_time = -1.0;
  ExpectInvalid("state.noise_time: ");
}

TEST_F(StepDynamicsJobValidationTest, RejectsBadOutputs) {
  rotations_.resize(3);
  job_.rotations_world = absl::MakeSpan(rotations_);
  ExpectInvalid("rotations_world: 3 entries for 4 joints");
  job_.rotations_world = {};  // optional
  ASSERT_TRUE(job_.Validate().ok());
  corrections_.resize(5);
  job_.corrections_local = absl::MakeSpan(corrections_);
  ExpectInvalid("corrections_local: 5 entries for 4 joints");
  job_.corrections_local = {};
  job_.report = nullptr;
  ExpectInvalid("report: null output");
}

TEST_F(StepDynamicsJobValidationTest, FailedValidationLeavesTheStateAlone) {
  const DynamicState before = state_;
  job_.delta_time = -1.0;
  ASSERT_FALSE(job_.Run().ok());
  EXPECT_EQ(state_.positions, before.positions);
  EXPECT_EQ(state_.time_remainder, before.time_remainder);
}

}  // namespace
}  // namespace ik
