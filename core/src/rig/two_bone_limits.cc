// SolveTwoBoneWithLimits (two_bone_limits.h): TwoBoneJob between the rig's
// joint limits.
#include "rig/two_bone_limits.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>

#include "absl/status/status.h"
#include "ik/base/joint_limits.h"
#include "ik/base/math.h"
#include "ik/base/validate.h"
#include "ik/solvers/two_bone.h"
#include "rig/limb_circle.h"

namespace ik::internal {
namespace {

// A hinge joint whose axis its rotation moves by less than this (radians,
// about) counts as on the hinge: turning about the axis keeps it there.
constexpr double kOnHingeSlack = 1e-12;

MidStart StartMidWithinLimit(const JointDefinition& mid,
                             const JointConstraint& mid_constraint,
                             const Quat& mid_rotation) {
  MidStart start;
  start.hinge = mid.limit.kind == JointLimit::Kind::kHinge;
  start.rotation = mid_rotation;
  bool mid_within = false;
  if (start.hinge) {
    const HingeLimit& hinge = mid.limit.hinge;
    const Quat relative = glm::conjugate(mid.rest.rotation) * start.rotation;
    start.hinge_angle = TwistAngleAbout(relative, hinge.axis);
    mid_within =
        ClampAngleToRange(start.hinge_angle, hinge.range) ==
            start.hinge_angle &&
        glm::length(relative * hinge.axis - hinge.axis) <= kOnHingeSlack;
  }
  if (!mid_within) {  // a hinge off its range or axis, or any other limit
    const LimitedRotation limited =
        ApplyJointConstraint(mid_constraint, start.rotation);
    start.rotation = limited.rotation;
    start.clamped = limited.clamped;
    if (start.hinge) {
      start.hinge_angle =
          ClampAngleToRange(start.hinge_angle, mid.limit.hinge.range);
    }
  }
  return start;
}

// Sets `job`'s inputs (its outputs are the caller's to set). `mid_model`
// is the middle joint's model transform with the start's rotation.
void SetJobWithinLimits(const JointDefinition& mid, const MidStart& start,
                        const Transform& root_model, const Transform& mid_model,
                        const Vec3& tip_translation_local,
                        const Vec3& target_model,
                        const std::optional<Vec3>& pole_model, double tolerance,
                        TwoBoneJob& job) {
  job.root_model = root_model;
  job.mid_model = mid_model;
  job.tip_model.translation = TransformPoint(mid_model, tip_translation_local);
  job.target_model = target_model;
  job.pole_model = pole_model;
  if (start.hinge) {
    // The hinge axis lives in the middle joint's rest local frame; the
    // parent (the root) carries that frame into model space. Turning about
    // it keeps the pose on the hinge, and the turn may take the hinge angle
    // to either end of its range.
    const HingeLimit& hinge = mid.limit.hinge;
    job.mid_axis_model = root_model.rotation * (mid.rest.rotation * hinge.axis);
    job.mid_turn_range = AngleRange{hinge.range.min - start.hinge_angle,
                                    hinge.range.max - start.hinge_angle};
  }
  job.tolerance = tolerance;
}

// Applies the corrections, then holds the joints to their limits; returns
// the mask of the joints a limit clamped (the root too when it chose another
// point of the circle for it). A hinge's turn stays on it and in range (up to
// rounding): no second clamp.
std::uint64_t ApplyCorrectionsWithinLimits(
    const Rig& rig, const TwoBoneJoints& joints,
    const JointConstraint& mid_constraint, const MidStart& start,
    const Transform& root_model, const Vec3& target_model,
    const Quat& root_correction, const Quat& mid_correction,
    absl::Span<Transform> locals) {
  std::uint64_t mask = 0;
  const JointConstraint root_constraint =
      JointConstraintOf(rig.joint(joints.root));
  const Quat root_solved =
      NormalizeNearUnit(locals[joints.root].rotation * root_correction);
  LimitedRotation root_limited =
      ApplyJointConstraint(root_constraint, root_solved);
  const JointDefinition& root = rig.joint(joints.root);
  const Vec3 to_target = target_model - root_model.translation;
  if (root_limited.clamped &&
      root.limit.kind == JointLimit::Kind::kBallSocket &&
      glm::length(to_target) >= kMinDirectionLength) {
    // The limit would pull the tip off: another point of the circle of
    // exact solutions may be within it.
    const double distance = glm::length(to_target);
    LimbCircle circle;
    circle.parent_rotation =
        root_model.rotation * glm::conjugate(locals[joints.root].rotation);
    circle.rest_rotation = root.rest.rotation;
    circle.root_solved = root_solved;
    circle.axis_model = to_target / distance;
    if (const std::optional<AllowedTurn> turn = NearestAllowedTurn(
            circle, root.limit.ball_socket, root_constraint)) {
      // Within the limit up to its clamp slack (kLimitClampSlack): kept as
      // found, so the tip stays on the circle through the target.
      root_limited.rotation = turn->root;
    }
  }
  locals[joints.root].rotation = root_limited.rotation;
  if (root_limited.clamped) mask |= kRootLimited;
  const Quat mid_turned = NormalizeNearUnit(start.rotation * mid_correction);
  if (start.hinge) {
    locals[joints.mid].rotation = mid_turned;
  } else {
    const LimitedRotation mid_limited =
        ApplyJointConstraint(mid_constraint, mid_turned);
    locals[joints.mid].rotation = mid_limited.rotation;
    if (mid_limited.clamped) mask |= kMidLimited;
  }
  return mask;
}

}  // namespace

TwoBoneLimbSolve::TwoBoneLimbSolve(
    const Rig& rig, const TwoBoneJoints& joints, const Transform& root_model,
    const Vec3& target_model, const std::optional<Vec3>& pole_model,
    double tolerance, absl::Span<const Transform> locals, SolveReport* report)
    : rig_(rig),
      joints_(joints),
      root_model_(root_model),
      target_model_(target_model) {
  const JointDefinition& mid = rig.joint(joints.mid);
  free_ = mid.limit.kind == JointLimit::Kind::kNone &&
          rig.joint(joints.root).limit.kind == JointLimit::Kind::kNone;
  if (free_) {
    // Neither joint limited: the job and the corrections applied, nothing
    // to hold or search.
    job_.root_model = root_model;
    job_.mid_model = Compose(root_model, locals[joints.mid]);
    job_.tip_model.translation =
        TransformPoint(job_.mid_model, locals[joints.tip].translation);
    job_.target_model = target_model;
    job_.pole_model = pole_model;
    job_.tolerance = tolerance;
  } else {
    mid_constraint_ = JointConstraintOf(mid);
    start_ =
        StartMidWithinLimit(mid, mid_constraint_, locals[joints.mid].rotation);
    Transform mid_local = locals[joints.mid];
    mid_local.rotation = start_.rotation;
    SetJobWithinLimits(mid, start_, root_model, Compose(root_model, mid_local),
                       locals[joints.tip].translation, target_model, pole_model,
                       tolerance, job_);
    job_.mid_turn_clamped = &turn_clamped_;
  }
  job_.root_correction = &root_correction_;
  job_.mid_correction = &mid_correction_;
  job_.report = report;
}

absl::Status TwoBoneLimbSolve::Finish(const absl::Status& solved,
                                      absl::Span<Transform> locals,
                                      std::uint64_t* limited_mask) const {
  if (!solved.ok()) return solved;
  if (free_) {
    Quat& root_rotation = locals[joints_.root].rotation;
    Quat& mid_rotation = locals[joints_.mid].rotation;
    root_rotation = NormalizeNearUnit(root_rotation * root_correction_);
    mid_rotation = NormalizeNearUnit(mid_rotation * mid_correction_);
    return absl::OkStatus();
  }
  std::uint64_t mask = turn_clamped_ ? kMidLimited : 0;
  mask |= ApplyCorrectionsWithinLimits(
      rig_, joints_, mid_constraint_, start_, root_model_, target_model_,
      root_correction_, mid_correction_, locals);
  // A middle joint that started outside its limit was held by it only if
  // it ends on the limit's boundary (the turn may take it well inside).
  const JointDefinition& mid = rig_.joint(joints_.mid);
  if (start_.clamped && OnJointLimitBoundary(mid.limit, mid.rest.rotation,
                                             locals[joints_.mid].rotation)) {
    mask |= kMidLimited;
  }
  *limited_mask |= mask;
  return absl::OkStatus();
}

absl::Status SolveTwoBoneWithLimits(
    const Rig& rig, const TwoBoneJoints& joints, const Transform& root_model,
    const Vec3& target_model, const std::optional<Vec3>& pole_model,
    double tolerance, absl::Span<Transform> locals, SolveReport* report,
    std::uint64_t* limited_mask) {
  TwoBoneLimbSolve solve(rig, joints, root_model, target_model, pole_model,
                         tolerance, locals, report);
  return solve.Finish(solve.job().Run(), locals, limited_mask);
}

}  // namespace ik::internal
