// The lane code of UpdateStrandShortestArcs (dynamics/dynamics_internal.h),
// for a lane width D of kLanes doubles: kLanes consecutive joints of a
// strand at a time, one per lane.
//
// Every value is computed by the same IEEE operations, in the same order,
// as the one-joint-at-a-time code of dynamic_rotations.cc (the formulas of
// ScaledShortestArc, glm's quaternion product and quaternion-vector
// rotation: base/vector_lanes_kernel.h), only in lanes, so the bits are the
// same. A block where any joint needs a careful path (no animated bone, a
// bone turning back on itself, an animated rotation not unit to rounding)
// is done one joint at a time.
//
// Not a header to include anywhere else: a lane width's source file
// includes it inside an anonymous namespace of ik, after a lane width
// (base/lanes_sse2_kernel.h, base/lanes_avx_kernel.h) and
// base/vector_lanes_kernel.h. Deliberately without an include guard.

// get(i) of kLanes consecutive indices from `first`, lane by lane.
template <typename Get>
inline V3x PointsFrom(int first, Get get) {
  V3x v;
  for (int l = 0; l < kLanes; ++l) {
    const Vec3& p = get(first + l);
    v.x[l] = p.x;
    v.y[l] = p.y;
    v.z[l] = p.z;
  }
  return v;
}
template <typename Get>
inline Qx QuatsFrom(int first, Get get) {
  Qx q;
  for (int l = 0; l < kLanes; ++l) {
    const Quat& r = get(first + l);
    q.w[l] = r.w;
    q.x[l] = r.x;
    q.y[l] = r.y;
    q.z[l] = r.z;
  }
  return q;
}
inline void StoreQuats(const Qx& q, Quat* quats, int first) {
  for (int l = 0; l < kLanes; ++l) quats[first + l] = Lane(q, l);
}
// glm::dot of a quaternion with itself: (w w + x x) + (y y + z z).
inline D NormSquared(const Qx& q) {
  return (q.w * q.w + q.x * q.x) + (q.y * q.y + q.z * q.z);
}
constexpr unsigned kAllLanes = (1u << kLanes) - 1;

// Joints i .. i + kLanes - 1's deltas (StrandDelta), or false when any
// needs the careful path.
inline bool DeltasInLanes(const Transform* animated, const Vec3* positions,
                          int i, Quat* deltas) {
  const auto translation = [&](int k) -> const Vec3& {
    return animated[k].translation;
  };
  const auto position = [&](int k) -> const Vec3& { return positions[k]; };
  const V3x axis = PointsFrom(i + 1, translation) - PointsFrom(i, translation);
  const V3x simulated = PointsFrom(i + 1, position) - PointsFrom(i, position);
  const D axis_sq = Dot(axis, axis);
  const D lengths = Sqrt(axis_sq * Dot(simulated, simulated));
  const D w = lengths + Dot(axis, simulated);
  const M plain = (axis_sq >= Splat(kMinDirectionSquared)) &
                  (w > Splat(kOppositeThreshold) * lengths) &
                  (lengths >= Splat(kMinDirectionSquared));
  if (MaskBits(plain) != kAllLanes) return false;
  const V3x cross = Cross(axis, simulated);
  const D scale = Splat(1.0) / Sqrt(w * w + Dot(cross, cross));
  StoreQuats({w * scale, cross.x * scale, cross.y * scale, cross.z * scale},
             deltas, i);
  return true;
}

// Joints j .. j + kLanes - 1's outputs (WriteJointOutputs; none is the
// root), or false when any animated rotation is not unit to rounding.
inline bool OutputsInLanes(const Transform* animated, const Quat* deltas, int j,
                           Quat* rotations_out, Quat* corrections_out) {
  const auto delta_of = [&](int k) -> const Quat& { return deltas[k]; };
  const Qx rotation =
      QuatsFrom(j, [&](int k) -> const Quat& { return animated[k].rotation; });
  const D off_unit = NormSquared(rotation) - Splat(1.0);
  // std::abs(off_unit) <= kUnitSlack, as IsUnit.
  const M unit = (off_unit <= Splat(dynamics_internal::kUnitSlack)) &
                 (-off_unit <= Splat(dynamics_internal::kUnitSlack));
  if (MaskBits(unit) != kAllLanes) return false;
  const Qx delta = QuatsFrom(j, delta_of);
  if (rotations_out != nullptr) {
    StoreQuats(Multiply(delta, rotation), rotations_out, j);
  }
  if (corrections_out != nullptr) {
    const Qx relative = Multiply(Conjugate(QuatsFrom(j - 1, delta_of)), delta);
    const V3x axis_local =
        Rotate(Conjugate(rotation), {relative.x, relative.y, relative.z});
    StoreQuats({relative.w, axis_local.x, axis_local.y, axis_local.z},
               corrections_out, j);
  }
  return true;
}

// The deltas of joints from `i` on in blocks of kLanes while each has a
// child; returns the first joint left.
inline int StrandDeltasFrom(int i, int count, const Transform* animated,
                            const Vec3* positions, Quat* deltas) {
  for (; i + kLanes < count; i += kLanes) {
    if (DeltasInLanes(animated, positions, i, deltas)) continue;
    for (int k = i; k < i + kLanes; ++k) {
      deltas[k] =
          dynamics_internal::StrandDelta(animated, positions, k, deltas[k]);
    }
  }
  return i;
}

// The outputs of joints from `j` (>= 1) on in blocks of kLanes; returns the
// first joint left.
inline int StrandOutputsFrom(int j, int count, const Transform* animated,
                             const Quat* deltas, Quat* rotations_out,
                             Quat* corrections_out) {
  for (; j + kLanes <= count; j += kLanes) {
    if (OutputsInLanes(animated, deltas, j, rotations_out, corrections_out)) {
      continue;
    }
    for (int k = j; k < j + kLanes; ++k) {
      dynamics_internal::WriteJointOutputs(
          deltas[k], deltas[k - 1], false, animated[k].rotation,
          rotations_out == nullptr ? nullptr : rotations_out + k,
          corrections_out == nullptr ? nullptr : corrections_out + k);
    }
  }
  return j;
}
