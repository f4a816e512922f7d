// The grounding pass's leg poses and its small arithmetic: the pelvis drop a
// goal needs and the speed limits of stateless smoothing.
#include <algorithm>
#include <cmath>
#include <limits>

#include "ground/grounding_internal.h"

namespace ik::internal {

LegPose PoseOfLeg(absl::Span<const int> parents,
                  absl::Span<const Transform> locals, const Leg& leg) {
  LegPose pose;
  // The top-most joint's model transform is its local one: composing it
  // with the identity would only turn -0 coordinates into +0.
  const absl::Span<const int> ancestors = leg.ancestors;
  if (ancestors.empty()) {
    pose.hip = locals[leg.hip];
  } else {
    pose.parent = locals[ancestors[0]];
    for (size_t i = 1; i < ancestors.size(); ++i) {
      pose.parent = Compose(pose.parent, locals[ancestors[i]]);
    }
    pose.hip = Compose(pose.parent, locals[leg.hip]);
  }
  pose.knee = Compose(pose.hip, locals[leg.knee]);
  pose.ankle = Compose(pose.knee, locals[leg.ankle]);
  if (leg.toe != kNoParent) {
    // Joints between the ankle and the toe, bottom-up.
    Transform below_ankle = locals[leg.toe];
    for (int j = parents[leg.toe]; j != leg.ankle; j = parents[j]) {
      below_ankle = Compose(locals[j], below_ankle);
    }
    pose.toe = TransformPoint(pose.ankle, below_ankle.translation);
  }
  return pose;
}

namespace {

// Whether `leg`'s solve or foot turns joint `j`.
bool TurnsJoint(const Leg& leg, int j) {
  return j == leg.hip || j == leg.knee || j == leg.ankle;
}

}  // namespace

bool BelowEarlierLegs(absl::Span<const Leg> legs, size_t leg) {
  for (const int j : legs[leg].ancestors) {
    for (size_t earlier = 0; earlier < leg; ++earlier) {
      if (TurnsJoint(legs[earlier], j)) return true;
    }
  }
  return false;
}

bool ShareJoints(const Leg& a, const Leg& b) {
  return TurnsJoint(b, a.hip) || TurnsJoint(b, a.knee) ||
         TurnsJoint(b, a.ankle);
}

double DropNeeded(const Vec3& hip_to_goal, double reach) {
  // |hip_to_goal + drop * up| <= reach, the smallest drop >= 0.
  const double horizontal_sq =
      hip_to_goal.x * hip_to_goal.x + hip_to_goal.z * hip_to_goal.z;
  const double reach_sq = reach * reach;
  if (horizontal_sq > reach_sq) return std::numeric_limits<double>::infinity();
  return std::max(0.0, -hip_to_goal.y - std::sqrt(reach_sq - horizontal_sq));
}

double MoveTowards(double previous, double target, double max_step) {
  return previous + std::clamp(target - previous, -max_step, max_step);
}

Vec3 MoveTowards(const Vec3& previous, const Vec3& target, double max_step) {
  const Vec3 step = target - previous;
  const double length = glm::length(step);
  if (length <= max_step) return target;
  return previous + step * (max_step / length);
}

double MaxStep(double speed, double delta_time) {
  if (std::isinf(speed)) return speed;
  return speed * delta_time;
}

}  // namespace ik::internal
