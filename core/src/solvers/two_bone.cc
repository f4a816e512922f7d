#include "ik/solvers/two_bone.h"

#include <algorithm>
#include <cmath>

#include "absl/status/status.h"
#include "ik/base/joint_limits.h"
#include "ik/base/math.h"
#include "ik/base/validate.h"
#include "ik/solvers/solve_report.h"
#include "solvers/two_bone_pole.h"
#include "solvers/two_bone_validate.h"

namespace ik {
namespace {

// A limb whose bones' cross product is below this fraction of l1 * l2 is
// straight: its bend plane is undefined.
constexpr double kStraightSine = 1e-10;
// Below this value of 1 + cos(swing angle) the tip points (nearly) away from
// the target and FromTo's careful path takes over.
constexpr double kOppositeThreshold = 1e-12;

// A model-space rotation `delta` about a joint, as the local correction that
// post-multiplies the joint's local rotation: R^-1 * delta * R, where R is the
// joint's model rotation (a conjugation only turns delta's axis).
Quat ToLocal(const Quat& delta, const Quat& model_rotation) {
  const Vec3 axis =
      glm::conjugate(model_rotation) * Vec3(delta.x, delta.y, delta.z);
  return Quat(delta.w, axis.x, axis.y, axis.z);
}

// The limb as the job gives it, model space, with the squared lengths the
// solve is built from.
struct LimbSetup {
  Vec3 root_ms{0.0};
  Vec3 upper_ms{0.0};  // root -> mid
  Vec3 lower_ms{0.0};  // mid -> tip
  Vec3 to_target_ms{0.0};
  double upper_sq = 0.0;
  double lower_sq = 0.0;
  double target_sq = 0.0;
  bool target_on_root = false;
  double lengths_sq = 0.0;   // l1^2 l2^2
  Vec3 bend_normal_ms{0.0};  // upper x lower
  double bend_normal_sq = 0.0;
  bool bent = false;
};

LimbSetup SetupLimb(const TwoBoneJob& job) {
  LimbSetup limb;
  limb.root_ms = job.root_model.translation;
  limb.upper_ms = job.mid_model.translation - limb.root_ms;
  limb.lower_ms = job.tip_model.translation - job.mid_model.translation;
  limb.to_target_ms = job.target_model - limb.root_ms;
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
// base_ms = upper + along: root -> tip after the turn is base + cos across +
// sin side.
struct BendFrame {
  Vec3 axis_ms{0.0};
  Vec3 along_ms{0.0};
  Vec3 across_ms{0.0};
  Vec3 side_ms{0.0};
  Vec3 base_ms{0.0};
  double a = 0.0;
  double b = 0.0;
  double k = 0.0;
  double r_sq = 0.0;
  double inverse_r_sq = 0.0;
  double bend_sign = 1.0;
};

// The incoming bend plane's normal N / |N|: the lower bone lies across it,
// r^2 = l1^2 l2^2 and b = |N|. 1/|N| and 1/r^2 share a division.
BendFrame BendFrameOfBendPlane(const LimbSetup& limb) {
  BendFrame frame;
  frame.across_ms = limb.lower_ms;
  const double normal_length = std::sqrt(limb.bend_normal_sq);
  const double inverse_product = 1.0 / (normal_length * limb.lengths_sq);
  const double inverse_length = inverse_product * limb.lengths_sq;
  frame.inverse_r_sq = inverse_product * normal_length;
  frame.axis_ms = limb.bend_normal_ms * inverse_length;
  frame.side_ms =
      glm::cross(limb.bend_normal_ms, limb.lower_ms) * inverse_length;
  frame.a = -glm::dot(limb.upper_ms, limb.lower_ms);
  frame.b = normal_length;
  frame.r_sq = limb.lengths_sq;
  return frame;
}

// Straight limb without a mid axis: bend so the middle joint heads for the
// pole. With n = pole x upper, a positive turn of the lower bone moves the
// tip away from the pole, and the swing then carries the middle joint
// towards it.
Vec3 StraightLimbBendAxis(const std::optional<Vec3>& pole_model,
                          const LimbSetup& limb) {
  const Vec3 pole_offset_ms =
      pole_model.has_value() ? *pole_model - limb.root_ms : Vec3(0.0);
  const Vec3 pole_normal_ms = glm::cross(pole_offset_ms, limb.upper_ms);
  const double pole_normal_sq = glm::dot(pole_normal_ms, pole_normal_ms);
  if (pole_normal_sq > internal::kOnLineSine * internal::kOnLineSine *
                           limb.upper_sq *
                           glm::dot(pole_offset_ms, pole_offset_ms)) {
    return pole_normal_ms / std::sqrt(pole_normal_sq);
  }
  return AnyPerpendicular(limb.upper_ms);
}

// The lower bone split about a unit axis it need not be perpendicular to.
BendFrame BendFrameAboutAxis(const LimbSetup& limb, const Vec3& axis_ms,
                             double bend_sign) {
  BendFrame frame;
  frame.axis_ms = axis_ms;
  frame.bend_sign = bend_sign;
  frame.along_ms = glm::dot(limb.lower_ms, axis_ms) * axis_ms;
  frame.across_ms = limb.lower_ms - frame.along_ms;
  frame.side_ms = glm::cross(axis_ms, frame.across_ms);
  frame.a = -glm::dot(limb.upper_ms, frame.across_ms);
  frame.b = -glm::dot(limb.upper_ms, frame.side_ms);
  frame.k = -glm::dot(limb.upper_ms, frame.along_ms);
  frame.r_sq = frame.a * frame.a + frame.b * frame.b;
  frame.inverse_r_sq = frame.r_sq > 0.0 ? 1.0 / frame.r_sq : 0.0;
  return frame;
}

// Setup of step 1: the bend axis is the job's mid axis, else the incoming
// bend plane's normal, else (straight limb) one derived from the pole.
BendFrame ComputeBendFrame(const TwoBoneJob& job, const LimbSetup& limb) {
  BendFrame frame;
  if (!job.mid_axis_model.has_value() && limb.bent) {
    frame = BendFrameOfBendPlane(limb);
  } else if (job.mid_axis_model.has_value()) {
    const Vec3 axis_ms = glm::normalize(*job.mid_axis_model);
    const bool reversed =
        limb.bent && glm::dot(limb.bend_normal_ms, axis_ms) < 0.0;
    frame = BendFrameAboutAxis(limb, axis_ms, reversed ? -1.0 : 1.0);
  } else {
    frame = BendFrameAboutAxis(limb, StraightLimbBendAxis(job.pole_model, limb),
                               1.0);
  }
  frame.base_ms = limb.upper_ms + frame.along_ms;
  return frame;
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
struct MidTurn {
  double cos0 = 1.0;
  double cos1 = 0.0;
  double sin0 = 0.0;
  double sin1 = 0.0;
  double t = 0.0;
  // a cos(alpha) + b sin(alpha): |root - tip|^2 = l1^2 + l2^2 - 2 (k + this).
  double projection = 0.0;
  // True when the bones reach the target distance (c was not clamped).
  bool exact = false;
  double cos_alpha = 1.0;
  double sin_alpha = 0.0;
};

MidTurn ComputeMidTurn(const LimbSetup& limb, const BendFrame& frame) {
  MidTurn turn;
  turn.projection = frame.a;
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
    const bool take_minus =
        limb.bent ? (frame.b > 0.0 || (frame.b == 0.0 && frame.a <= 0.0))
                  : frame.a <= 0.0;
    const double sigma = take_minus ? 1.0 : -1.0;  // alpha = phi - sigma beta
    turn.cos0 = frame.a * c * frame.inverse_r_sq;
    turn.sin0 = frame.b * c * frame.inverse_r_sq;
    turn.cos1 = sigma * frame.b * frame.inverse_r_sq;
    turn.sin1 = -sigma * frame.a * frame.inverse_r_sq;
    turn.projection = c;
  }
  turn.cos_alpha = turn.cos0 + turn.t * turn.cos1;
  turn.sin_alpha = turn.sin0 + turn.t * turn.sin1;
  return turn;
}

// Holds the turn to `range`; true when that moved it by more than
// kLimitClampSlack. Only a limited joint pays for the angle.
bool ClampMidTurn(const AngleRange& range, const BendFrame& frame,
                  MidTurn* turn) {
  const double alpha = std::atan2(turn->sin_alpha, turn->cos_alpha);
  const double clamped = ClampAngleToRange(alpha, range);
  if (clamped == alpha) return false;
  const bool turn_clamped =
      std::abs(std::remainder(clamped - alpha, 2.0 * kPi)) > kLimitClampSlack;
  turn->cos_alpha = std::cos(clamped);
  turn->sin_alpha = std::sin(clamped);
  turn->cos0 = turn->cos_alpha;
  turn->sin0 = turn->sin_alpha;
  turn->cos1 = 0.0;
  turn->sin1 = 0.0;
  turn->t = 0.0;
  turn->projection = frame.a * turn->cos_alpha + frame.b * turn->sin_alpha;
  turn->exact = false;
  return turn_clamped;
}

// Root -> tip after the turn, model space.
Vec3 TurnedTipOffset(const BendFrame& frame, const MidTurn& turn) {
  return frame.base_ms + turn.cos_alpha * frame.across_ms +
         turn.sin_alpha * frame.side_ms;
}

// The middle joint's correction, (w, v * axis_local) up to normalisation.
struct MidBend {
  Vec3 axis_local{0.0};
  double w = 1.0;
  double v = 0.0;
  double norm_sq = 1.0;
};

MidBend PrepareMidBend(const Quat& mid_rotation_model, const Vec3& axis_ms,
                       const MidTurn& turn) {
  MidBend bend;
  bend.axis_local = glm::conjugate(mid_rotation_model) * axis_ms;
  bend.w = turn.cos_alpha >= 0.0 ? 1.0 + turn.cos_alpha : turn.sin_alpha;
  bend.v = turn.cos_alpha >= 0.0 ? turn.sin_alpha : 1.0 - turn.cos_alpha;
  bend.norm_sq = bend.w * bend.w + bend.v * bend.v;
  return bend;
}

// Step 2's swing of the root, model space: either still to be normalised
// (`pending`: (w, axis_ms) up to scale) or already in `rotation_ms`.
struct Swing {
  double target_length = 0.0;  // computed where needed
  double tip_distance = 0.0;   // |s|, where not exact
  bool pending = false;
  double w = 1.0;
  Vec3 axis_ms{0.0};
  Quat rotation_ms = IdentityQuat();
};

// Step 2: swing the root so the tip points at the target: the shortest
// arc q ~ (|s||r| + s.r, s x r) for s = root -> tip, r = root -> target,
// with s.r and s x r expanded over the parts of s. A target on the root
// keeps the direction.
Swing ComputeSwing(const LimbSetup& limb, const BendFrame& frame,
                   const MidTurn& turn) {
  Swing swing;
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
  const Vec3& to_target_ms = limb.to_target_ms;
  const double across_dot = glm::dot(frame.across_ms, to_target_ms);
  const double side_dot = glm::dot(frame.side_ms, to_target_ms);
  const Vec3 across_cross = glm::cross(frame.across_ms, to_target_ms);
  const Vec3 side_cross = glm::cross(frame.side_ms, to_target_ms);
  swing.w = (lengths + (glm::dot(frame.base_ms, to_target_ms) +
                        turn.cos0 * across_dot + turn.sin0 * side_dot)) +
            turn.t * (turn.cos1 * across_dot + turn.sin1 * side_dot);
  swing.axis_ms = (glm::cross(frame.base_ms, to_target_ms) +
                   turn.cos0 * across_cross + turn.sin0 * side_cross) +
                  turn.t * (turn.cos1 * across_cross + turn.sin1 * side_cross);
  if (tip_off_root && swing.w > kOppositeThreshold * lengths) {
    swing.pending = true;
  } else {
    // The tip points (nearly) away from the target, or sits on the root.
    swing.rotation_ms = FromTo(TurnedTipOffset(frame, turn), to_target_ms);
  }
  return swing;
}

// Fast path for a pending swing and no pole: both normalisations share one
// division, 1/sqrt(x) = sqrt(y) / (sqrt(x) sqrt(y)), and the swing goes into
// the root's frame before it is scaled (the frame change is linear).
void WriteCorrectionsSharingDivision(const TwoBoneJob& job, const MidBend& bend,
                                     const Swing& swing) {
  const double bend_norm = std::sqrt(bend.norm_sq);
  const double swing_norm =
      std::sqrt(swing.w * swing.w + glm::dot(swing.axis_ms, swing.axis_ms));
  const double inverse_both = 1.0 / (bend_norm * swing_norm);
  const double bend_scale = bend.v * inverse_both * swing_norm;
  *job.mid_correction =
      Quat(bend.w * inverse_both * swing_norm, bend.axis_local.x * bend_scale,
           bend.axis_local.y * bend_scale, bend.axis_local.z * bend_scale);
  const Vec3 local_axis =
      glm::conjugate(job.root_model.rotation) * swing.axis_ms;
  const double swing_scale = inverse_both * bend_norm;
  *job.root_correction =
      Quat(swing.w * swing_scale, local_axis.x * swing_scale,
           local_axis.y * swing_scale, local_axis.z * swing_scale);
}

Quat NormalizedMidCorrection(const MidBend& bend) {
  const double bend_scale = 1.0 / std::sqrt(bend.norm_sq);
  return Quat(bend.w * bend_scale, bend.axis_local.x * (bend.v * bend_scale),
              bend.axis_local.y * (bend.v * bend_scale),
              bend.axis_local.z * (bend.v * bend_scale));
}

Quat NormalizedSwing(const Swing& swing) {
  if (!swing.pending) return swing.rotation_ms;
  const double swing_scale =
      1.0 /
      std::sqrt(swing.w * swing.w + glm::dot(swing.axis_ms, swing.axis_ms));
  const Vec3 v = swing.axis_ms * swing_scale;
  return Quat(swing.w * swing_scale, v.x, v.y, v.z);
}

// Step 3: the root's model-space rotation, the swing followed by the twist
// about the root-target axis towards the pole (the swing alone without one).
Quat RootDeltaTowardsPole(const TwoBoneJob& job, const LimbSetup& limb,
                          const BendFrame& frame, const MidTurn& turn,
                          const Swing& swing, const Quat& swing_ms) {
  if (!job.pole_model.has_value()) return swing_ms;
  double target_length = swing.target_length;
  if (!limb.target_on_root && target_length == 0.0) {
    target_length = std::sqrt(limb.target_sq);
  }
  const Quat twist_ms = internal::TwistTowardsPole(
      *job.pole_model - limb.root_ms, limb.to_target_ms,
      limb.target_on_root ? 0.0 : target_length, swing_ms, limb.upper_ms,
      TurnedTipOffset(frame, turn), frame.bend_sign * frame.axis_ms,
      limb.upper_sq);
  return twist_ms * swing_ms;
}

// Where the tip lands and how far that is from the target. `root_delta_ms`
// is only read for a target on the root.
void WriteReport(const TwoBoneJob& job, const LimbSetup& limb,
                 const BendFrame& frame, const MidTurn& turn,
                 const Swing& swing, const Quat& root_delta_ms) {
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
    out.tip_model = limb.root_ms + root_delta_ms * TurnedTipOffset(frame, turn);
    out.residual = glm::length(out.tip_model - job.target_model);
  }
  out.reached = out.residual <= job.tolerance;
  out.iterations = 1;
}

}  // namespace

// Square roots and divisions dominate the cost of this solve, so each one is
// taken only where it is needed and paired divisions share one.
absl::Status TwoBoneJob::Run() const {
  if (!internal::LooksValid(*this)) {
    if (absl::Status status = Validate(); !status.ok()) return status;
  }
  const LimbSetup limb = SetupLimb(*this);
  const BendFrame frame = ComputeBendFrame(*this, limb);
  MidTurn turn = ComputeMidTurn(limb, frame);
  bool turn_clamped = false;
  if (mid_turn_range.has_value()) {
    turn_clamped = ClampMidTurn(*mid_turn_range, frame, &turn);
  }
  if (mid_turn_clamped != nullptr) *mid_turn_clamped = turn_clamped;
  const MidBend bend = PrepareMidBend(mid_model.rotation, frame.axis_ms, turn);
  const Swing swing = ComputeSwing(limb, frame, turn);

  Quat root_delta_ms = IdentityQuat();  // unset on the fast path
  if (swing.pending && !pole_model.has_value()) {
    WriteCorrectionsSharingDivision(*this, bend, swing);
  } else {
    *mid_correction = NormalizedMidCorrection(bend);
    root_delta_ms = RootDeltaTowardsPole(*this, limb, frame, turn, swing,
                                         NormalizedSwing(swing));
    *root_correction = ToLocal(root_delta_ms, root_model.rotation);
  }
  WriteReport(*this, limb, frame, turn, swing, root_delta_ms);
  return absl::OkStatus();
}

}  // namespace ik
