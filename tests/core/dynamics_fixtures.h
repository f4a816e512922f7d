// Test and benchmark helpers for the dynamic-bone simulation: chains, poses
// and a small driver that owns the job's buffers and steps it.
#ifndef IK_TESTS_CORE_DYNAMICS_FIXTURES_H_
#define IK_TESTS_CORE_DYNAMICS_FIXTURES_H_

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "ik/base/math.h"
#include "ik/dynamics/colliders.h"
#include "ik/dynamics/dynamic_chain.h"
#include "ik/dynamics/dynamics.h"

namespace ik {
namespace testing {

// A root and `joints - 1` simulated joints, each the parent of the next,
// bones of `length` metres, joint radius `radius`. No wind.
inline DynamicChain StraightChain(int joints, double length,
                                  double radius = 0.0) {
  DynamicChain chain;
  chain.joints.resize(joints);
  for (int i = 1; i < joints; ++i) {
    chain.joints[i].parent = i - 1;
    chain.joints[i].length = length;
    chain.joints[i].radius = radius;
  }
  return chain;
}

// The animated pose of a chain: joint 0 at `root`, each joint `length`
// further along its parent's `direction` (unit), identity rotations.
inline std::vector<Transform> StraightPose(const DynamicChain& chain,
                                           const Vec3& root,
                                           const Vec3& direction) {
  std::vector<Transform> pose(chain.joints.size());
  pose[0].translation = root;
  for (size_t i = 1; i < pose.size(); ++i) {
    const DynamicJoint& joint = chain.joints[i];
    pose[i].translation =
        pose[joint.parent].translation + joint.length * direction;
  }
  return pose;
}

// The twist angle of unit `rotation` about unit `axis`, radians in
// [-pi, pi]: 2 atan2(v.axis, w) with w >= 0 (swing-twist decomposition),
// computed independently of the code under test.
double TwistAngleAbout(const Quat& rotation, const Vec3& axis) {
  const double s = glm::dot(Vec3(rotation.x, rotation.y, rotation.z), axis);
  return rotation.w < 0.0 ? 2.0 * std::atan2(-s, -rotation.w)
                          : 2.0 * std::atan2(s, rotation.w);
}

// Owns a chain, its animated pose, colliders, state and outputs, and steps.
class Simulation {
 public:
  Simulation(DynamicChain chain, std::vector<Transform> animated)
      : chain_(std::move(chain)),
        animated_(std::move(animated)),
        rotations_world_(chain_.joints.size()),
        corrections_local_(chain_.joints.size()) {}

  absl::Status Step(double delta_time, bool reset = false) {
    StepDynamicsJob job;
    job.chain = &chain_;
    job.animated_world = animated_;
    job.colliders_world = colliders_;
    job.delta_time = delta_time;
    job.reset = reset;
    job.state = &state_;
    job.rotations_world = absl::MakeSpan(rotations_world_);
    job.corrections_local = absl::MakeSpan(corrections_local_);
    job.report = &report_;
    return job.Run();
  }

  // Moves the whole animated pose (a rigid translation).
  void MoveTo(const Vec3& root) {
    const Vec3 offset = root - animated_[0].translation;
    for (Transform& transform : animated_) transform.translation += offset;
  }

  DynamicChain& chain() { return chain_; }
  std::vector<Transform>& animated() { return animated_; }
  std::vector<Collider>& colliders() { return colliders_; }
  DynamicState& state() { return state_; }
  const std::vector<Transform>& animated() const { return animated_; }
  const DynamicState& state() const { return state_; }
  const std::vector<Vec3>& positions() const { return state_.positions; }
  const Vec3& tip() const { return state_.positions.back(); }
  const std::vector<Quat>& rotations_world() const { return rotations_world_; }
  const std::vector<Quat>& corrections_local() const {
    return corrections_local_;
  }
  const DynamicsReport& report() const { return report_; }

  // The largest |bone length - rest length| / rest length over the chain.
  double MaxRelativeLengthError() const {
    double worst = 0.0;
    for (size_t i = 1; i < chain_.joints.size(); ++i) {
      const DynamicJoint& joint = chain_.joints[i];
      const double length =
          glm::length(state_.positions[i] - state_.positions[joint.parent]);
      worst = std::max(worst, std::abs(length - joint.length) / joint.length);
    }
    return worst;
  }

 private:
  DynamicChain chain_;
  std::vector<Transform> animated_;
  std::vector<Collider> colliders_;
  DynamicState state_;
  std::vector<Quat> rotations_world_;
  std::vector<Quat> corrections_local_;
  DynamicsReport report_;
};

}  // namespace testing
}  // namespace ik

#endif  // IK_TESTS_CORE_DYNAMICS_FIXTURES_H_
