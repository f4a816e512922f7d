#include "ik/solvers/two_bone.h"

#include <algorithm>
#include <cmath>
#include <optional>

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

// Run's stages follow, in its order. Each is forced inline so that GCC splits
// the structs the stages pass (some forty scalars) into values it keeps in
// registers; out of line they would pass through memory. For the same reason
// Run's locals holding them are not const (GCC keeps a const aggregate that
// an inlined stage fills in memory), and no member of one goes by reference
// to an out-of-line call (see RootOffsets); -fdump-tree-sra-details names
// any aggregate that stays in memory. Square roots and divisions dominate
// the solve's cost, so each one is taken only where it is needed and paired
// divisions share one.

// The root -> middle joint and root -> target offsets. The out-of-line
// solves (FromTo, TwistedSwing, TwistTowardsPole) read them by reference, so
// they live in memory, apart from Limb: a member passed by reference would
// keep all of Limb in memory, and GCC keeps Limb's values in registers.
struct RootOffsets {
  Vec3 upper_ms;      // root -> mid
  Vec3 to_target_ms;  // root -> target
};

[[gnu::always_inline]] inline RootOffsets OffsetsFromRoot(
    const TwoBoneJob& job) {
  RootOffsets offsets;
  offsets.upper_ms = job.mid_model.translation - job.root_model.translation;
  offsets.to_target_ms = job.target_model - job.root_model.translation;
  return offsets;
}

// The limb in model space: its bones, the offsets from the root (by
// reference) and the squared lengths every stage reads.
struct Limb {
  explicit Limb(const RootOffsets& offsets)
      : upper_ms(offsets.upper_ms), to_target_ms(offsets.to_target_ms) {}

  const Vec3& upper_ms;
  const Vec3& to_target_ms;
  Vec3 root_ms, lower_ms, bend_normal_ms;
  double upper_sq, lower_sq, target_sq, lengths_sq, bend_normal_sq;
  bool target_on_root;
  bool bent;  // the bones are not in line
};

[[gnu::always_inline]] inline Limb SetUp(const TwoBoneJob& job,
                                         const RootOffsets& offsets) {
  Limb limb(offsets);
  limb.root_ms = job.root_model.translation;
  limb.lower_ms = job.tip_model.translation - job.mid_model.translation;
  limb.upper_sq = glm::dot(limb.upper_ms, limb.upper_ms);
  limb.lower_sq = glm::dot(limb.lower_ms, limb.lower_ms);
  limb.target_sq = glm::dot(limb.to_target_ms, limb.to_target_ms);
  limb.target_on_root =
      !(limb.target_sq >= kMinDirectionLength * kMinDirectionLength);
  limb.lengths_sq = limb.upper_sq * limb.lower_sq;
  limb.bend_normal_ms = glm::cross(limb.upper_ms, limb.lower_ms);
  limb.bend_normal_sq = glm::dot(limb.bend_normal_ms, limb.bend_normal_ms);
  limb.bent =
      limb.bend_normal_sq > kStraightSine * kStraightSine * limb.lengths_sq;
  return limb;
}

// The bend axis n and the lower bone split about it: lower = along +
// across, side = n x across. With u = root - mid (= -upper):
// a = u.across, b = u.side, k = u.along, r^2 = a^2 + b^2 (see the header).
// bend_sign: +1 when the limb bends by the right-hand rule about n.
struct BendFrame {
  Vec3 axis_ms, along_ms, across_ms, side_ms;
  double a, b, k, r_sq, inverse_r_sq;
  double bend_sign;
};

// The axis of a straight limb without a middle-joint axis: bend so the
// middle joint heads for the pole. With n = pole x upper, a positive turn
// of the lower bone moves the tip away from the pole, and the swing then
// carries the middle joint towards it.
[[gnu::always_inline]] inline Vec3 AxisTowardsPole(const TwoBoneJob& job,
                                                   const Limb& limb) {
  const Vec3 pole_offset_ms =
      job.pole_model.has_value() ? *job.pole_model - limb.root_ms : Vec3(0.0);
  const Vec3 pole_normal_ms = glm::cross(pole_offset_ms, limb.upper_ms);
  const double pole_normal_sq = glm::dot(pole_normal_ms, pole_normal_ms);
  if (pole_normal_sq > internal::kOnLineSine * internal::kOnLineSine *
                           limb.upper_sq *
                           glm::dot(pole_offset_ms, pole_offset_ms)) {
    return pole_normal_ms / std::sqrt(pole_normal_sq);
  }
  return AnyPerpendicular(limb.upper_ms);
}

[[gnu::always_inline]] inline BendFrame FrameTheBend(const TwoBoneJob& job,
                                                     const Limb& limb) {
  BendFrame frame;
  frame.along_ms = Vec3(0.0);
  frame.across_ms = limb.lower_ms;
  frame.k = 0.0;
  frame.bend_sign = 1.0;
  if (!job.mid_axis_model.has_value() && limb.bent) {
    // The incoming bend plane's normal N / |N|: the lower bone lies across
    // it, r^2 = l1^2 l2^2 and b = |N|. 1/|N| = |N| / N^2 and 1/r^2 share a
    // division, which runs alongside the square root.
    const double normal_length = std::sqrt(limb.bend_normal_sq);
    const double inverse_product =
        1.0 / (limb.bend_normal_sq * limb.lengths_sq);
    const double inverse_length =
        (inverse_product * limb.lengths_sq) * normal_length;
    frame.inverse_r_sq = inverse_product * limb.bend_normal_sq;
    frame.axis_ms = limb.bend_normal_ms * inverse_length;
    frame.side_ms =
        glm::cross(limb.bend_normal_ms, limb.lower_ms) * inverse_length;
    frame.a = -glm::dot(limb.upper_ms, limb.lower_ms);
    frame.b = normal_length;
    frame.r_sq = limb.lengths_sq;
  } else {
    if (job.mid_axis_model.has_value()) {
      frame.axis_ms = glm::normalize(*job.mid_axis_model);
      if (limb.bent && glm::dot(limb.bend_normal_ms, frame.axis_ms) < 0.0) {
        frame.bend_sign = -1.0;
      }
    } else {
      frame.axis_ms = AxisTowardsPole(job, limb);
    }
    frame.along_ms = glm::dot(limb.lower_ms, frame.axis_ms) * frame.axis_ms;
    frame.across_ms = limb.lower_ms - frame.along_ms;
    frame.side_ms = glm::cross(frame.axis_ms, frame.across_ms);
    frame.a = -glm::dot(limb.upper_ms, frame.across_ms);
    frame.b = -glm::dot(limb.upper_ms, frame.side_ms);
    frame.k = -glm::dot(limb.upper_ms, frame.along_ms);
    frame.r_sq = frame.a * frame.a + frame.b * frame.b;
    frame.inverse_r_sq = frame.r_sq > 0.0 ? 1.0 / frame.r_sq : 0.0;
  }
  return frame;
}

// Step 1: the turn alpha of the lower bone about n, (cos, sin)(alpha) kept
// as (cos0 + t cos1, sin0 + t sin1): t, the one square root, comes last and
// the swing is prepared around it.
struct MidTurn {
  double cos0, cos1, sin0, sin1, t;
  double cos_alpha, sin_alpha;
  // a cos(alpha) + b sin(alpha): |root - tip|^2 = l1^2 + l2^2 - 2 (k + this).
  double projection;
  bool exact;  // the bones reach the target distance (c was not clamped)
};

// The roots are alpha = phi -+ beta with (cos, sin)(phi) = (a, b) / r and
// (cos, sin)(beta) = (c, t) / r, t = r sin(beta) = sqrt(r^2 - c^2), so
//   r^2 (cos, sin)(alpha) = (ac +- bt, bc -+ at).
// cos(phi - beta) - cos(phi + beta) has the sign of b (t >= 0): the
// smaller |alpha| keeps the bend's side. Ties, and straight limbs, turn the
// positive way (sin(phi - beta) >= sin(phi + beta) iff a <= 0).
[[gnu::always_inline]] inline MidTurn TurnMiddleJoint(const Limb& limb,
                                                      const BendFrame& frame) {
  MidTurn turn;
  turn.cos0 = 1.0;
  turn.cos1 = 0.0;
  turn.sin0 = 0.0;
  turn.sin1 = 0.0;
  turn.t = 0.0;
  turn.projection = frame.a;
  turn.exact = false;
  if (frame.r_sq > kStraightSine * kStraightSine * limb.lengths_sq) {
    double c = (0.5 * (limb.upper_sq + limb.lower_sq) - frame.k) -
               0.5 * limb.target_sq;
    if (c * c < frame.r_sq) {
      turn.exact = true;
      turn.t = std::sqrt(frame.r_sq - c * c);
    } else {
      // Clamped to what the bones allow: exactly straight (or folded).
      c = c < 0.0 ? -std::sqrt(frame.r_sq) : std::sqrt(frame.r_sq);
    }
    const double a = frame.a;
    const double b = frame.b;
    const bool take_minus =
        limb.bent ? (b > 0.0 || (b == 0.0 && a <= 0.0)) : a <= 0.0;
    const double sigma = take_minus ? 1.0 : -1.0;  // alpha = phi - sigma beta
    turn.cos0 = a * c * frame.inverse_r_sq;
    turn.sin0 = b * c * frame.inverse_r_sq;
    turn.cos1 = sigma * b * frame.inverse_r_sq;
    turn.sin1 = -sigma * a * frame.inverse_r_sq;
    turn.projection = c;
  }
  turn.cos_alpha = turn.cos0 + turn.t * turn.cos1;
  turn.sin_alpha = turn.sin0 + turn.t * turn.sin1;
  return turn;
}

// The turn's range: only a limited joint pays for the angle. Returns whether
// the range moved the turn by more than the clamp's slack.
[[gnu::always_inline]] inline bool KeepTurnInRange(
    const std::optional<AngleRange>& range, const BendFrame& frame,
    MidTurn& turn) {
  if (!range.has_value()) return false;
  const double alpha = Atan2(turn.sin_alpha, turn.cos_alpha);
  const double clamped = ClampAngleToRange(alpha, *range);
  if (clamped == alpha) return false;
  if (turn.exact && turn.t > 0.0) {
    // The other root bends to the other side: within the range, it reaches
    // the target exactly where keeping the side cannot (a middle joint that
    // starts outside its range, a hyperextended elbow or knee, bends back
    // through straight).
    const double other_cos = turn.cos0 - turn.t * turn.cos1;
    const double other_sin = turn.sin0 - turn.t * turn.sin1;
    const double other = Atan2(other_sin, other_cos);
    if (ClampAngleToRange(other, *range) == other) {
      turn.cos1 = -turn.cos1;
      turn.sin1 = -turn.sin1;
      turn.cos_alpha = other_cos;
      turn.sin_alpha = other_sin;
      return false;
    }
  }
  const bool turn_clamped =
      std::abs(std::remainder(clamped - alpha, 2.0 * kPi)) > kLimitClampSlack;
  turn.cos_alpha = Cos(clamped);
  turn.sin_alpha = Sin(clamped);
  turn.cos0 = turn.cos_alpha;
  turn.sin0 = turn.sin_alpha;
  turn.cos1 = 0.0;
  turn.sin1 = 0.0;
  turn.t = 0.0;
  turn.projection = frame.a * turn.cos_alpha + frame.b * turn.sin_alpha;
  turn.exact = false;
  return turn_clamped;
}

// The middle joint's bend: root -> tip after the turn, base_ms + cos(alpha)
// across + sin(alpha) side, and the joint's correction, (w, v * axis_local)
// up to normalisation.
struct Bend {
  Vec3 base_ms, axis_local;
  double w, v, norm_sq;
};

[[gnu::always_inline]] inline Bend BendMiddleJoint(const Quat& mid_rotation,
                                                   const Limb& limb,
                                                   const BendFrame& frame,
                                                   const MidTurn& turn) {
  Bend bend;
  bend.base_ms = limb.upper_ms + frame.along_ms;
  bend.axis_local = glm::conjugate(mid_rotation) * frame.axis_ms;
  bend.w = turn.cos_alpha >= 0.0 ? 1.0 + turn.cos_alpha : turn.sin_alpha;
  bend.v = turn.cos_alpha >= 0.0 ? turn.sin_alpha : 1.0 - turn.cos_alpha;
  bend.norm_sq = bend.w * bend.w + bend.v * bend.v;
  return bend;
}

// Root -> tip after the turn.
[[gnu::always_inline]] inline Vec3 TurnedTip(const BendFrame& frame,
                                             const MidTurn& turn,
                                             const Bend& bend) {
  return bend.base_ms + turn.cos_alpha * frame.across_ms +
         turn.sin_alpha * frame.side_ms;
}

// Step 2's swing of the root, the tip towards the target. pending: (w,
// axis) is still to be normalised; else swing_ms holds it (the identity
// for a target on the root).
struct Swing {
  double target_length;  // computed where needed
  double tip_distance;   // |s|, where not exact
  bool pending;
  double w;
  Vec3 axis;
  Quat swing_ms;
};

// The shortest arc q ~ (|s||r| + s.r, s x r) for s = root -> tip, r = root
// -> target, with s.r and s x r expanded over the parts of s. A target on
// the root keeps the direction.
[[gnu::always_inline]] inline Swing SwingRoot(const Limb& limb,
                                              const BendFrame& frame,
                                              const MidTurn& turn,
                                              const Bend& bend) {
  Swing swing{0.0, 0.0, false, 1.0, Vec3(0.0), IdentityQuat()};
  if (limb.target_on_root) return swing;
  double lengths;
  bool tip_off_root = true;
  if (turn.exact) {
    lengths = limb.target_sq;  // |s| = |r|
  } else {
    swing.target_length = std::sqrt(limb.target_sq);
    swing.tip_distance =
        std::sqrt(std::max(0.0, limb.upper_sq + limb.lower_sq -
                                    2.0 * (frame.k + turn.projection)));
    lengths = swing.tip_distance * swing.target_length;
    tip_off_root = swing.tip_distance >= kMinDirectionLength;
  }
  const double across_dot = glm::dot(frame.across_ms, limb.to_target_ms);
  const double side_dot = glm::dot(frame.side_ms, limb.to_target_ms);
  const Vec3 across_cross = glm::cross(frame.across_ms, limb.to_target_ms);
  const Vec3 side_cross = glm::cross(frame.side_ms, limb.to_target_ms);
  swing.w = (lengths + (glm::dot(bend.base_ms, limb.to_target_ms) +
                        turn.cos0 * across_dot + turn.sin0 * side_dot)) +
            turn.t * (turn.cos1 * across_dot + turn.sin1 * side_dot);
  swing.axis = (glm::cross(bend.base_ms, limb.to_target_ms) +
                turn.cos0 * across_cross + turn.sin0 * side_cross) +
               turn.t * (turn.cos1 * across_cross + turn.sin1 * side_cross);
  if (tip_off_root && swing.w > kOppositeThreshold * lengths) {
    swing.pending = true;
  } else {
    // The tip points (nearly) away from the target, or sits on the root.
    swing.swing_ms = FromTo(TurnedTip(frame, turn, bend), limb.to_target_ms);
  }
  return swing;
}

// The fast path's corrections: the root's unnormalised model-space turn (the
// swing, or the swing and the pole's twist together), and both
// normalisations sharing one division; the turn goes into the root's frame
// before it is scaled (the frame change is linear).
[[gnu::always_inline]] inline void CorrectAtOnce(
    const TwoBoneJob& job, const Limb& limb, const BendFrame& frame,
    const Bend& bend, const Swing& swing, bool twisted_swing) {
  Quat turn_ms(swing.w, swing.axis.x, swing.axis.y, swing.axis.z);
  if (twisted_swing) {
    // The swing's axis goes as a copy, so Swing stays in registers.
    turn_ms = internal::TwistedSwing(
        *job.pole_model - limb.root_ms, limb.to_target_ms, limb.target_sq,
        swing.w, Vec3(swing.axis), limb.upper_ms,
        frame.bend_sign * frame.axis_ms, limb.upper_sq);
  }
  // Each normalisation's division runs alongside its square root:
  // 1/|q| = |q| / |q|^2.
  const double turn_norm_sq =
      turn_ms.w * turn_ms.w +
      (turn_ms.x * turn_ms.x + turn_ms.y * turn_ms.y + turn_ms.z * turn_ms.z);
  const double inverse_both = 1.0 / (bend.norm_sq * turn_norm_sq);
  const double bend_inverse =
      (inverse_both * turn_norm_sq) * std::sqrt(bend.norm_sq);
  const double turn_inverse =
      (inverse_both * bend.norm_sq) * std::sqrt(turn_norm_sq);
  const double bend_scale = bend.v * bend_inverse;
  *job.mid_correction =
      Quat(bend.w * bend_inverse, bend.axis_local.x * bend_scale,
           bend.axis_local.y * bend_scale, bend.axis_local.z * bend_scale);
  const Vec3 local_axis = glm::conjugate(job.root_model.rotation) *
                          Vec3(turn_ms.x, turn_ms.y, turn_ms.z);
  *job.root_correction =
      Quat(turn_ms.w * turn_inverse, local_axis.x * turn_inverse,
           local_axis.y * turn_inverse, local_axis.z * turn_inverse);
}

// The other paths' corrections: each normalised on its own, then step 3,
// the twist about the root-target axis towards the pole. Returns the root's
// model-space turn.
[[gnu::always_inline]] inline Quat CorrectInTurn(
    const TwoBoneJob& job, const Limb& limb, const BendFrame& frame,
    const MidTurn& turn, const Bend& bend, Swing& swing) {
  const double bend_scale = 1.0 / std::sqrt(bend.norm_sq);
  *job.mid_correction =
      Quat(bend.w * bend_scale, bend.axis_local.x * (bend.v * bend_scale),
           bend.axis_local.y * (bend.v * bend_scale),
           bend.axis_local.z * (bend.v * bend_scale));
  Quat swing_ms = swing.swing_ms;
  if (swing.pending) {
    const double swing_scale =
        1.0 / std::sqrt(swing.w * swing.w + glm::dot(swing.axis, swing.axis));
    const Vec3 v = swing.axis * swing_scale;
    swing_ms = Quat(swing.w * swing_scale, v.x, v.y, v.z);
  }
  Quat root_delta_ms = swing_ms;
  if (job.pole_model.has_value()) {
    if (!limb.target_on_root && swing.target_length == 0.0) {
      swing.target_length = std::sqrt(limb.target_sq);
    }
    const Quat twist_ms = internal::TwistTowardsPole(
        *job.pole_model - limb.root_ms, limb.to_target_ms,
        limb.target_on_root ? 0.0 : swing.target_length, swing_ms,
        limb.upper_ms, TurnedTip(frame, turn, bend),
        frame.bend_sign * frame.axis_ms, limb.upper_sq);
    root_delta_ms = twist_ms * swing_ms;
  }
  *job.root_correction = ToLocal(root_delta_ms, job.root_model.rotation);
  return root_delta_ms;
}

// Where the tip lands and how far it stays from the target.
[[gnu::always_inline]] inline void Report(const TwoBoneJob& job,
                                          const Limb& limb,
                                          const BendFrame& frame,
                                          const MidTurn& turn, const Bend& bend,
                                          const Swing& swing,
                                          const Quat& root_delta_ms) {
  SolveReport& out = *job.report;
  if (turn.exact && !limb.target_on_root) {
    out.tip_model = job.target_model;
    out.residual = 0.0;
  } else if (!limb.target_on_root) {
    // The swing lays the tip on the root-target ray.
    out.tip_model = limb.root_ms + limb.to_target_ms * (swing.tip_distance /
                                                        swing.target_length);
    out.residual = std::abs(swing.target_length - swing.tip_distance);
  } else {
    out.tip_model = limb.root_ms + root_delta_ms * TurnedTip(frame, turn, bend);
    out.residual = glm::length(out.tip_model - job.target_model);
  }
  out.reached = out.residual <= job.tolerance;
  out.iterations = 1;
}

}  // namespace

// The analytic two-bone solve as in ozz-animation's IKTwoBoneJob, as stages.
absl::Status TwoBoneJob::Run() const {
  if (!internal::LooksValid(*this)) {
    if (absl::Status status = Validate(); !status.ok()) return status;
  }
  const RootOffsets offsets = OffsetsFromRoot(*this);
  Limb limb = SetUp(*this, offsets);
  BendFrame frame = FrameTheBend(*this, limb);
  MidTurn turn = TurnMiddleJoint(limb, frame);
  const bool turn_clamped = KeepTurnInRange(mid_turn_range, frame, turn);
  if (mid_turn_clamped != nullptr) *mid_turn_clamped = turn_clamped;
  Bend bend = BendMiddleJoint(mid_model.rotation, limb, frame, turn);
  Swing swing = SwingRoot(limb, frame, turn, bend);

  Quat root_delta_ms = IdentityQuat();  // unset on the fast path
  const bool twisted_swing =
      swing.pending && pole_model.has_value() &&
      limb.target_sq >= internal::kTwistedSwingMinSquared &&
      limb.target_sq <= internal::kTwistedSwingMaxSquared;
  if (swing.pending && (!pole_model.has_value() || twisted_swing)) {
    CorrectAtOnce(*this, limb, frame, bend, swing, twisted_swing);
  } else {
    root_delta_ms = CorrectInTurn(*this, limb, frame, turn, bend, swing);
  }
  Report(*this, limb, frame, turn, bend, swing, root_delta_ms);
  return absl::OkStatus();
}

}  // namespace ik
