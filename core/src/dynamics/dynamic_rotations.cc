#include "ik/dynamics/dynamic_rotations.h"

#include <algorithm>
#include <cmath>

#include "dynamics/dynamics_internal.h"
#include "ik/base/trig.h"
#include "ik/base/validate.h"

namespace ik {
namespace {

using dynamics_internal::ChainView;
using dynamics_internal::PreparedJoint;

// The unit direction of `v`, or zero when it has none.
Vec3 UnitOrZero(const Vec3& v) {
  const double length_sq = glm::dot(v, v);
  return length_sq >= kMinDirectionSquared ? v / std::sqrt(length_sq)
                                           : Vec3(0.0);
}

using dynamics_internal::kUnitSlack;

// Square roots and divisions dominate this stage (it runs once per step for
// every joint), so quaternions stay unnormalised between the operations and
// are normalised once, with one square root and one division.
Quat Normalized(const Quat& q) {
  const double inverse_norm = 1.0 / std::sqrt(glm::dot(q, q));
  return Quat(q.w * inverse_norm, q.x * inverse_norm, q.y * inverse_norm,
              q.z * inverse_norm);
}

// Whether `q` is unit length to rounding (as every delta this function
// stores is; a caller-supplied one is only within 1e-3).
inline bool IsUnit(const Quat& q) {
  return std::abs(glm::dot(q, q) - 1.0) <= kUnitSlack;
}

// `q` when it is unit length to rounding, else normalised.
Quat UnitOrNormalized(const Quat& q) { return IsUnit(q) ? q : Normalized(q); }

// The shortest arc turning `from` into `to` (neither need be unit), scaled:
// (|a||b| + a.b, a x b), as FromTo (ik/base/math.h) computes before
// normalising, with its squared norm in `*norm_sq`; `lengths` = |a||b|, which
// the caller knows early. Zero-length and (nearly) opposite directions take
// FromTo's careful path (unit, *norm_sq = 1).
inline Quat ScaledShortestArc(const Vec3& from, const Vec3& to, double lengths,
                              double* norm_sq) {
  const double w = lengths + glm::dot(from, to);
  if (!(w > kOppositeThreshold * lengths) ||
      !(lengths >= kMinDirectionSquared)) {
    *norm_sq = 1.0;
    return FromTo(from, to);
  }
  const Vec3 axis = glm::cross(from, to);
  *norm_sq = w * w + glm::dot(axis, axis);
  return Quat(w, axis.x, axis.y, axis.z);
}

// 1 - (1 - blend)^substeps: `substeps` per-substep blends compounded.
double CompoundBlend(double blend, int substeps) {
  if (substeps == 0) return 0.0;
  if (blend == 1.0 || blend == 0.0) return blend;
  return 1.0 - Pow(1.0 - blend, substeps);
}

// What UpdateDelta needs of one joint. Every field is set before use.
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
// (With blend 1 and twist removal that is the shortest arc from a to s,
// which UpdateDynamicRotations computes directly.)
Quat UpdateDelta(const DeltaInput& in) {
  const Quat old = UnitOrNormalized(in.stored);
  // Nothing to blend or remove: the delta as stored, bit for bit (normalising
  // a unit quaternion again can move its last bit).
  if (in.blend == 0.0 && !in.remove_twist) return old;
  Quat delta = old;
  if (in.blend != 0.0) {
    double norm_sq;
    // |D a| = |a|: D is unit.
    const Quat turn =
        ScaledShortestArc(old * in.axis, in.simulated, in.lengths, &norm_sq);
    const double norm = std::sqrt(norm_sq);
    // lerp(identity, turn / norm, blend), times norm. turn.w >= 0, so the
    // blend never passes through zero.
    const Quat blended((1.0 - in.blend) * norm + in.blend * turn.w,
                       in.blend * turn.x, in.blend * turn.y, in.blend * turn.z);
    delta = blended * old;
  }
  if (in.remove_twist) {
    // Swing-twist about a (ik/base/joint_limits.h defines it): the twist is
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

// Per joint: the direction to its child (or the sum of the unit directions
// to its children), animated and simulated, and the number of children.
// On the stack: the chain has at most kMaxDynamicJoints joints.
struct BoneDirections {
  Vec3 animated[kMaxDynamicJoints];
  Vec3 simulated[kMaxDynamicJoints];
  int children[kMaxDynamicJoints];
};

// Fills `*directions` for the `count` joints (filled in place: it is large).
void GatherBoneDirections(const PreparedJoint* joints, int count,
                          const Transform* animated, const Vec3* positions,
                          BoneDirections* directions) {
  Vec3* const animated_direction = directions->animated;
  Vec3* const simulated_direction = directions->simulated;
  int* const children = directions->children;
  std::fill(children, children + count, 0);
  for (int j = 1; j < count; ++j) {
    const int parent = joints[j].parent;
    const Vec3 animated_bone =
        animated[j].translation - animated[parent].translation;
    const Vec3 simulated_bone = positions[j] - positions[parent];
    if (children[parent] == 0) {
      // One child needs no normalisation (FromTo takes any length).
      animated_direction[parent] = animated_bone;
      simulated_direction[parent] = simulated_bone;
    } else {
      if (children[parent] == 1) {
        animated_direction[parent] = UnitOrZero(animated_direction[parent]);
        simulated_direction[parent] = UnitOrZero(simulated_direction[parent]);
      }
      animated_direction[parent] += UnitOrZero(animated_bone);
      simulated_direction[parent] += UnitOrZero(simulated_bone);
    }
    ++children[parent];
  }
}

// The joints left to UpdateDelta, in order, with their compounded blends.
struct GeneralJoints {
  double blends[kMaxDynamicJoints];
  int index[kMaxDynamicJoints];
  int count = 0;
};

// The common case, blend 1 with twist removal (D becomes the shortest arc
// from a to s), in a loop of its own, kept small so that the square roots
// and divisions of neighbouring joints overlap. Collects the other joints
// with children into `*general`.
void UpdateShortestArcDeltas(const ChainView& chain, int substeps,
                             const BoneDirections& directions, Quat* deltas,
                             GeneralJoints* general) {
  const int count = chain.count;
  const PreparedJoint* const joints = chain.joints;
  const double chain_blend =
      CompoundBlend(chain.chain->rotation_blend, substeps);
  for (int i = 0; i < count; ++i) {
    if (directions.children[i] == 0) continue;
    const PreparedJoint& joint = joints[i];
    const double blend = joint.own_rotation_blend
                             ? CompoundBlend(joint.rotation_blend, substeps)
                             : chain_blend;
    const Vec3& axis = directions.animated[i];
    const double axis_sq = glm::dot(axis, axis);
    if (blend == 1.0 && axis_sq >= kMinDirectionSquared && joint.remove_twist) {
      const Vec3& simulated = directions.simulated[i];
      double norm_sq;
      const Quat arc = ScaledShortestArc(
          axis, simulated, std::sqrt(axis_sq * glm::dot(simulated, simulated)),
          &norm_sq);
      deltas[i] = arc * (1.0 / std::sqrt(norm_sq));
    } else {
      general->blends[general->count] = blend;
      general->index[general->count++] = i;
    }
  }
}

// UpdateDelta for the joints UpdateShortestArcDeltas left.
void UpdateGeneralDeltas(const ChainView& chain,
                         const BoneDirections& directions,
                         const GeneralJoints& general, Quat* deltas) {
  for (int k = 0; k < general.count; ++k) {
    const int i = general.index[k];
    const Vec3& axis = directions.animated[i];
    const double axis_sq = glm::dot(axis, axis);
    if (!(axis_sq >= kMinDirectionSquared)) {
      // No animated bone direction to turn from: keep the delta.
      deltas[i] = UnitOrNormalized(deltas[i]);
      continue;
    }
    DeltaInput in;
    in.stored = deltas[i];
    in.axis = axis;
    in.axis_sq = axis_sq;
    in.simulated = directions.simulated[i];
    in.lengths = std::sqrt(axis_sq * glm::dot(in.simulated, in.simulated));
    in.blend = general.blends[k];
    in.remove_twist = chain.joints[i].remove_twist;
    deltas[i] = UpdateDelta(in);
  }
}

// One joint's outputs from its delta, its parent's (identity for the
// root: its parent is not simulated) and its animated rotation.
inline void WriteJoint(const Quat& delta, const Quat& parent_delta, bool root,
                       const Quat& given_rotation, Quat* rotation_out,
                       Quat* correction_out) {
  const Quat animated_rotation =
      IsUnit(given_rotation) ? given_rotation : Normalized(given_rotation);
  if (rotation_out != nullptr) *rotation_out = delta * animated_rotation;
  if (correction_out != nullptr) {
    const Quat relative = root ? delta : glm::conjugate(parent_delta) * delta;
    // R^-1 * relative * R only turns relative's axis (by R^-1).
    const Vec3 axis_local = glm::conjugate(animated_rotation) *
                            Vec3(relative.x, relative.y, relative.z);
    *correction_out =
        Quat(relative.w, axis_local.x, axis_local.y, axis_local.z);
  }
}

// Gives the leaves their parent's delta, then writes the outputs the caller
// asked for (a null output is skipped).
void WriteRotations(const ChainView& chain, const Transform* animated,
                    const int* children, Quat* deltas, Quat* rotations_out,
                    Quat* corrections_out) {
  const int count = chain.count;
  const PreparedJoint* const joints = chain.joints;
  for (int i = 0; i < count; ++i) {
    const int parent = joints[i].parent;
    if (children[i] == 0) deltas[i] = deltas[parent];
    WriteJoint(deltas[i], parent == kDynamicRoot ? deltas[i] : deltas[parent],
               parent == kDynamicRoot, animated[i].rotation,
               rotations_out == nullptr ? nullptr : rotations_out + i,
               corrections_out == nullptr ? nullptr : corrections_out + i);
  }
}

}  // namespace

namespace dynamics_internal {

Quat StrandDelta(const Transform* animated, const Vec3* positions, int i,
                 const Quat& stored) {
  const Vec3 axis = animated[i + 1].translation - animated[i].translation;
  const Vec3 simulated = positions[i + 1] - positions[i];
  const double axis_sq = glm::dot(axis, axis);
  if (!(axis_sq >= kMinDirectionSquared)) return UnitOrNormalized(stored);
  double norm_sq;
  const Quat arc = ScaledShortestArc(
      axis, simulated, std::sqrt(axis_sq * glm::dot(simulated, simulated)),
      &norm_sq);
  return arc * (1.0 / std::sqrt(norm_sq));
}

void WriteJointOutputs(const Quat& delta, const Quat& parent_delta, bool root,
                       const Quat& given_rotation, Quat* rotation_out,
                       Quat* correction_out) {
  WriteJoint(delta, parent_delta, root, given_rotation, rotation_out,
             correction_out);
}

void UpdateRotations(const ChainView& chain, const Transform* animated,
                     const Vec3* positions, int substeps, Quat* deltas,
                     Quat* rotations_out, Quat* corrections_out) {
  if (chain.strand && chain.shortest_arc && substeps > 0) {
    UpdateStrandShortestArcs(chain.count, animated, positions, deltas,
                             rotations_out, corrections_out);
    return;
  }
  BoneDirections directions;
  GatherBoneDirections(chain.joints, chain.count, animated, positions,
                       &directions);
  // The joints' deltas do not depend on each other: the common case first,
  // the other joints with children next, then the leaves (no child, hence
  // no joint's parent) as the outputs are written.
  GeneralJoints general;
  UpdateShortestArcDeltas(chain, substeps, directions, deltas, &general);
  UpdateGeneralDeltas(chain, directions, general, deltas);
  WriteRotations(chain, animated, directions.children, deltas, rotations_out,
                 corrections_out);
}

}  // namespace dynamics_internal

void UpdateDynamicRotations(const DynamicChain& chain,
                            absl::Span<const Transform> animated_world,
                            absl::Span<const Vec3> positions_world,
                            int substeps, absl::Span<Quat> deltas_world,
                            absl::Span<Quat> rotations_world,
                            absl::Span<Quat> corrections_local) {
  // Plain pointers in the stages: the spans' sizes are the caller's contract
  // (see the header), and a hardened build checks every span index.
  dynamics_internal::PreparedJoint joints[kMaxDynamicJoints];
  dynamics_internal::ChainView view;
  dynamics_internal::PrepareJoints(chain, joints, &view);
  dynamics_internal::UpdateRotations(
      view, animated_world.data(), positions_world.data(), substeps,
      deltas_world.data(),
      rotations_world.empty() ? nullptr : rotations_world.data(),
      corrections_local.empty() ? nullptr : corrections_local.data());
}

}  // namespace ik
