// The grounding pass's leg solve and its small arithmetic: the pelvis drop a
// goal needs and the speed limits of stateless smoothing.
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "grounding_internal.h"
#include "ik/joint_limits.h"
#include "ik/two_bone.h"

namespace ik::internal {
namespace {

// A hinge joint whose axis its rotation moves by less than this (radians,
// about) counts as on the hinge (as in solve_chain.cc).
constexpr double kOnHingeSlack = 1e-12;

}  // namespace

LegPose PoseOfLeg(absl::Span<const int> parents,
                  absl::Span<const Transform> locals, const Leg& leg) {
  LegPose pose;
  std::array<int, kMaxTopDownAncestors> path;
  int count = 0;
  int joint = parents[leg.hip];
  for (; joint != kNoParent && count < kMaxTopDownAncestors;
       joint = parents[joint]) {
    path[count++] = joint;
  }
  if (joint != kNoParent) {  // the rest, bottom-up
    pose.parent = locals[joint];
    for (int j = parents[joint]; j != kNoParent; j = parents[j]) {
      pose.parent = Compose(locals[j], pose.parent);
    }
  }
  while (count > 0) pose.parent = Compose(pose.parent, locals[path[--count]]);
  pose.hip = Compose(pose.parent, locals[leg.hip]);
  pose.knee = Compose(pose.hip, locals[leg.knee]);
  pose.ankle = Compose(pose.knee, locals[leg.ankle]);
  if (leg.toe != kNoParent) {
    Transform below_ankle = locals[leg.toe];
    for (int j = parents[leg.toe]; j != leg.ankle; j = parents[j]) {
      below_ankle = Compose(locals[j], below_ankle);
    }
    pose.toe = TransformPoint(pose.ankle, below_ankle.translation);
  }
  return pose;
}

bool BelowEarlierLegs(absl::Span<const int> parents, absl::Span<const Leg> legs,
                      size_t leg) {
  for (int j = parents[legs[leg].hip]; j != kNoParent; j = parents[j]) {
    for (size_t earlier = 0; earlier < leg; ++earlier) {
      const Leg& other = legs[earlier];
      if (j == other.hip || j == other.knee || j == other.ankle) return true;
    }
  }
  return false;
}

absl::Status SolveLeg(const Rig& rig, const Leg& leg,
                      const Transform& parent_model, const Vec3& target_model,
                      const Vec3& pole_model, absl::Span<Transform> locals) {
  // PoseSolver::SolveTwoBone's steps (solve_chain.cc), for a leg: the knee
  // starts within its limit, so a hinge's bend stays on the hinge and its
  // turn range is known.
  const JointDefinition& knee = rig.joint(leg.knee);
  const bool knee_hinge = knee.limit.kind == JointLimit::Kind::kHinge;
  Quat knee_rotation = locals[leg.knee].rotation;
  double hinge_angle = 0.0;
  bool knee_within = false;
  if (knee_hinge) {
    const HingeLimit& hinge = knee.limit.hinge;
    const Quat relative = glm::conjugate(knee.rest.rotation) * knee_rotation;
    hinge_angle = DecomposeSwingTwist(relative, hinge.axis).twist_angle;
    knee_within =
        ClampAngleToRange(hinge_angle, hinge.range) == hinge_angle &&
        glm::length(relative * hinge.axis - hinge.axis) <= kOnHingeSlack;
  }
  if (!knee_within) {  // a hinge off its range or axis, or any other limit
    knee_rotation =
        ApplyJointConstraint(JointConstraintOf(knee), knee_rotation).rotation;
    if (knee_hinge) {
      hinge_angle = ClampAngleToRange(hinge_angle, knee.limit.hinge.range);
    }
  }

  const Transform hip_model = Compose(parent_model, locals[leg.hip]);
  Transform knee_local = locals[leg.knee];
  knee_local.rotation = knee_rotation;
  const Transform knee_model = Compose(hip_model, knee_local);

  Quat hip_correction = IdentityQuat();
  Quat knee_correction = IdentityQuat();
  SolveReport report;
  TwoBoneJob job;
  job.root_model = hip_model;
  job.mid_model = knee_model;
  job.tip_model.translation =
      TransformPoint(knee_model, locals[leg.ankle].translation);
  job.target_model = target_model;
  job.pole_model = pole_model;
  if (knee_hinge) {
    // The hinge axis lives in the knee's rest local frame, which the hip
    // carries into model space.
    const HingeLimit& hinge = knee.limit.hinge;
    job.mid_axis_model = hip_model.rotation * (knee.rest.rotation * hinge.axis);
    job.mid_turn_range = AngleRange{hinge.range.min - hinge_angle,
                                    hinge.range.max - hinge_angle};
  }
  job.root_correction = &hip_correction;
  job.mid_correction = &knee_correction;
  job.report = &report;
  if (absl::Status status = job.Run(); !status.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("locals: leg '", leg.name,
                     "' cannot be solved in this pose: ", status.message()));
  }

  // Apply; the hip's limit may pull the ankle off its goal, which the
  // caller measures. A hinge's turn stays on it and in range.
  locals[leg.hip].rotation =
      ApplyJointConstraint(
          JointConstraintOf(rig.joint(leg.hip)),
          glm::normalize(locals[leg.hip].rotation * hip_correction))
          .rotation;
  const Quat knee_turned = glm::normalize(knee_rotation * knee_correction);
  locals[leg.knee].rotation =
      knee_hinge
          ? knee_turned
          : ApplyJointConstraint(JointConstraintOf(knee), knee_turned).rotation;
  return absl::OkStatus();
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
