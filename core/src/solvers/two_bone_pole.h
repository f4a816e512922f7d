// Step 3 of the two-bone solve (two_bone.cc): the twist of the root towards
// the pole. Not part of the public API.
#ifndef IK_SRC_TWO_BONE_POLE_H_
#define IK_SRC_TWO_BONE_POLE_H_

#include <cmath>

#include "ik/base/math.h"
#include "ik/base/validate.h"

namespace ik::internal {

// A limb whose bones' cross product is below this fraction of l1 * l2 is
// straight: its bend plane is undefined (TwoBoneJob::Run, RunTwoBoneJobs).
inline constexpr double kStraightSine = 1e-10;

// A pole (or middle joint) closer to the root-target line than this fraction
// of its distance counts as on the line.
inline constexpr double kOnLineSine = 1e-9;

// Step 3 of the solve: the twist about the root-target axis that brings the
// middle joint into the plane of root, target and pole, on the pole's side.
// Identity when the pole (or the middle joint) is on the axis. Arguments are
// model-space offsets from the root; `bend_axis` is n times the bend's sign,
// used when the solved limb is straight: the middle joint's side is then
// k x n, which the bent solutions approach, so the twist stays continuous.
Quat TwistTowardsPole(const Vec3& pole_offset, const Vec3& to_target,
                      double target_length, const Quat& swing,
                      const Vec3& upper, const Vec3& root_to_tip,
                      const Vec3& bend_axis, double upper_sq);

// Squared root-target distances (m^2) for which TwistedSwing's scaled
// arithmetic stays far from overflow and underflow: 1 mm to 1 km. Outside
// them the solve normalises step by step (TwistTowardsPole).
inline constexpr double kTwistedSwingMinSquared = 1e-6;
inline constexpr double kTwistedSwingMaxSquared = 1e6;

// `v` turned by the rotation of the non-unit quaternion (w, u), times its
// squared norm s = w^2 + u.u: q v q* = (w^2 - u.u) v + 2 (u.v) u + 2w u x v.
inline Vec3 RotateScaled(double w, const Vec3& u, const Vec3& v) {
  return (w * w - glm::dot(u, u)) * v + (2.0 * glm::dot(u, v)) * u +
         (2.0 * w) * glm::cross(u, v);
}

// Steps 2 and 3 together, without normalising in between: the twist of
// TwistTowardsPole composed with the swing, both left unnormalised, so the
// caller's one division normalises the result and the middle joint's
// correction alike. `swing_w`, `swing_axis`: the swing's unnormalised
// quaternion (its w > 0 and the root -> tip direction off the root, as on
// Run()'s common path); `to_target` with its squared length `target_sq` in
// [kTwistedSwingMinSquared, kTwistedSwingMaxSquared]. Every offset the
// twist compares is scaled alike (by the swing's squared norm and
// |to_target|^2), so the thresholds of TwistTowardsPole carry those factors
// and it decides the same degenerate cases; its square roots but one and its
// divisions all go. The rotation is the same up to rounding, not the same
// bits.
inline Quat TwistedSwing(const Vec3& pole_offset, const Vec3& to_target,
                         double target_sq, double swing_w,
                         const Vec3& swing_axis, const Vec3& upper,
                         const Vec3& bend_axis, double upper_sq) {
  const Quat swing(swing_w, swing_axis.x, swing_axis.y, swing_axis.z);
  // Scaled by r^2 = target_sq: the offsets across the root-target axis.
  const Vec3 pole_across =
      target_sq * pole_offset - glm::dot(pole_offset, to_target) * to_target;
  const double pole_across_sq = glm::dot(pole_across, pole_across);
  const double target_sq_sq = target_sq * target_sq;
  if (!(pole_across_sq > kOnLineSine * kOnLineSine *
                             glm::dot(pole_offset, pole_offset) *
                             target_sq_sq) ||
      !(pole_across_sq >
        kMinDirectionLength * kMinDirectionLength * target_sq_sq)) {
    return swing;  // the pole on the axis: no twist
  }
  const double swing_sq = swing_w * swing_w + glm::dot(swing_axis, swing_axis);
  const double swing_sq_sq = swing_sq * swing_sq;
  // Scaled by swing_sq * r^2.
  const Vec3 mid_offset = RotateScaled(swing_w, swing_axis, upper);
  Vec3 mid_across =
      target_sq * mid_offset - glm::dot(mid_offset, to_target) * to_target;
  double mid_across_sq = glm::dot(mid_across, mid_across);
  double mid_scale_sq = swing_sq_sq * target_sq_sq;  // of mid_across_sq
  if (mid_across_sq <= kOnLineSine * kOnLineSine * upper_sq * mid_scale_sq) {
    // Straight limb: the side k x n, scaled by swing_sq * |r|.
    mid_across =
        glm::cross(to_target, RotateScaled(swing_w, swing_axis, bend_axis));
    mid_across_sq = glm::dot(mid_across, mid_across);
    mid_scale_sq = swing_sq_sq * target_sq;
  }
  if (!(mid_across_sq >
        kMinDirectionLength * kMinDirectionLength * mid_scale_sq)) {
    return swing;
  }
  // The turn about r from mid_across to pole_across, both across r: the
  // shortest arc (|m||p| + m.p, m x p), or near a half turn its better
  // conditioned form (r.(m x p), (|m||p| - m.p) r), |r| times the former's
  // (sin, (1 - cos) axis) half-angle identity.
  const double cosine = glm::dot(mid_across, pole_across);
  const double scale = std::sqrt(mid_across_sq * pole_across_sq);
  const Vec3 cross = glm::cross(mid_across, pole_across);
  // Both forms, then a select per component: the side of the half turn is
  // as likely as not, a branch on it would mispredict half the time.
  const bool near = cosine >= 0.0;
  const Vec3 far_axis = (scale - cosine) * to_target;
  const Quat twist(near ? scale + cosine : glm::dot(to_target, cross),
                   near ? cross.x : far_axis.x, near ? cross.y : far_axis.y,
                   near ? cross.z : far_axis.z);
  return twist * swing;
}

}  // namespace ik::internal

#endif  // IK_SRC_TWO_BONE_POLE_H_
