#include "ik/solvers/two_bone.h"

#include <algorithm>
#include <cmath>

#include "absl/status/status.h"
#include "ik/base/joint_limits.h"
#include "ik/base/math.h"
#include "ik/base/trig.h"
#include "ik/base/validate.h"
#include "ik/solvers/solve_report.h"
#include "solvers/two_bone_pole.h"
#include "solvers/two_bone_validate.h"

namespace ik {
namespace {

using internal::kStraightSine;

// A model-space rotation `delta` about a joint, as the local correction that
// post-multiplies the joint's local rotation: R^-1 * delta * R, where R is the
// joint's model rotation (a conjugation only turns delta's axis).
Quat ToLocal(const Quat& delta, const Quat& model_rotation) {
  const Vec3 axis =
      glm::conjugate(model_rotation) * Vec3(delta.x, delta.y, delta.z);
  return Quat(delta.w, axis.x, axis.y, axis.z);
}

}  // namespace

// One function, for speed: the stages (setup, bend frame, step 1: the middle
// joint's turn, its range, step 2: the root's swing, step 3: the pole's twist,
// the corrections, the report) share some forty scalars, which GCC keeps in
// memory when they are passed between functions as structs, so split into
// functions the solve is markedly slower (BM_TwoBoneJobRun in
// bench/two_bone_bench.cc, with and without a pole). Square roots and divisions
// dominate its cost, so each one is taken only where it is needed and paired
// divisions share one.
absl::Status TwoBoneJob::Run() const {
  if (!internal::LooksValid(*this)) {
    if (absl::Status status = Validate(); !status.ok()) return status;
  }

  const Vec3 root_ms = root_model.translation;
  const Vec3 upper_ms = mid_model.translation - root_ms;  // root -> mid
  const Vec3 lower_ms = tip_model.translation - mid_model.translation;
  const Vec3 to_target_ms = target_model - root_ms;
  const double upper_sq = glm::dot(upper_ms, upper_ms);
  const double lower_sq = glm::dot(lower_ms, lower_ms);
  const double target_sq = glm::dot(to_target_ms, to_target_ms);
  const bool target_on_root =
      !(target_sq >= kMinDirectionLength * kMinDirectionLength);
  const double lengths_sq = upper_sq * lower_sq;
  const Vec3 bend_normal_ms = glm::cross(upper_ms, lower_ms);
  const double bend_normal_sq = glm::dot(bend_normal_ms, bend_normal_ms);
  const bool bent = bend_normal_sq > kStraightSine * kStraightSine * lengths_sq;

  // The bend axis n and the lower bone split about it: lower = along +
  // across, side = n x across. With u = root - mid (= -upper):
  // a = u.across, b = u.side, k = u.along, r^2 = a^2 + b^2 (see the header).
  // bend_sign: +1 when the limb bends by the right-hand rule about n.
  Vec3 axis_ms;
  Vec3 along_ms(0.0);
  Vec3 across_ms = lower_ms;
  Vec3 side_ms;
  double a;
  double b;
  double k = 0.0;
  double r_sq;
  double inverse_r_sq;
  double bend_sign = 1.0;
  if (!mid_axis_model.has_value() && bent) {
    // The incoming bend plane's normal N / |N|: the lower bone lies across
    // it, r^2 = l1^2 l2^2 and b = |N|. 1/|N| = |N| / N^2 and 1/r^2 share a
    // division, which runs alongside the square root.
    const double normal_length = std::sqrt(bend_normal_sq);
    const double inverse_product = 1.0 / (bend_normal_sq * lengths_sq);
    const double inverse_length =
        (inverse_product * lengths_sq) * normal_length;
    inverse_r_sq = inverse_product * bend_normal_sq;
    axis_ms = bend_normal_ms * inverse_length;
    side_ms = glm::cross(bend_normal_ms, lower_ms) * inverse_length;
    a = -glm::dot(upper_ms, lower_ms);
    b = normal_length;
    r_sq = lengths_sq;
  } else {
    if (mid_axis_model.has_value()) {
      axis_ms = glm::normalize(*mid_axis_model);
      if (bent && glm::dot(bend_normal_ms, axis_ms) < 0.0) bend_sign = -1.0;
    } else {
      // Straight limb: bend so the middle joint heads for the pole. With
      // n = pole x upper, a positive turn of the lower bone moves the tip
      // away from the pole, and the swing then carries the middle joint
      // towards it.
      const Vec3 pole_offset_ms =
          pole_model.has_value() ? *pole_model - root_ms : Vec3(0.0);
      const Vec3 pole_normal_ms = glm::cross(pole_offset_ms, upper_ms);
      const double pole_normal_sq = glm::dot(pole_normal_ms, pole_normal_ms);
      if (pole_normal_sq > internal::kOnLineSine * internal::kOnLineSine *
                               upper_sq *
                               glm::dot(pole_offset_ms, pole_offset_ms)) {
        axis_ms = pole_normal_ms / std::sqrt(pole_normal_sq);
      } else {
        axis_ms = AnyPerpendicular(upper_ms);
      }
    }
    along_ms = glm::dot(lower_ms, axis_ms) * axis_ms;
    across_ms = lower_ms - along_ms;
    side_ms = glm::cross(axis_ms, across_ms);
    a = -glm::dot(upper_ms, across_ms);
    b = -glm::dot(upper_ms, side_ms);
    k = -glm::dot(upper_ms, along_ms);
    r_sq = a * a + b * b;
    inverse_r_sq = r_sq > 0.0 ? 1.0 / r_sq : 0.0;
  }

  // Step 1: the turn alpha of the lower bone about n. The roots are
  // alpha = phi -+ beta with (cos, sin)(phi) = (a, b) / r and
  // (cos, sin)(beta) = (c, t) / r, t = r sin(beta) = sqrt(r^2 - c^2), so
  //   r^2 (cos, sin)(alpha) = (ac +- bt, bc -+ at).
  // cos(phi - beta) - cos(phi + beta) has the sign of b (t >= 0): the
  // smaller |alpha| keeps the bend's side. Ties, and straight limbs, turn the
  // positive way (sin(phi - beta) >= sin(phi + beta) iff a <= 0).
  // (cos, sin)(alpha) are kept as (cos0 + t cos1, sin0 + t sin1): t, the
  // one square root, comes last and the swing below is prepared around it.
  double cos0 = 1.0;
  double cos1 = 0.0;
  double sin0 = 0.0;
  double sin1 = 0.0;
  double t = 0.0;
  // a cos(alpha) + b sin(alpha): |root - tip|^2 = l1^2 + l2^2 - 2 (k + this).
  double projection = a;
  // True when the bones reach the target distance (c was not clamped).
  bool exact = false;
  if (r_sq > kStraightSine * kStraightSine * lengths_sq) {
    double c = (0.5 * (upper_sq + lower_sq) - k) - 0.5 * target_sq;
    if (c * c < r_sq) {
      exact = true;
      t = std::sqrt(r_sq - c * c);
    } else {
      // Clamped to what the bones allow: exactly straight (or folded).
      c = c < 0.0 ? -std::sqrt(r_sq) : std::sqrt(r_sq);
    }
    const bool take_minus =
        bent ? (b > 0.0 || (b == 0.0 && a <= 0.0)) : a <= 0.0;
    const double sigma = take_minus ? 1.0 : -1.0;  // alpha = phi - sigma beta
    cos0 = a * c * inverse_r_sq;
    sin0 = b * c * inverse_r_sq;
    cos1 = sigma * b * inverse_r_sq;
    sin1 = -sigma * a * inverse_r_sq;
    projection = c;
  }
  double cos_alpha = cos0 + t * cos1;
  double sin_alpha = sin0 + t * sin1;
  bool turn_clamped = false;
  if (mid_turn_range.has_value()) {
    // Only a limited joint pays for the angle.
    const double alpha = Atan2(sin_alpha, cos_alpha);
    const double clamped = ClampAngleToRange(alpha, *mid_turn_range);
    if (clamped != alpha) {
      turn_clamped = std::abs(std::remainder(clamped - alpha, 2.0 * kPi)) >
                     kLimitClampSlack;
      cos_alpha = Cos(clamped);
      sin_alpha = Sin(clamped);
      cos0 = cos_alpha;
      sin0 = sin_alpha;
      cos1 = 0.0;
      sin1 = 0.0;
      t = 0.0;
      projection = a * cos_alpha + b * sin_alpha;
      exact = false;
    }
  }
  if (mid_turn_clamped != nullptr) *mid_turn_clamped = turn_clamped;
  // Root -> tip after the turn: base + cos across + sin side.
  const Vec3 base_ms = upper_ms + along_ms;
  // The middle joint's correction, (w, v * axis) up to normalisation.
  const Vec3 axis_local = glm::conjugate(mid_model.rotation) * axis_ms;
  const double bend_w = cos_alpha >= 0.0 ? 1.0 + cos_alpha : sin_alpha;
  const double bend_v = cos_alpha >= 0.0 ? sin_alpha : 1.0 - cos_alpha;
  const double bend_norm_sq = bend_w * bend_w + bend_v * bend_v;

  // Step 2: swing the root so the tip points at the target: the shortest
  // arc q ~ (|s||r| + s.r, s x r) for s = root -> tip, r = root -> target,
  // with s.r and s x r expanded over the parts of s. A target on the root
  // keeps the direction.
  double target_length = 0.0;  // computed where needed
  double tip_distance = 0.0;   // |s|, where not exact
  bool swing_pending = false;  // (w, swing_axis) still to be normalised
  double w = 1.0;
  Vec3 swing_axis(0.0);
  Quat swing_ms = IdentityQuat();
  if (!target_on_root) {
    double lengths;
    bool tip_off_root = true;
    if (exact) {
      lengths = target_sq;  // |s| = |r|
    } else {
      target_length = std::sqrt(target_sq);
      tip_distance = std::sqrt(
          std::max(0.0, upper_sq + lower_sq - 2.0 * (k + projection)));
      lengths = tip_distance * target_length;
      tip_off_root = tip_distance >= kMinDirectionLength;
    }
    const double across_dot = glm::dot(across_ms, to_target_ms);
    const double side_dot = glm::dot(side_ms, to_target_ms);
    const Vec3 across_cross = glm::cross(across_ms, to_target_ms);
    const Vec3 side_cross = glm::cross(side_ms, to_target_ms);
    w = (lengths + (glm::dot(base_ms, to_target_ms) + cos0 * across_dot +
                    sin0 * side_dot)) +
        t * (cos1 * across_dot + sin1 * side_dot);
    swing_axis = (glm::cross(base_ms, to_target_ms) + cos0 * across_cross +
                  sin0 * side_cross) +
                 t * (cos1 * across_cross + sin1 * side_cross);
    if (tip_off_root && w > kOppositeThreshold * lengths) {
      swing_pending = true;
    } else {
      // The tip points (nearly) away from the target, or sits on the root.
      swing_ms = FromTo(base_ms + cos_alpha * across_ms + sin_alpha * side_ms,
                        to_target_ms);
    }
  }

  Quat root_delta_ms = IdentityQuat();  // unset on the fast path
  const bool twisted_swing = swing_pending && pole_model.has_value() &&
                             target_sq >= internal::kTwistedSwingMinSquared &&
                             target_sq <= internal::kTwistedSwingMaxSquared;
  if (swing_pending && (!pole_model.has_value() || twisted_swing)) {
    // Fast path: the root's unnormalised model-space turn (the swing, or the
    // swing and the pole's twist together), and both normalisations sharing
    // one division; the turn goes into the root's frame before it is scaled
    // (the frame change is linear).
    Quat turn_ms(w, swing_axis.x, swing_axis.y, swing_axis.z);
    if (twisted_swing) {
      turn_ms = internal::TwistedSwing(*pole_model - root_ms, to_target_ms,
                                       target_sq, w, swing_axis, upper_ms,
                                       bend_sign * axis_ms, upper_sq);
    }
    // Each normalisation's division runs alongside its square root:
    // 1/|q| = |q| / |q|^2.
    const double turn_norm_sq =
        turn_ms.w * turn_ms.w +
        (turn_ms.x * turn_ms.x + turn_ms.y * turn_ms.y + turn_ms.z * turn_ms.z);
    const double inverse_both = 1.0 / (bend_norm_sq * turn_norm_sq);
    const double bend_inverse =
        (inverse_both * turn_norm_sq) * std::sqrt(bend_norm_sq);
    const double turn_inverse =
        (inverse_both * bend_norm_sq) * std::sqrt(turn_norm_sq);
    const double bend_scale = bend_v * bend_inverse;
    *mid_correction =
        Quat(bend_w * bend_inverse, axis_local.x * bend_scale,
             axis_local.y * bend_scale, axis_local.z * bend_scale);
    const Vec3 local_axis = glm::conjugate(root_model.rotation) *
                            Vec3(turn_ms.x, turn_ms.y, turn_ms.z);
    *root_correction =
        Quat(turn_ms.w * turn_inverse, local_axis.x * turn_inverse,
             local_axis.y * turn_inverse, local_axis.z * turn_inverse);
  } else {
    const double bend_scale = 1.0 / std::sqrt(bend_norm_sq);
    *mid_correction =
        Quat(bend_w * bend_scale, axis_local.x * (bend_v * bend_scale),
             axis_local.y * (bend_v * bend_scale),
             axis_local.z * (bend_v * bend_scale));
    if (swing_pending) {
      const double swing_scale =
          1.0 / std::sqrt(w * w + glm::dot(swing_axis, swing_axis));
      const Vec3 v = swing_axis * swing_scale;
      swing_ms = Quat(w * swing_scale, v.x, v.y, v.z);
    }
    // Step 3: twist about the root-target axis towards the pole.
    root_delta_ms = swing_ms;
    if (pole_model.has_value()) {
      if (!target_on_root && target_length == 0.0) {
        target_length = std::sqrt(target_sq);
      }
      const Quat twist_ms = internal::TwistTowardsPole(
          *pole_model - root_ms, to_target_ms,
          target_on_root ? 0.0 : target_length, swing_ms, upper_ms,
          base_ms + cos_alpha * across_ms + sin_alpha * side_ms,
          bend_sign * axis_ms, upper_sq);
      root_delta_ms = twist_ms * swing_ms;
    }
    *root_correction = ToLocal(root_delta_ms, root_model.rotation);
  }

  SolveReport& out = *report;
  if (exact && !target_on_root) {
    out.tip_model = target_model;
    out.residual = 0.0;
  } else if (!target_on_root) {
    // The swing lays the tip on the root-target ray.
    out.tip_model = root_ms + to_target_ms * (tip_distance / target_length);
    out.residual = std::abs(target_length - tip_distance);
  } else {
    out.tip_model = root_ms + root_delta_ms * (base_ms + cos_alpha * across_ms +
                                               sin_alpha * side_ms);
    out.residual = glm::length(out.tip_model - target_model);
  }
  out.reached = out.residual <= tolerance;
  out.iterations = 1;
  return absl::OkStatus();
}

}  // namespace ik
