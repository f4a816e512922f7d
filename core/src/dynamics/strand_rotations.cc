// Positions -> rotations for the common case, a strand whose joints all take
// the shortest arc (ik/dynamics/dynamic_rotations.h), two joints at a time.
//
// Every value is computed by the same IEEE operations, in the same order,
// as the one-joint-at-a-time code of dynamic_rotations.cc (the formulas of
// ScaledShortestArc, glm's quaternion product and quaternion-vector
// rotation, spelled out below), only on a pair of lanes, one joint each: a
// lane of a sum, product, quotient or square root is the scalar operation
// on that lane, so the bits are the same. A pair where either joint needs a
// careful path (no animated bone, a bone turning back on itself, an
// animated rotation not unit to rounding) is done one joint at a time.
#include <cmath>

#include "dynamics/dynamics_internal.h"
#include "dynamics/lanes.h"
#include "ik/base/validate.h"

namespace ik::dynamics_internal {
namespace {

struct Vec3Lanes {
  Lanes x, y, z;
};
struct QuatLanes {
  Lanes w, x, y, z;
};

inline Vec3Lanes Load(const Vec3& a, const Vec3& b) {
  return {Pair(a.x, b.x), Pair(a.y, b.y), Pair(a.z, b.z)};
}
inline QuatLanes Load(const Quat& a, const Quat& b) {
  return {Pair(a.w, b.w), Pair(a.x, b.x), Pair(a.y, b.y), Pair(a.z, b.z)};
}
inline void Store(const QuatLanes& q, Quat* a, Quat* b) {
  *a = Quat(q.w[0], q.x[0], q.y[0], q.z[0]);
  *b = Quat(q.w[1], q.x[1], q.y[1], q.z[1]);
}
inline Vec3Lanes Sub(const Vec3Lanes& a, const Vec3Lanes& b) {
  return {a.x - b.x, a.y - b.y, a.z - b.z};
}
// glm::dot: (x + y) + z.
inline Lanes Dot(const Vec3Lanes& a, const Vec3Lanes& b) {
  return a.x * b.x + a.y * b.y + a.z * b.z;
}
// glm::cross.
inline Vec3Lanes Cross(const Vec3Lanes& x, const Vec3Lanes& y) {
  return {x.y * y.z - y.y * x.z, x.z * y.x - y.z * x.x, x.x * y.y - y.x * x.y};
}
// glm's p * q.
inline QuatLanes Multiply(const QuatLanes& p, const QuatLanes& q) {
  return {p.w * q.w - p.x * q.x - p.y * q.y - p.z * q.z,
          p.w * q.x + p.x * q.w + p.y * q.z - p.z * q.y,
          p.w * q.y + p.y * q.w + p.z * q.x - p.x * q.z,
          p.w * q.z + p.z * q.w + p.x * q.y - p.y * q.x};
}
inline QuatLanes Conjugate(const QuatLanes& q) {
  return {q.w, -q.x, -q.y, -q.z};
}
// glm's q * v.
inline Vec3Lanes Rotate(const QuatLanes& q, const Vec3Lanes& v) {
  const Vec3Lanes quat_vector{q.x, q.y, q.z};
  const Vec3Lanes uv = Cross(quat_vector, v);
  const Vec3Lanes uuv = Cross(quat_vector, uv);
  const Lanes two = Splat(2.0);
  return {v.x + (uv.x * q.w + uuv.x) * two, v.y + (uv.y * q.w + uuv.y) * two,
          v.z + (uv.z * q.w + uuv.z) * two};
}

// Joints i and i + 1's deltas (StrandDelta), or false when either needs the
// careful path.
bool PairDeltas(const Transform* animated, const Vec3* positions, int i,
                Quat* deltas) {
  const Vec3Lanes axis =
      Sub(Load(animated[i + 1].translation, animated[i + 2].translation),
          Load(animated[i].translation, animated[i + 1].translation));
  const Vec3Lanes simulated = Sub(Load(positions[i + 1], positions[i + 2]),
                                  Load(positions[i], positions[i + 1]));
  const Lanes axis_sq = Dot(axis, axis);
  const Lanes lengths = Sqrt(axis_sq * Dot(simulated, simulated));
  const Lanes w = lengths + Dot(axis, simulated);
  const auto plain = (axis_sq >= Splat(kMinDirectionSquared)) &
                     (w > Splat(kOppositeThreshold) * lengths) &
                     (lengths >= Splat(kMinDirectionSquared));
  if (!Both(plain)) return false;
  const Vec3Lanes cross = Cross(axis, simulated);
  const Lanes scale = Splat(1.0) / Sqrt(w * w + Dot(cross, cross));
  Store({w * scale, cross.x * scale, cross.y * scale, cross.z * scale},
        &deltas[i], &deltas[i + 1]);
  return true;
}

// glm::dot of a quaternion with itself: (w w + x x) + (y y + z z).
inline Lanes NormSquared(const QuatLanes& q) {
  return (q.w * q.w + q.x * q.x) + (q.y * q.y + q.z * q.z);
}

// Joints i and i + 1's outputs (WriteJointOutputs; neither is the root), or
// false when either animated rotation is not unit to rounding.
bool PairOutputs(const Transform* animated, const Quat* deltas, int i,
                 Quat* rotations_out, Quat* corrections_out) {
  const QuatLanes rotation =
      Load(animated[i].rotation, animated[i + 1].rotation);
  const Lanes off_unit = NormSquared(rotation) - Splat(1.0);
  // std::abs(off_unit) <= kUnitSlack, as IsUnit.
  const auto unit =
      (off_unit <= Splat(kUnitSlack)) & (-off_unit <= Splat(kUnitSlack));
  if (!Both(unit)) return false;
  const QuatLanes delta = Load(deltas[i], deltas[i + 1]);
  if (rotations_out != nullptr) {
    Store(Multiply(delta, rotation), &rotations_out[i], &rotations_out[i + 1]);
  }
  if (corrections_out != nullptr) {
    const QuatLanes relative =
        Multiply(Conjugate(Load(deltas[i - 1], deltas[i])), delta);
    const Vec3Lanes axis_local =
        Rotate(Conjugate(rotation), {relative.x, relative.y, relative.z});
    Store({relative.w, axis_local.x, axis_local.y, axis_local.z},
          &corrections_out[i], &corrections_out[i + 1]);
  }
  return true;
}

}  // namespace

void UpdateStrandShortestArcs(int count, const Transform* animated,
                              const Vec3* positions, Quat* deltas,
                              Quat* rotations_out, Quat* corrections_out) {
  // Deltas: joints 0 .. count - 2 have a child, the leaf takes its parent's.
  int i = 0;
  for (; i + 2 < count; i += 2) {
    if (!PairDeltas(animated, positions, i, deltas)) {
      deltas[i] = StrandDelta(animated, positions, i, deltas[i]);
      deltas[i + 1] = StrandDelta(animated, positions, i + 1, deltas[i + 1]);
    }
  }
  for (; i + 1 < count; ++i) {
    deltas[i] = StrandDelta(animated, positions, i, deltas[i]);
  }
  deltas[count - 1] = deltas[count - 2];
  // Outputs: the root on its own (its parent is not simulated), then pairs.
  WriteJointOutputs(deltas[0], deltas[0], true, animated[0].rotation,
                    rotations_out, corrections_out);
  const auto write_one = [&](int j) {
    WriteJointOutputs(
        deltas[j], deltas[j - 1], false, animated[j].rotation,
        rotations_out == nullptr ? nullptr : rotations_out + j,
        corrections_out == nullptr ? nullptr : corrections_out + j);
  };
  int j = 1;
  for (; j + 1 < count; j += 2) {
    if (!PairOutputs(animated, deltas, j, rotations_out, corrections_out)) {
      write_one(j);
      write_one(j + 1);
    }
  }
  if (j < count) write_one(j);
}

}  // namespace ik::dynamics_internal
