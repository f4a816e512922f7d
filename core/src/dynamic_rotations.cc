#include "ik/dynamic_rotations.h"

#include <algorithm>
#include <cmath>

namespace ik {
namespace {

// Squared lengths below this count as zero (no usable direction).
constexpr double kMinDirectionSquared = 1e-24;

// The unit direction of `v`, or zero when it has none.
Vec3 UnitOrZero(const Vec3& v) {
  const double length_sq = glm::dot(v, v);
  return length_sq >= kMinDirectionSquared ? v / std::sqrt(length_sq)
                                           : Vec3(0.0);
}

// Below this, w = |a||b| + a.b of a shortest arc is too small a fraction of
// |a||b| to give an axis (a and b nearly opposite): FromTo's careful path.
constexpr double kOppositeThreshold = 1e-12;
// Stored deltas this close to unit squared norm are used as they are.
constexpr double kUnitSlack = 1e-12;

// Square roots and divisions dominate this stage (it runs once per step for
// every joint), so quaternions stay unnormalised between the operations and
// are normalised once, with one square root and one division.
Quat Normalized(const Quat& q) {
  const double inverse_norm = 1.0 / std::sqrt(glm::dot(q, q));
  return Quat(q.w * inverse_norm, q.x * inverse_norm, q.y * inverse_norm,
              q.z * inverse_norm);
}

// `q` when it is unit length to rounding (as every delta this function
// stores is), else normalised (a caller-supplied state within 1e-3).
Quat UnitOrNormalized(const Quat& q) {
  return std::abs(glm::dot(q, q) - 1.0) <= kUnitSlack ? q : Normalized(q);
}

// The shortest arc turning `from` into `to` (neither need be unit), scaled
// by `*norm`: (|a||b| + a.b, a x b), as FromTo (ik/math.h) computes before
// normalising; `lengths` = |a||b|, which the caller knows early. Zero-length
// and (nearly) opposite directions take FromTo's careful path (unit,
// *norm = 1).
inline Quat ScaledShortestArc(const Vec3& from, const Vec3& to, double lengths,
                              double* norm) {
  const double w = lengths + glm::dot(from, to);
  if (!(w > kOppositeThreshold * lengths) ||
      !(lengths >= kMinDirectionSquared)) {
    *norm = 1.0;
    return FromTo(from, to);
  }
  const Vec3 axis = glm::cross(from, to);
  *norm = std::sqrt(w * w + glm::dot(axis, axis));
  return Quat(w, axis.x, axis.y, axis.z);
}

// 1 - (1 - blend)^substeps: `substeps` per-substep blends compounded.
double CompoundBlend(double blend, int substeps) {
  if (substeps == 0) return 0.0;
  if (blend == 1.0 || blend == 0.0) return blend;
  return 1.0 - std::pow(1.0 - blend, substeps);
}

// What UpdateDelta needs of one joint; every field but `stored` depends on
// the positions only, so it is known before any delta is computed. Every
// field is set before use.
struct DeltaInput {
  Quat stored;     // the delta from the last step
  Vec3 axis;       // a, the animated direction
  double axis_sq;  // |a|^2 > 0
  Vec3 simulated;  // s, the simulated direction
  double lengths;  // |a| |s|
  double blend;
  bool remove_twist;
};

// One joint's new delta (see the header): D' = swing about a of
// lerp(identity, turn, blend) * D, turn the shortest arc from D a to s.
inline Quat UpdateDelta(const DeltaInput& in) {
  if (in.blend == 1.0 && in.remove_twist) {
    // The swing about a of FromTo(D a, s) * D is the shortest arc from a to
    // s: the general path below, in one step.
    double norm;
    const Quat arc =
        ScaledShortestArc(in.axis, in.simulated, in.lengths, &norm);
    return arc * (1.0 / norm);
  }
  const Quat old = UnitOrNormalized(in.stored);
  Quat delta = old;
  if (in.blend != 0.0) {
    double norm;
    // |D a| = |a|: D is unit.
    const Quat turn =
        ScaledShortestArc(old * in.axis, in.simulated, in.lengths, &norm);
    // lerp(identity, turn / norm, blend), times norm. turn.w >= 0, so the
    // blend never passes through zero.
    const Quat blended((1.0 - in.blend) * norm + in.blend * turn.w,
                       in.blend * turn.x, in.blend * turn.y, in.blend * turn.z);
    delta = blended * old;
  }
  if (in.remove_twist) {
    // Swing-twist about a (ik/joint_limits.h defines it): the twist is
    // (w, (v.a) a / |a|^2) up to scale; the swing is delta * twist^-1 up to
    // scale. A twist of (almost) zero norm means delta turns a half round:
    // all swing.
    const double along =
        glm::dot(Vec3(delta.x, delta.y, delta.z), in.axis) / in.axis_sq;
    const Quat twist(delta.w, along * in.axis.x, along * in.axis.y,
                     along * in.axis.z);
    if (glm::dot(twist, twist) >=
        kMinDirectionSquared * glm::dot(delta, delta)) {
      delta = delta * glm::conjugate(twist);
    }
  }
  return Normalized(delta);
}

}  // namespace

void UpdateDynamicRotations(const DynamicChain& chain,
                            absl::Span<const Transform> animated_world,
                            absl::Span<const Vec3> positions_world,
                            int substeps, absl::Span<Quat> deltas_world,
                            absl::Span<Quat> rotations_world,
                            absl::Span<Quat> corrections_local) {
  const int count = static_cast<int>(chain.joints.size());
  // Per joint: the direction to its child (or the sum of the unit
  // directions to its children), animated and simulated, and the number of
  // children. On the stack: the chain has at most kMaxDynamicJoints joints.
  Vec3 animated_direction[kMaxDynamicJoints];
  Vec3 simulated_direction[kMaxDynamicJoints];
  int children[kMaxDynamicJoints];
  std::fill(children, children + count, 0);
  for (int j = 1; j < count; ++j) {
    const int parent = chain.joints[j].parent;
    const Vec3 animated =
        animated_world[j].translation - animated_world[parent].translation;
    const Vec3 simulated = positions_world[j] - positions_world[parent];
    if (children[parent] == 0) {
      // One child needs no normalisation (FromTo takes any length).
      animated_direction[parent] = animated;
      simulated_direction[parent] = simulated;
    } else {
      if (children[parent] == 1) {
        animated_direction[parent] = UnitOrZero(animated_direction[parent]);
        simulated_direction[parent] = UnitOrZero(simulated_direction[parent]);
      }
      animated_direction[parent] += UnitOrZero(animated);
      simulated_direction[parent] += UnitOrZero(simulated);
    }
    ++children[parent];
  }

  // The joints' deltas do not depend on each other, so this loop is kept
  // short: the processor then overlaps the square roots and divisions of
  // neighbouring joints. Leaves (no child, hence no joint's parent) follow
  // below.
  const double chain_blend = CompoundBlend(chain.rotation_blend, substeps);
  for (int i = 0; i < count; ++i) {
    if (children[i] == 0) continue;
    const Vec3& axis = animated_direction[i];
    const double axis_sq = glm::dot(axis, axis);
    if (!(axis_sq >= kMinDirectionSquared)) {
      // No animated bone direction to turn from: keep the delta.
      deltas_world[i] = UnitOrNormalized(deltas_world[i]);
      continue;
    }
    const DynamicJointOverrides& overrides = chain.joints[i].overrides;
    DeltaInput in;
    in.stored = deltas_world[i];
    in.axis = axis;
    in.axis_sq = axis_sq;
    in.simulated = simulated_direction[i];
    in.lengths = std::sqrt(axis_sq * glm::dot(in.simulated, in.simulated));
    in.blend = overrides.rotation_blend.has_value()
                   ? CompoundBlend(*overrides.rotation_blend, substeps)
                   : chain_blend;
    in.remove_twist = overrides.remove_twist.value_or(chain.remove_twist);
    deltas_world[i] = UpdateDelta(in);
  }

  for (int i = 0; i < count; ++i) {
    const int parent = chain.joints[i].parent;
    if (children[i] == 0) deltas_world[i] = deltas_world[parent];
    const Quat& delta = deltas_world[i];
    const Quat animated_rotation = UnitOrNormalized(animated_world[i].rotation);
    if (!rotations_world.empty()) {
      rotations_world[i] = delta * animated_rotation;
    }
    if (!corrections_local.empty()) {
      const Quat relative = parent == kDynamicRoot
                                ? delta
                                : glm::conjugate(deltas_world[parent]) * delta;
      // R^-1 * relative * R only turns relative's axis (by R^-1).
      const Vec3 axis_local = glm::conjugate(animated_rotation) *
                              Vec3(relative.x, relative.y, relative.z);
      corrections_local[i] =
          Quat(relative.w, axis_local.x, axis_local.y, axis_local.z);
    }
  }
}

}  // namespace ik
