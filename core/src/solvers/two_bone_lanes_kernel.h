// The lanes of RunTwoBoneJobs (ik/solvers/two_bone.h), written once for
// every lane width: TwoBoneJobs in the double lanes of one vector (GCC's
// vector extensions), on the path TwoBoneJob::Run takes for a limb that
// reaches its target exactly and swings towards it without a special case:
// about the incoming bend plane's normal (a bent limb) or about its
// middle-joint axis (a hinge, its turn within range), then the pole's twist
// composed with the swing when there is a pole (Run's fast path through
// TwistedSwing). Every operation is the scalar solve's, in the same order,
// and none is fused (-ffp-contract=off), so each lane gives Run's bits; the
// hinge's angle is Run's Atan2 on every lane at once (the scalar function's
// bits on each lane). A lane whose job fails Run's quick check or leaves
// that path anywhere is solved by Run itself, and so is a group of hinged
// and free limbs.
//
// Not a header to include anywhere else: each lane width's source file
// (solvers/two_bone_lanes.cc for 2 lanes of SSE2, two_bone_lanes_avx.cc for
// 4 lanes of AVX, compiled for AVX in that file alone) includes it once,
// inside an anonymous namespace of ik, after the headers whose names it
// uses (ik/solvers/two_bone.h, ik/base/math.h, ik/base/joint_limits.h,
// solvers/two_bone_pole.h and solvers/two_bone_validate.h, absl's status)
// and `using internal::kStraightSine`, having defined what
// base/vector_lanes_kernel.h asks for (D, kLanes, Sqrt, Atan2Lanes). It
// defines SolveJobLanes(jobs, statuses): kLanes jobs at once.
// Deliberately without an include guard.

#include "base/vector_lanes_kernel.h"  // NOLINT(build/include)

// Step 1's frame about the bend axis n: lower = along + across, side = n x
// across; a = u.across, b = u.side, k = u.along for u = root - mid.
struct Frame {
  V3x axis, side, along, across;
  D a, b, k, r_sq, inverse_r_sq;
};

// Run's frame for a bent limb without a middle-joint axis: the incoming
// bend plane's normal N / |N| (r^2 = l1^2 l2^2, b = |N|; 1/|N| and 1/r^2
// share a division).
Frame NormalFrame(const V3x& upper, const V3x& lower, const V3x& normal,
                  D normal_sq, D lengths_sq) {
  const D normal_length = Sqrt(normal_sq);
  const D inverse_product = Splat(1.0) / (normal_sq * lengths_sq);
  const D inverse_length = (inverse_product * lengths_sq) * normal_length;
  Frame frame;
  frame.axis = normal * inverse_length;
  frame.side = Cross(normal, lower) * inverse_length;
  frame.along = V3x{Splat(0.0), Splat(0.0), Splat(0.0)};
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
Frame AxisFrame(const V3x& upper, const V3x& lower, const V3x& given) {
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
  V3x across;
  D across_sq;
  M off_axis;
};
AcrossAxis Across(const V3x& offset, D offset_sq, const V3x& to_target,
                  D target_sq, D scale) {
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

// SolveLanes' stages follow, in Run's order. Each is forced inline: both
// of SolveLanes' instantiations call it, and out of line the lanes' values
// would pass between the stages through memory.

// The limb in model space, per lane: its bones, the root -> target offset
// and the squared lengths every stage reads.
struct Limb {
  V3x root_ms, upper_ms, lower_ms, to_target_ms, bend_normal_ms;
  D upper_sq, lower_sq, target_sq, lengths_sq, bend_normal_sq;
  M bent;      // the bones are not in line
  M off_root;  // the target is not on the root
};

// Run's setup.
[[gnu::always_inline]] inline Limb LoadLimb(
    const TwoBoneJob* const jobs[kLanes]) {
  Limb limb;
  limb.root_ms = Load(jobs, [](const TwoBoneJob& job) -> const Vec3& {
    return job.root_model.translation;
  });
  const V3x mid_ms = Load(jobs, [](const TwoBoneJob& job) -> const Vec3& {
    return job.mid_model.translation;
  });
  limb.upper_ms = mid_ms - limb.root_ms;
  limb.lower_ms = Load(jobs,
                       [](const TwoBoneJob& job) -> const Vec3& {
                         return job.tip_model.translation;
                       }) -
                  mid_ms;
  limb.to_target_ms = Load(jobs,
                           [](const TwoBoneJob& job) -> const Vec3& {
                             return job.target_model;
                           }) -
                      limb.root_ms;
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
  D cos0, sin0, cos1, sin1, t, cos_alpha, sin_alpha;
  M exact;
};
[[gnu::always_inline]] inline MidTurn TurnMiddleJoint(const Limb& limb,
                                                      const Frame& frame) {
  MidTurn turn;
  const D c = (Splat(0.5) * (limb.upper_sq + limb.lower_sq) - frame.k) -
              Splat(0.5) * limb.target_sq;
  turn.exact = c * c < frame.r_sq;
  turn.t = Sqrt(frame.r_sq - c * c);  // used only where exact
  const auto take_minus =
      limb.bent ? (frame.b > Splat(0.0)) |
                      ((frame.b == Splat(0.0)) & (frame.a <= Splat(0.0)))
                : frame.a <= Splat(0.0);
  const D sigma = take_minus ? Splat(1.0) : Splat(-1.0);
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
    const TwoBoneJob* const jobs[kLanes], const MidTurn& turn,
    bool lane_ok[kLanes]) {
  bool ranged[kLanes];
  bool any = false;
  for (int i = 0; i < kLanes; ++i) {
    ranged[i] = lane_ok[i] && jobs[i]->mid_turn_range.has_value();
    any = any || ranged[i];
  }
  if (!any) return;
  const D alpha = Atan2Lanes(turn.sin_alpha, turn.cos_alpha);
  for (int i = 0; i < kLanes; ++i) {
    if (!ranged[i]) continue;
    lane_ok[i] =
        ClampAngleToRange(alpha[i], *jobs[i]->mid_turn_range) == alpha[i];
  }
}

// The middle joint's correction, (w, v * axis_local) up to normalisation.
struct Bend {
  V3x axis_local;
  D w, v, norm_sq;
};
[[gnu::always_inline]] inline Bend BendMiddleJoint(
    const TwoBoneJob* const jobs[kLanes], const Frame& frame,
    const MidTurn& turn) {
  Bend bend;
  const Qx mid_rotation =
      LoadRotation(jobs, [](const TwoBoneJob& job) -> const Quat& {
        return job.mid_model.rotation;
      });
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
  V3x axis;
  D w;
  M pending;
};
[[gnu::always_inline]] inline Swing SwingRoot(const Limb& limb,
                                              const Frame& frame,
                                              const MidTurn& turn) {
  const V3x& to_target_ms = limb.to_target_ms;
  const V3x base_ms = limb.upper_ms + frame.along;
  const D lengths = limb.target_sq;  // exact: |s| = |r|
  const D across_dot = Dot(frame.across, to_target_ms);
  const D side_dot = Dot(frame.side, to_target_ms);
  const V3x across_cross = Cross(frame.across, to_target_ms);
  const V3x side_cross = Cross(frame.side, to_target_ms);
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
  Qx turn_ms;
  M on_path;
};
[[gnu::always_inline]] inline RootTurn TurnRoot(
    const TwoBoneJob* const jobs[kLanes], const Limb& limb,
    const Swing& swing) {
  const V3x& to_target_ms = limb.to_target_ms;
  const D target_sq = limb.target_sq;
  // Per lane: all ones where the job has a pole.
  const auto has_pole = Gather(jobs, [](const TwoBoneJob& job) {
                          return job.pole_model.has_value() ? 1.0 : 0.0;
                        }) > 0.5;
  const V3x pole_ms = Load(jobs, [](const TwoBoneJob& job) {
    return job.pole_model.value_or(Vec3(0.0));
  });
  const auto in_range =
      (target_sq >= Splat(internal::kTwistedSwingMinSquared)) &
      (target_sq <= Splat(internal::kTwistedSwingMaxSquared));
  const V3x pole_offset = pole_ms - limb.root_ms;
  const D target_sq_sq = target_sq * target_sq;
  const AcrossAxis pole = Across(pole_offset, Dot(pole_offset, pole_offset),
                                 to_target_ms, target_sq, target_sq_sq);
  const D w = swing.w;
  const V3x& swing_axis = swing.axis;
  const V3x& upper_ms = limb.upper_ms;
  const D swing_sq = w * w + Dot(swing_axis, swing_axis);
  const D swing_sq_sq = swing_sq * swing_sq;
  const V3x mid_offset = (w * w - Dot(swing_axis, swing_axis)) * upper_ms +
                         (Splat(2.0) * Dot(swing_axis, upper_ms)) * swing_axis +
                         (Splat(2.0) * w) * Cross(swing_axis, upper_ms);
  const AcrossAxis mid = Across(mid_offset, limb.upper_sq, to_target_ms,
                                target_sq, swing_sq_sq * target_sq_sq);
  const D cosine = Dot(mid.across, pole.across);
  const D scale = Sqrt(mid.across_sq * pole.across_sq);
  const V3x cross = Cross(mid.across, pole.across);
  const auto near = cosine >= Splat(0.0);
  const V3x far_axis = (scale - cosine) * to_target_ms;
  const Qx twist{near ? scale + cosine : Dot(to_target_ms, cross),
                 near ? cross.x : far_axis.x, near ? cross.y : far_axis.y,
                 near ? cross.z : far_axis.z};
  const Qx swing_ms{w, swing_axis.x, swing_axis.y, swing_axis.z};
  const Qx twisted = Multiply(twist, swing_ms);
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
  Qx mid, root;
};
[[gnu::always_inline]] inline Corrections NormalizeCorrections(
    const TwoBoneJob* const jobs[kLanes], const Bend& bend, const Qx& turn_ms) {
  const D turn_norm_sq =
      turn_ms.w * turn_ms.w +
      (turn_ms.x * turn_ms.x + turn_ms.y * turn_ms.y + turn_ms.z * turn_ms.z);
  const D inverse_both = Splat(1.0) / (bend.norm_sq * turn_norm_sq);
  const D bend_inverse = (inverse_both * turn_norm_sq) * Sqrt(bend.norm_sq);
  const D turn_inverse = (inverse_both * bend.norm_sq) * Sqrt(turn_norm_sq);
  const D bend_scale = bend.v * bend_inverse;
  Corrections out;
  out.mid = {bend.w * bend_inverse, bend.axis_local.x * bend_scale,
             bend.axis_local.y * bend_scale, bend.axis_local.z * bend_scale};
  const V3x local_axis =
      Rotate(Conjugate(LoadRotation(jobs,
                                    [](const TwoBoneJob& job) -> const Quat& {
                                      return job.root_model.rotation;
                                    })),
             V3x{turn_ms.x, turn_ms.y, turn_ms.z});
  out.root = {turn_ms.w * turn_inverse, local_axis.x * turn_inverse,
              local_axis.y * turn_inverse, local_axis.z * turn_inverse};
  return out;
}

// Each lane's answer: the lanes' corrections and an exact report where the
// lane stayed on the path (`common`), else Run's.
[[gnu::always_inline]] inline void FinishLanes(
    const TwoBoneJob* const jobs[kLanes], const bool lane_ok[kLanes], M common,
    const Corrections& corrections, absl::Status* statuses) {
  for (int i = 0; i < kLanes; ++i) {
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

// Solves `jobs`, all with a middle-joint axis (kAxis) or all without,
// their statuses into `statuses`: Run's stages, each over every lane.
template <bool kAxis>
void SolveLanes(const TwoBoneJob* const jobs[kLanes], absl::Status* statuses) {
  bool lane_ok[kLanes];
  bool any_ok = false;
  for (int i = 0; i < kLanes; ++i) {
    lane_ok[i] = internal::LooksValid(*jobs[i]);
    any_ok = any_ok || lane_ok[i];
  }
  if (!any_ok) {  // none can take the lanes
    for (int i = 0; i < kLanes; ++i) statuses[i] = jobs[i]->Run();
    return;
  }
  const Limb limb = LoadLimb(jobs);
  Frame frame;
  if constexpr (kAxis) {
    frame = AxisFrame(limb.upper_ms, limb.lower_ms,
                      Load(jobs, [](const TwoBoneJob& job) -> const Vec3& {
                        return *job.mid_axis_model;
                      }));
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
  const Bend bend = BendMiddleJoint(jobs, frame, turn);
  const Swing swing = SwingRoot(limb, frame, turn);
  const RootTurn root_turn = TurnRoot(jobs, limb, swing);
  const Corrections corrections =
      NormalizeCorrections(jobs, bend, root_turn.turn_ms);
  const M common =
      framed & limb.off_root & turn.exact & swing.pending & root_turn.on_path;
  FinishLanes(jobs, lane_ok, common, corrections, statuses);
}

// Solves `jobs` in the lanes when all have a middle-joint axis or none
// has; a group of both kinds has no shared path: Run each.
inline void SolveJobLanes(const TwoBoneJob* const jobs[kLanes],
                          absl::Status* statuses) {
  int with_axis = 0;
  for (int i = 0; i < kLanes; ++i) {
    with_axis += jobs[i]->mid_axis_model.has_value() ? 1 : 0;
  }
  if (with_axis == kLanes) {
    SolveLanes<true>(jobs, statuses);
  } else if (with_axis == 0) {
    SolveLanes<false>(jobs, statuses);
  } else {
    for (int i = 0; i < kLanes; ++i) statuses[i] = jobs[i]->Run();
  }
}
