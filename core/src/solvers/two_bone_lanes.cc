// RunTwoBoneJobs (ik/solvers/two_bone.h): two TwoBoneJobs at a time in the
// two double lanes of a 16-byte vector (GCC's vector extensions: SSE2's
// addpd, mulpd, divpd and sqrtpd on x86-64), on the path TwoBoneJob::Run
// takes for a limb that reaches its target exactly and swings towards it
// without a special case: about the incoming bend plane's normal (a bent
// limb) or about its middle-joint axis (a hinge, its turn within range),
// then the pole's twist composed with the swing when there is a pole (Run's
// fast path through TwistedSwing). Every operation is the scalar solve's,
// in the same order, and none is fused (-ffp-contract=off), so each lane
// gives Run's bits; the hinge's angle is Run's Atan2 in both lanes at once
// (base/trig_lanes.h, the scalar function's bits on each lane). A
// lane whose job fails Run's quick check or leaves that path anywhere is
// solved by Run itself, and so is a pair of a hinged and a free limb.
#include <cmath>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/types/span.h"
#include "base/trig_lanes.h"
#include "ik/base/joint_limits.h"
#include "ik/base/math.h"
#include "ik/base/trig.h"
#include "ik/base/validate.h"
#include "ik/solvers/solve_report.h"
#include "ik/solvers/two_bone.h"
#include "solvers/two_bone_lanes.h"
#include "solvers/two_bone_pole.h"
#include "solvers/two_bone_validate.h"

namespace ik {
namespace {

using internal::kStraightSine;

using D2 = double __attribute__((vector_size(16)));
// Per lane: all ones where a comparison holds, all zeros where not.
using M2 = decltype(D2{} > D2{});

struct V3x2 {
  D2 x, y, z;
};
struct Qx2 {
  D2 w, x, y, z;
};

inline D2 Splat(double v) { return D2{v, v}; }
inline V3x2 operator+(const V3x2& a, const V3x2& b) {
  return {a.x + b.x, a.y + b.y, a.z + b.z};
}
inline V3x2 operator-(const V3x2& a, const V3x2& b) {
  return {a.x - b.x, a.y - b.y, a.z - b.z};
}
inline V3x2 operator*(const V3x2& a, D2 s) {
  return {a.x * s, a.y * s, a.z * s};
}
inline V3x2 operator*(D2 s, const V3x2& a) {
  return {s * a.x, s * a.y, s * a.z};
}
// glm's dot and cross, term for term.
inline D2 Dot(const V3x2& a, const V3x2& b) {
  return a.x * b.x + a.y * b.y + a.z * b.z;
}
inline V3x2 Cross(const V3x2& x, const V3x2& y) {
  return {x.y * y.z - y.y * x.z, x.z * y.x - y.z * x.x, x.x * y.y - y.x * x.y};
}
// glm's quaternion times vector.
inline V3x2 Rotate(const Qx2& q, const V3x2& v) {
  const V3x2 u{q.x, q.y, q.z};
  const V3x2 uv = Cross(u, v);
  const V3x2 uuv = Cross(u, uv);
  return v + ((uv * q.w) + uuv) * Splat(2.0);
}
// glm's quaternion product.
inline Qx2 Multiply(const Qx2& p, const Qx2& q) {
  return {p.w * q.w - p.x * q.x - p.y * q.y - p.z * q.z,
          p.w * q.x + p.x * q.w + p.y * q.z - p.z * q.y,
          p.w * q.y + p.y * q.w + p.z * q.x - p.x * q.z,
          p.w * q.z + p.z * q.w + p.x * q.y - p.y * q.x};
}
inline Qx2 Conjugate(const Qx2& q) { return {q.w, -q.x, -q.y, -q.z}; }
inline D2 Sqrt(D2 v) {
#if defined(__SSE2__)
  return D2(_mm_sqrt_pd(__m128d(v)));
#else
  return D2{std::sqrt(v[0]), std::sqrt(v[1])};
#endif
}

inline V3x2 Load(const Vec3& a, const Vec3& b) {
  return {D2{a.x, b.x}, D2{a.y, b.y}, D2{a.z, b.z}};
}
inline Qx2 Load(const Quat& a, const Quat& b) {
  return {D2{a.w, b.w}, D2{a.x, b.x}, D2{a.y, b.y}, D2{a.z, b.z}};
}
inline Quat Lane(const Qx2& q, int i) {
  return Quat(q.w[i], q.x[i], q.y[i], q.z[i]);
}

// Step 1's frame about the bend axis n: lower = along + across, side = n x
// across; a = u.across, b = u.side, k = u.along for u = root - mid.
struct Frame {
  V3x2 axis, side, along, across;
  D2 a, b, k, r_sq, inverse_r_sq;
};

// Run's frame for a bent limb without a middle-joint axis: the incoming
// bend plane's normal N / |N| (r^2 = l1^2 l2^2, b = |N|; 1/|N| and 1/r^2
// share a division).
Frame NormalFrame(const V3x2& upper, const V3x2& lower, const V3x2& normal,
                  D2 normal_sq, D2 lengths_sq) {
  const D2 normal_length = Sqrt(normal_sq);
  const D2 inverse_product = Splat(1.0) / (normal_sq * lengths_sq);
  const D2 inverse_length = (inverse_product * lengths_sq) * normal_length;
  Frame frame;
  frame.axis = normal * inverse_length;
  frame.side = Cross(normal, lower) * inverse_length;
  frame.along = V3x2{Splat(0.0), Splat(0.0), Splat(0.0)};
  frame.across = lower;
  frame.a = -Dot(upper, lower);
  frame.b = normal_length;
  frame.k = Splat(0.0);
  frame.r_sq = lengths_sq;
  frame.inverse_r_sq = inverse_product * normal_sq;
  return frame;
}

// Run's frame about the middle joint's axis `given` (glm::normalize: v * (1
// / sqrt(v.v))).
Frame AxisFrame(const V3x2& upper, const V3x2& lower, const V3x2& given) {
  Frame frame;
  frame.axis = given * (Splat(1.0) / Sqrt(Dot(given, given)));
  frame.along = Dot(lower, frame.axis) * frame.axis;
  frame.across = lower - frame.along;
  frame.side = Cross(frame.axis, frame.across);
  frame.a = -Dot(upper, frame.across);
  frame.b = -Dot(upper, frame.side);
  frame.k = -Dot(upper, frame.along);
  frame.r_sq = frame.a * frame.a + frame.b * frame.b;
  frame.inverse_r_sq =
      frame.r_sq > Splat(0.0) ? Splat(1.0) / frame.r_sq : Splat(0.0);
  return frame;
}

// TwistedSwing's part of `offset` across the root -> target axis (scaled by
// the target's squared distance, no square root) and whether it is off the
// axis: the pole's and the turned middle joint's, as Run computes each.
// `offset_sq` is the offset's squared length and `scale` that of the
// factor the part carries, squared.
struct AcrossAxis {
  V3x2 across;
  D2 across_sq;
  M2 off_axis;
};
AcrossAxis Across(const V3x2& offset, D2 offset_sq, const V3x2& to_target,
                  D2 target_sq, D2 scale) {
  AcrossAxis out;
  out.across = target_sq * offset - Dot(offset, to_target) * to_target;
  out.across_sq = Dot(out.across, out.across);
  out.off_axis =
      (out.across_sq > Splat(internal::kOnLineSine * internal::kOnLineSine) *
                           offset_sq * scale) &
      (out.across_sq >
       Splat(kMinDirectionLength * kMinDirectionLength) * scale);
  return out;
}

// SolvePair's stages follow, in Run's order. Each is forced inline: both
// of SolvePair's instantiations call it, and out of line the lanes' values
// would pass between the stages through memory.

// The limb in model space, per lane: its bones, the root -> target offset
// and the squared lengths every stage reads.
struct Limb {
  V3x2 root_ms, upper_ms, lower_ms, to_target_ms, bend_normal_ms;
  D2 upper_sq, lower_sq, target_sq, lengths_sq, bend_normal_sq;
  M2 bent;      // the bones are not in line
  M2 off_root;  // the target is not on the root
};

// Run's setup.
[[gnu::always_inline]] inline Limb LoadLimb(const TwoBoneJob& first,
                                            const TwoBoneJob& second) {
  Limb limb;
  limb.root_ms =
      Load(first.root_model.translation, second.root_model.translation);
  const V3x2 mid_ms =
      Load(first.mid_model.translation, second.mid_model.translation);
  limb.upper_ms = mid_ms - limb.root_ms;
  limb.lower_ms =
      Load(first.tip_model.translation, second.tip_model.translation) - mid_ms;
  limb.to_target_ms =
      Load(first.target_model, second.target_model) - limb.root_ms;
  limb.upper_sq = Dot(limb.upper_ms, limb.upper_ms);
  limb.lower_sq = Dot(limb.lower_ms, limb.lower_ms);
  limb.target_sq = Dot(limb.to_target_ms, limb.to_target_ms);
  limb.lengths_sq = limb.upper_sq * limb.lower_sq;
  limb.bend_normal_ms = Cross(limb.upper_ms, limb.lower_ms);
  limb.bend_normal_sq = Dot(limb.bend_normal_ms, limb.bend_normal_ms);
  limb.bent = limb.bend_normal_sq >
              Splat(kStraightSine * kStraightSine) * limb.lengths_sq;
  limb.off_root =
      limb.target_sq >= Splat(kMinDirectionLength * kMinDirectionLength);
  return limb;
}

// Step 1's turn alpha of the middle joint where it is exact (c^2 < r^2):
// (cos, sin)(alpha) = (cos0 + t cos1, sin0 + t sin1), Run's root choice.
struct MidTurn {
  D2 cos0, sin0, cos1, sin1, t, cos_alpha, sin_alpha;
  M2 exact;
};
[[gnu::always_inline]] inline MidTurn TurnMiddleJoint(const Limb& limb,
                                                      const Frame& frame) {
  MidTurn turn;
  const D2 c = (Splat(0.5) * (limb.upper_sq + limb.lower_sq) - frame.k) -
               Splat(0.5) * limb.target_sq;
  turn.exact = c * c < frame.r_sq;
  turn.t = Sqrt(frame.r_sq - c * c);  // used only where exact
  const auto take_minus =
      limb.bent ? (frame.b > Splat(0.0)) |
                      ((frame.b == Splat(0.0)) & (frame.a <= Splat(0.0)))
                : frame.a <= Splat(0.0);
  const D2 sigma = take_minus ? Splat(1.0) : Splat(-1.0);
  turn.cos0 = frame.a * c * frame.inverse_r_sq;
  turn.sin0 = frame.b * c * frame.inverse_r_sq;
  turn.cos1 = sigma * frame.b * frame.inverse_r_sq;
  turn.sin1 = -sigma * frame.a * frame.inverse_r_sq;
  turn.cos_alpha = turn.cos0 + turn.t * turn.cos1;
  turn.sin_alpha = turn.sin0 + turn.t * turn.sin1;
  return turn;
}

// A turn range costs Run an angle; a lane whose turn it clamps leaves
// (lane_ok[i] turns false).
[[gnu::always_inline]] inline void LeaveClampedTurns(
    const TwoBoneJob* const jobs[2], const MidTurn& turn, bool lane_ok[2]) {
  const bool ranged[2] = {lane_ok[0] && jobs[0]->mid_turn_range.has_value(),
                          lane_ok[1] && jobs[1]->mid_turn_range.has_value()};
  if (!ranged[0] && !ranged[1]) return;
  const D2 alpha = internal::Atan2Lanes(turn.sin_alpha, turn.cos_alpha);
  for (int i = 0; i < 2; ++i) {
    if (!ranged[i]) continue;
    lane_ok[i] =
        ClampAngleToRange(alpha[i], *jobs[i]->mid_turn_range) == alpha[i];
  }
}

// The middle joint's correction, (w, v * axis_local) up to normalisation.
struct Bend {
  V3x2 axis_local;
  D2 w, v, norm_sq;
};
[[gnu::always_inline]] inline Bend BendMiddleJoint(const TwoBoneJob& first,
                                                   const TwoBoneJob& second,
                                                   const Frame& frame,
                                                   const MidTurn& turn) {
  Bend bend;
  const Qx2 mid_rotation =
      Load(first.mid_model.rotation, second.mid_model.rotation);
  bend.axis_local = Rotate(Conjugate(mid_rotation), frame.axis);
  const auto opening = turn.cos_alpha >= Splat(0.0);
  bend.w = opening ? Splat(1.0) + turn.cos_alpha : turn.sin_alpha;
  bend.v = opening ? turn.sin_alpha : Splat(1.0) - turn.cos_alpha;
  bend.norm_sq = bend.w * bend.w + bend.v * bend.v;
  return bend;
}

// Step 2: the root's swing (w, axis) up to normalisation, s.r and s x r
// expanded over the turned tip's parts; pending where it is no half turn.
struct Swing {
  V3x2 axis;
  D2 w;
  M2 pending;
};
[[gnu::always_inline]] inline Swing SwingRoot(const Limb& limb,
                                              const Frame& frame,
                                              const MidTurn& turn) {
  const V3x2& to_target_ms = limb.to_target_ms;
  const V3x2 base_ms = limb.upper_ms + frame.along;
  const D2 lengths = limb.target_sq;  // exact: |s| = |r|
  const D2 across_dot = Dot(frame.across, to_target_ms);
  const D2 side_dot = Dot(frame.side, to_target_ms);
  const V3x2 across_cross = Cross(frame.across, to_target_ms);
  const V3x2 side_cross = Cross(frame.side, to_target_ms);
  Swing swing;
  swing.w = (lengths + (Dot(base_ms, to_target_ms) + turn.cos0 * across_dot +
                        turn.sin0 * side_dot)) +
            turn.t * (turn.cos1 * across_dot + turn.sin1 * side_dot);
  swing.axis = (Cross(base_ms, to_target_ms) + turn.cos0 * across_cross +
                turn.sin0 * side_cross) +
               turn.t * (turn.cos1 * across_cross + turn.sin1 * side_cross);
  swing.pending = swing.w > Splat(kOppositeThreshold) * lengths;
  return swing;
}

// Step 3 with step 2: the root's model-space turn up to normalisation, the
// pole's twist composed with the swing (TwistedSwing, its common path) or,
// without a pole, the swing alone. on_path: the lanes TwistedSwing's
// common path holds for (all lanes without a pole).
struct RootTurn {
  Qx2 turn_ms;
  M2 on_path;
};
[[gnu::always_inline]] inline RootTurn TurnRoot(const TwoBoneJob& first,
                                                const TwoBoneJob& second,
                                                const Limb& limb,
                                                const Swing& swing) {
  const V3x2& to_target_ms = limb.to_target_ms;
  const D2 target_sq = limb.target_sq;
  // Per lane: all ones where the job has a pole.
  const auto has_pole = D2{first.pole_model.has_value() ? 1.0 : 0.0,
                           second.pole_model.has_value() ? 1.0 : 0.0} > 0.5;
  const Vec3 pole0 = first.pole_model.value_or(Vec3(0.0));
  const Vec3 pole1 = second.pole_model.value_or(Vec3(0.0));
  const auto in_range =
      (target_sq >= Splat(internal::kTwistedSwingMinSquared)) &
      (target_sq <= Splat(internal::kTwistedSwingMaxSquared));
  const V3x2 pole_offset = Load(pole0, pole1) - limb.root_ms;
  const D2 target_sq_sq = target_sq * target_sq;
  const AcrossAxis pole = Across(pole_offset, Dot(pole_offset, pole_offset),
                                 to_target_ms, target_sq, target_sq_sq);
  const D2 w = swing.w;
  const V3x2& swing_axis = swing.axis;
  const V3x2& upper_ms = limb.upper_ms;
  const D2 swing_sq = w * w + Dot(swing_axis, swing_axis);
  const D2 swing_sq_sq = swing_sq * swing_sq;
  const V3x2 mid_offset =
      (w * w - Dot(swing_axis, swing_axis)) * upper_ms +
      (Splat(2.0) * Dot(swing_axis, upper_ms)) * swing_axis +
      (Splat(2.0) * w) * Cross(swing_axis, upper_ms);
  const AcrossAxis mid = Across(mid_offset, limb.upper_sq, to_target_ms,
                                target_sq, swing_sq_sq * target_sq_sq);
  const D2 cosine = Dot(mid.across, pole.across);
  const D2 scale = Sqrt(mid.across_sq * pole.across_sq);
  const V3x2 cross = Cross(mid.across, pole.across);
  const auto near = cosine >= Splat(0.0);
  const V3x2 far_axis = (scale - cosine) * to_target_ms;
  const Qx2 twist{near ? scale + cosine : Dot(to_target_ms, cross),
                  near ? cross.x : far_axis.x, near ? cross.y : far_axis.y,
                  near ? cross.z : far_axis.z};
  const Qx2 swing_ms{w, swing_axis.x, swing_axis.y, swing_axis.z};
  const Qx2 twisted = Multiply(twist, swing_ms);
  RootTurn out;
  out.turn_ms = {
      has_pole ? twisted.w : swing_ms.w, has_pole ? twisted.x : swing_ms.x,
      has_pole ? twisted.y : swing_ms.y, has_pole ? twisted.z : swing_ms.z};
  out.on_path = ~has_pole | (in_range & pole.off_axis & mid.off_axis);
  return out;
}

// Both corrections normalised, the divisions sharing one (1/|q| = |q| /
// |q|^2), the root's turn carried into the root's frame.
struct Corrections {
  Qx2 mid, root;
};
[[gnu::always_inline]] inline Corrections NormalizeCorrections(
    const TwoBoneJob& first, const TwoBoneJob& second, const Bend& bend,
    const Qx2& turn_ms) {
  const D2 turn_norm_sq =
      turn_ms.w * turn_ms.w +
      (turn_ms.x * turn_ms.x + turn_ms.y * turn_ms.y + turn_ms.z * turn_ms.z);
  const D2 inverse_both = Splat(1.0) / (bend.norm_sq * turn_norm_sq);
  const D2 bend_inverse = (inverse_both * turn_norm_sq) * Sqrt(bend.norm_sq);
  const D2 turn_inverse = (inverse_both * bend.norm_sq) * Sqrt(turn_norm_sq);
  const D2 bend_scale = bend.v * bend_inverse;
  Corrections out;
  out.mid = {bend.w * bend_inverse, bend.axis_local.x * bend_scale,
             bend.axis_local.y * bend_scale, bend.axis_local.z * bend_scale};
  const V3x2 local_axis = Rotate(
      Conjugate(Load(first.root_model.rotation, second.root_model.rotation)),
      V3x2{turn_ms.x, turn_ms.y, turn_ms.z});
  out.root = {turn_ms.w * turn_inverse, local_axis.x * turn_inverse,
              local_axis.y * turn_inverse, local_axis.z * turn_inverse};
  return out;
}

// Each lane's answer: the lanes' corrections and an exact report where the
// lane stayed on the path (`common`), else Run's.
[[gnu::always_inline]] inline void FinishLanes(const TwoBoneJob* const jobs[2],
                                               const bool lane_ok[2], M2 common,
                                               const Corrections& corrections,
                                               absl::Status* statuses) {
  for (int i = 0; i < 2; ++i) {
    const TwoBoneJob& job = *jobs[i];
    if (!lane_ok[i] || common[i] == 0) {
      statuses[i] = job.Run();
      continue;
    }
    statuses[i] = absl::OkStatus();
    *job.mid_correction = Lane(corrections.mid, i);
    *job.root_correction = Lane(corrections.root, i);
    SolveReport& out = *job.report;
    out.tip_model = job.target_model;
    out.residual = 0.0;
    out.reached = out.residual <= job.tolerance;
    out.iterations = 1;
    if (job.mid_turn_clamped != nullptr) *job.mid_turn_clamped = false;
  }
}

// Solves `first` and `second`, both with a middle-joint axis (kAxis) or
// both without, their statuses into `statuses`: Run's stages, each over
// both lanes.
template <bool kAxis>
void SolvePair(const TwoBoneJob& first, const TwoBoneJob& second,
               absl::Status* statuses) {
  const TwoBoneJob* jobs[2] = {&first, &second};
  bool lane_ok[2];
  for (int i = 0; i < 2; ++i) {
    lane_ok[i] = internal::LooksValid(*jobs[i]);
  }
  if (!lane_ok[0] && !lane_ok[1]) {  // neither can take the lanes
    statuses[0] = first.Run();
    statuses[1] = second.Run();
    return;
  }
  const Limb limb = LoadLimb(first, second);
  Frame frame;
  if constexpr (kAxis) {
    frame = AxisFrame(limb.upper_ms, limb.lower_ms,
                      Load(*first.mid_axis_model, *second.mid_axis_model));
  } else {
    frame = NormalFrame(limb.upper_ms, limb.lower_ms, limb.bend_normal_ms,
                        limb.bend_normal_sq, limb.lengths_sq);
  }
  // Without an axis the limb must be bent (else Run derives the axis from
  // the pole); either way step 1 needs a turn to solve.
  auto framed =
      frame.r_sq > Splat(kStraightSine * kStraightSine) * limb.lengths_sq;
  if constexpr (!kAxis) framed &= limb.bent;

  const MidTurn turn = TurnMiddleJoint(limb, frame);
  LeaveClampedTurns(jobs, turn, lane_ok);
  const Bend bend = BendMiddleJoint(first, second, frame, turn);
  const Swing swing = SwingRoot(limb, frame, turn);
  const RootTurn root_turn = TurnRoot(first, second, limb, swing);
  const Corrections corrections =
      NormalizeCorrections(first, second, bend, root_turn.turn_ms);
  const M2 common =
      framed & limb.off_root & turn.exact & swing.pending & root_turn.on_path;
  FinishLanes(jobs, lane_ok, common, corrections, statuses);
}

}  // namespace

namespace internal {

void RunTwoBoneJobPair(const TwoBoneJob& first, const TwoBoneJob& second,
                       absl::Status* statuses) {
  const bool first_axis = first.mid_axis_model.has_value();
  if (first_axis != second.mid_axis_model.has_value()) {
    statuses[0] = first.Run();  // a limb of each kind: no shared path
    statuses[1] = second.Run();
  } else if (first_axis) {
    SolvePair<true>(first, second, statuses);
  } else {
    SolvePair<false>(first, second, statuses);
  }
}

}  // namespace internal

absl::Status RunTwoBoneJobs(absl::Span<const TwoBoneJob> jobs,
                            absl::Span<absl::Status> statuses) {
  if (statuses.size() != jobs.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "statuses: ", statuses.size(), " for ", jobs.size(), " jobs"));
  }
  size_t i = 0;
  for (; i + 1 < jobs.size(); i += 2) {
    internal::RunTwoBoneJobPair(jobs[i], jobs[i + 1], &statuses[i]);
  }
  if (i < jobs.size()) statuses[i] = jobs[i].Run();
  return absl::OkStatus();
}

}  // namespace ik
