// The lanes of StartLimbs (rig/limb_lanes.h), written once for every lane
// width: StartMidWithinLimit (rig/two_bone_limits.h) for hinge
// middle joints in the double lanes of one vector, on its common paths: the
// incoming rotation within the hinge (kept), or off its axis and within
// its range, or out of its range (the hinge's clamp, ApplyJointLimit, to
// the axis and the range's nearer end). Every operation is the scalar
// path's (the twist's angle, TwistAbout's and ClampAngleToRange's steps,
// the clamp's swing angle, its turn to the range's end and its normalised
// product), in the same order and unfused, so each lane gives its bits; a
// lane whose twist is undefined or whose angle needs more than one turn's
// correction is started by StartMidWithinLimit itself.
//
// Not a header to include anywhere else: each lane width's source file
// (rig/limb_lanes.cc for 2 lanes of SSE2, rig/limb_lanes_avx.cc for 4 lanes
// of AVX) includes it once, inside an anonymous namespace of ik, after
// the headers whose names it uses (ik/base/joint_limits.h, ik/base/math.h,
// rig/two_bone_limits.h) and its width (base/lanes_sse2_kernel.h or
// base/lanes_avx_kernel.h: what base/vector_lanes_kernel.h asks for, and
// SinLanes and CosLanes, Sin and Cos of ik/base/trig.h on every lane with
// the scalar functions' bits). It defines StartHingeLanes(mids, rotations,
// starts): kLanes middle joints at once. Deliberately without an include guard.

#include "base/vector_lanes_kernel.h"  // NOLINT(build/include)

using internal::JointConstraintOf;
using internal::MidStart;
using internal::StartMidWithinLimit;

// TwistAbout's floor and StartMidWithinLimit's hinge slack
// (base/joint_limits.cc, rig/two_bone_limits.cc), and ClampHinge's
// nearly-on-axis swing (0.4 of the clamp slack).
inline constexpr double kLaneTwistNormFloor = 1e-24;
inline constexpr double kLaneOnHingeSlack = 1e-12;
inline constexpr double kLaneNearAxis = 0.4 * kLimitClampSlack;
inline constexpr double kLaneTwoPi = 2.0 * kPi;

// ClampAngleToRange on every lane; `regular` is false where the angle's
// offset from the range's start needs fmod (the scalar path's rare case).
struct RangeLanes {
  D clamped;
  M regular;
};
inline RangeLanes ClampAngleLanes(D angle, D min, D max) {
  const D two_pi = Splat(kLaneTwoPi);
  const D width = max - min;
  const M full = width >= two_pi;
  D shift = angle - min;
  shift = shift < Splat(0.0) ? shift + two_pi : shift;
  shift = shift >= two_pi ? shift - two_pi : shift;
  const D past_max = shift - width;
  const D before_min = two_pi - shift;
  const D end = past_max < before_min ? max : min;
  RangeLanes out;
  out.regular = full | ((shift >= Splat(0.0)) & (shift < two_pi));
  out.clamped = (full | (shift <= width)) ? angle : end;
  return out;
}

// The twist of `relative` about `axis` (TwistAbout, w >= 0, normalised)
// and its angle (TwistAngle); `defined` as TwistAbout's (when it is not,
// the identity's twist, as TwistAbout gives).
struct TwistLanes {
  D w, s, angle;
  M defined;
};
inline TwistLanes TwistOf(const Qx& relative, const V3x& axis) {
  TwistLanes twist;
  D w = relative.w;
  D s = Dot(V3x{relative.x, relative.y, relative.z}, axis);
  const D norm_squared = w * w + s * s;
  twist.defined = norm_squared >= Splat(kLaneTwistNormFloor);
  const M negative = w < Splat(0.0);
  w = negative ? -w : w;
  s = negative ? -s : s;
  const D inverse_norm = Splat(1.0) / Sqrt(norm_squared);
  // Undefined: the identity's (1, 0), angle 0.
  twist.w = twist.defined ? w * inverse_norm : Splat(1.0);
  twist.s = twist.defined ? s * inverse_norm : Splat(0.0);
  const D angle = Splat(2.0) * Atan2Lanes(twist.s, twist.w);
  twist.angle = angle <= Splat(-kPi) ? Splat(kPi) : angle;
  return twist;
}

// std::abs on every lane, for comparisons (-0 stays -0, which compares as
// 0 does), and whether any lane of a comparison holds.
inline D Abs(D v) { return v < Splat(0.0) ? -v : v; }
inline bool Any(M m) {
  for (int i = 0; i < kLanes; ++i) {
    if (m[i] != 0) return true;
  }
  return false;
}

// glm::normalize of a quaternion: q / sqrt((w w + x x) + (y y + z z)), the
// identity where that is not positive.
inline Qx NormalizeLanes(const Qx& q) {
  const D length = Sqrt((q.w * q.w + q.x * q.x) + (q.y * q.y + q.z * q.z));
  const M positive = length > Splat(0.0);
  const D inverse = Splat(1.0) / length;
  return {positive ? q.w * inverse : Splat(1.0),
          positive ? q.x * inverse : Splat(0.0),
          positive ? q.y * inverse : Splat(0.0),
          positive ? q.z * inverse : Splat(0.0)};
}

// The joints' rest rotations.
inline Qx RestRotations(const JointDefinition* const joints[kLanes]) {
  return LoadRotation(
      joints, [](const JointDefinition& joint) { return joint.rest.rotation; });
}
inline Qx Rotations(const Quat rotations[kLanes]) {
  const Quat* rotation_of[kLanes];
  for (int i = 0; i < kLanes; ++i) rotation_of[i] = &rotations[i];
  return LoadRotation(rotation_of, [](const Quat& q) { return q; });
}

// The hinge's clamp (ClampHinge, then ApplyJointLimit's normalised
// product with the rest rotation) of `relative`, whose twist about the
// hinge's `axis` is `twist`, its angle in the range `range`, and which
// turns the axis to `turned_axis`: exact on the lanes where the twist is
// defined and `difference` (the clamp's move) is below a whole turn.
struct HingeClamp {
  Qx rotation;   // the clamped local rotation where not `unchanged`
  M out;         // the range moved the angle
  M unchanged;   // on the axis and not out: the rotation as it came
  M clamped;     // ClampHinge's `clamped`
  D difference;  // |end - angle|
};
HingeClamp ClampHingeLanes(const JointDefinition* const mids[kLanes],
                           const Qx& rest, const Qx& relative, const V3x& axis,
                           const TwistLanes& twist, const RangeLanes& range,
                           const V3x& turned_axis) {
  const D tangent_min = Gather(mids, [](const JointDefinition& joint) {
    return joint.limit.hinge.range_tangents.min;
  });
  const D tangent_max = Gather(mids, [](const JointDefinition& joint) {
    return joint.limit.hinge.range_tangents.max;
  });
  const M by_tangents =
      (tangent_min * twist.w <= twist.s) & (twist.s <= tangent_max * twist.w);
  HingeClamp result;
  const M out = ~by_tangents & (range.clamped != twist.angle);
  const V3x vector{relative.x, relative.y, relative.z};
  const V3x off_axis = vector - Dot(vector, axis) * axis;
  result.unchanged = (off_axis.x == Splat(0.0)) & (off_axis.y == Splat(0.0)) &
                     (off_axis.z == Splat(0.0));
  const M near_axis =
      Dot(off_axis, off_axis) <= Splat(kLaneNearAxis * kLaneNearAxis);
  const V3x swing_cross = Cross(axis, turned_axis);
  const D swing =
      Atan2Lanes(Sqrt(Dot(swing_cross, swing_cross)), Dot(axis, turned_axis));
  const M swing_clamped = ~near_axis & (swing > Splat(kLimitClampSlack));
  // Out of range: AngleAxis(end) and CircularDistance(end, angle), whose
  // fmod leaves a difference below a whole turn as it is.
  const D difference = Abs(range.clamped - twist.angle);
  result.difference = difference;
  const M turn_clamped =
      (difference > Splat(kPi) ? Splat(kLaneTwoPi) - difference : difference) >
      Splat(kLimitClampSlack);
  Qx clamp{twist.w, axis.x * twist.s, axis.y * twist.s, axis.z * twist.s};
  if (Any(out)) {
    const D half = Splat(0.5) * range.clamped;
    const D sine = SinLanes(half);
    const D cosine = CosLanes(half);
    clamp = {out ? cosine : clamp.w, out ? axis.x * sine : clamp.x,
             out ? axis.y * sine : clamp.y, out ? axis.z * sine : clamp.z};
  }
  result.rotation = NormalizeLanes(Multiply(rest, clamp));
  result.out = out;
  result.clamped = swing_clamped | (out & turn_clamped);
  return result;
}

// StartMidWithinLimit for the hinge middle joints `mids` with incoming
// local rotations `rotations`, into `starts`.
void StartHingeLanes(const JointDefinition* const mids[kLanes],
                     const Quat rotations[kLanes], MidStart starts[kLanes]) {
  const Qx rest = RestRotations(mids);
  const Qx rotation = Rotations(rotations);
  const V3x axis = Load(mids, [](const JointDefinition& joint) {
    return joint.limit.hinge.axis;
  });
  const D min = Gather(mids, [](const JointDefinition& joint) {
    return joint.limit.hinge.range.min;
  });
  const D max = Gather(mids, [](const JointDefinition& joint) {
    return joint.limit.hinge.range.max;
  });
  // Within the hinge: in range and on the axis.
  const Qx relative = Multiply(Conjugate(rest), rotation);
  const TwistLanes twist = TwistOf(relative, axis);
  const RangeLanes range = ClampAngleLanes(twist.angle, min, max);
  const V3x turned_axis = Rotate(relative, axis);
  const V3x off_hinge = turned_axis - axis;
  const M within =
      (range.clamped == twist.angle) &
      (Sqrt(Dot(off_hinge, off_hinge)) <= Splat(kLaneOnHingeSlack));
  const HingeClamp clamp =
      ClampHingeLanes(mids, rest, relative, axis, twist, range, turned_axis);
  const M kept = within | (clamp.unchanged & ~clamp.out);
  const M lanes_done = twist.defined & range.regular &
                       (~clamp.out | (clamp.difference < Splat(kLaneTwoPi)));
  for (int i = 0; i < kLanes; ++i) {
    const JointDefinition& mid = *mids[i];
    if (lanes_done[i] == 0) {
      starts[i] =
          StartMidWithinLimit(mid, JointConstraintOf(mid), rotations[i]);
      continue;
    }
    MidStart& start = starts[i];
    start.hinge = true;
    start.hinge_angle = range.clamped[i];
    start.rotation = kept[i] != 0 ? rotations[i] : Lane(clamp.rotation, i);
    start.clamped = kept[i] == 0 && clamp.clamped[i] != 0;
  }
}
