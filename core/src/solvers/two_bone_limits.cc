// SolveTwoBoneWithLimits (two_bone_limits.h): TwoBoneJob between the rig's
// joint limits.
#include "solvers/two_bone_limits.h"

#include <cstdint>
#include <optional>

#include "absl/status/status.h"
#include "ik/base/joint_limits.h"
#include "ik/solvers/two_bone.h"

namespace ik::internal {
namespace {

// A hinge joint whose axis its rotation moves by less than this (radians,
// about) counts as on the hinge: turning about the axis keeps it there.
constexpr double kOnHingeSlack = 1e-12;

}  // namespace

absl::Status SolveTwoBoneWithLimits(
    const Rig& rig, const TwoBoneJoints& joints, const Transform& root_model,
    const Vec3& target_model, const std::optional<Vec3>& pole_model,
    double tolerance, absl::Span<Transform> locals, SolveReport* report,
    std::uint64_t* limited_mask) {
  const JointDefinition& mid = rig.joint(joints.mid);
  const JointConstraint mid_constraint = JointConstraintOf(mid);

  // The middle joint starts within its limit. One decomposition serves a
  // hinge's check and its angle.
  const bool mid_hinge = mid.limit.kind == JointLimit::Kind::kHinge;
  Quat mid_rotation = locals[joints.mid].rotation;
  double hinge_angle = 0.0;
  bool mid_within = false;
  if (mid_hinge) {
    const HingeLimit& hinge = mid.limit.hinge;
    const Quat relative = glm::conjugate(mid.rest.rotation) * mid_rotation;
    hinge_angle = DecomposeSwingTwist(relative, hinge.axis).twist_angle;
    mid_within =
        ClampAngleToRange(hinge_angle, hinge.range) == hinge_angle &&
        glm::length(relative * hinge.axis - hinge.axis) <= kOnHingeSlack;
  }
  std::uint64_t mask = 0;
  if (!mid_within) {  // a hinge off its range or axis, or any other limit
    const LimitedRotation mid_start =
        ApplyJointConstraint(mid_constraint, mid_rotation);
    mid_rotation = mid_start.rotation;
    if (mid_start.clamped) mask |= kMidLimited;
    if (mid_hinge) {
      hinge_angle = ClampAngleToRange(hinge_angle, mid.limit.hinge.range);
    }
  }

  Transform mid_local = locals[joints.mid];
  mid_local.rotation = mid_rotation;
  const Transform mid_model = Compose(root_model, mid_local);

  Quat root_correction = IdentityQuat();
  Quat mid_correction = IdentityQuat();
  bool turn_clamped = false;
  TwoBoneJob job;
  job.root_model = root_model;
  job.mid_model = mid_model;
  job.tip_model.translation =
      TransformPoint(mid_model, locals[joints.tip].translation);
  job.target_model = target_model;
  job.pole_model = pole_model;
  if (mid_hinge) {
    // The hinge axis lives in the middle joint's rest local frame; the
    // parent (the root) carries that frame into model space. Turning about
    // it keeps the pose on the hinge, and the turn may take the hinge angle
    // to either end of its range.
    const HingeLimit& hinge = mid.limit.hinge;
    job.mid_axis_model = root_model.rotation * (mid.rest.rotation * hinge.axis);
    job.mid_turn_range = AngleRange{hinge.range.min - hinge_angle,
                                    hinge.range.max - hinge_angle};
  }
  job.tolerance = tolerance;
  job.root_correction = &root_correction;
  job.mid_correction = &mid_correction;
  job.report = report;
  job.mid_turn_clamped = &turn_clamped;
  if (absl::Status status = job.Run(); !status.ok()) return status;
  if (turn_clamped) mask |= kMidLimited;

  // Apply, then hold the joints to their limits. A hinge's turn stays on it
  // and in range (up to rounding): no second clamp.
  const LimitedRotation root_limited = ApplyJointConstraint(
      JointConstraintOf(rig.joint(joints.root)),
      glm::normalize(locals[joints.root].rotation * root_correction));
  locals[joints.root].rotation = root_limited.rotation;
  if (root_limited.clamped) mask |= kRootLimited;
  const Quat mid_turned = glm::normalize(mid_rotation * mid_correction);
  if (mid_hinge) {
    locals[joints.mid].rotation = mid_turned;
  } else {
    const LimitedRotation mid_limited =
        ApplyJointConstraint(mid_constraint, mid_turned);
    locals[joints.mid].rotation = mid_limited.rotation;
    if (mid_limited.clamped) mask |= kMidLimited;
  }
  *limited_mask |= mask;
  return absl::OkStatus();
}

}  // namespace ik::internal
