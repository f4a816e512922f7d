// The substeps of StepDynamicsJob::Run (ik/dynamics/dynamics.h): the
// colliders prepared once per step, then per substep and joint, parent
// before child, Verlet, the pull to the animated pose, the length
// correction and the push-out of the colliders.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <limits>

#include "absl/numeric/bits.h"
#include "dynamics/dynamics_internal.h"
#include "ik/base/validate.h"

namespace ik::dynamics_internal {

// PushOut (dynamics_internal.h): `shifted`, a joint's position in the
// colliders' frame, pushed out of each collider of `candidates` in order
// (PushOutOfCollider); `parent` in the same frame. The colliders left out are
// beyond the joint's reach (Clearance), where PushOutOfCollider would leave it
// alone. Out of line: contacts are the uncommon case.
Vec3 PushOut(absl::Span<const Collider> colliders, ColliderSet candidates,
             const PreparedJoint& joint, const Vec3& parent, Vec3 shifted) {
  for (; candidates != 0; candidates &= candidates - 1) {
    PushOutOfCollider(colliders[absl::countr_zero(candidates)], joint.radius,
                      parent, joint.length, &shifted);
  }
  return shifted;
}

// The length correction's rare case, out of line: a joint on its parent
// takes the animated bone's direction (else straight down).
Vec3 CorrectDegenerateLength(const PreparedJoint& joint,
                             const Transform* animated, int i,
                             const Vec3& parent) {
  Vec3 offset = animated[i].translation - animated[joint.parent].translation;
  double offset_sq = glm::dot(offset, offset);
  if (!(offset_sq >= kMinDirectionSquared)) {
    offset = Vec3(0.0, -1.0, 0.0);
    offset_sq = 1.0;
  }
  return parent + offset * ((joint.length / offset_sq) * std::sqrt(offset_sq));
}

namespace {

// Relative slack on the clearance, for rounding.
constexpr double kClearanceSlack = 1e-9;

// How close a joint must get to the root for it to possibly touch
// `collider`: in the colliders' frame the root stays at its animated
// position a_0 for the whole step, and joint i stays within its path length
// P_i (the sum of the bone lengths up from it) of the root, so it can only
// touch the collider when P_i + radius_i (PreparedJoint::reach) exceeds
// this clearance, distance(a_0, segment) - collider radius (less a little
// slack).
double Clearance(const Collider& collider, const Vec3& root) {
  const double distance = glm::length(
      root - ClosestPointOnSegment(root, collider.start, collider.end));
  return (distance - collider.radius) - kClearanceSlack * (1.0 + distance);
}

// Which of a pair of colliders a joint of `joint_radius` at `point`
// overlaps (up to rounding; PushOutOfCollider decides exactly), as lane
// bits: the closest point of a collider's segment is start + axis t, t =
// clamp((point - start).axis / |axis|^2, 0, 1).
inline unsigned OverlapBits(const OverlapPair& pair, const Vec3& point,
                            double joint_radius) {
  const Lanes w_x = Splat(point.x) - pair.start_x;
  const Lanes w_y = Splat(point.y) - pair.start_y;
  const Lanes w_z = Splat(point.z) - pair.start_z;
  const Lanes t = AtMostOne(
      AtLeastZero((w_x * pair.axis_x + w_y * pair.axis_y + w_z * pair.axis_z) *
                  pair.inverse_axis_sq));
  const Lanes gap_x = w_x - pair.axis_x * t;
  const Lanes gap_y = w_y - pair.axis_y * t;
  const Lanes gap_z = w_z - pair.axis_z * t;
  const Lanes reach = pair.radius + Splat(joint_radius);
  return LaneBits(gap_x * gap_x + gap_y * gap_y + gap_z * gap_z <
                  reach * reach);
}

// What every joint of a substep shares: `shift` carries the stiffness
// targets and the colliders with the root within a step, `wind` is the
// wind's acceleration, `dt_sq` the substep squared.
struct SubstepShared {
  Vec3 shift{0.0};
  Vec3 wind{0.0};
  double dt_sq = 0.0;
};

// Verlet with gravity normal to the bone (u = parent -> joint), then the
// pull towards the animated position. `current` and `previous` are the
// joint's positions, `parent_previous` its parent's at the start of the
// substep.
inline Vec3 PredictPosition(const PreparedJoint& joint,
                            const SubstepShared& shared, const Vec3& current,
                            const Vec3& previous, const Vec3& parent_previous,
                            const Vec3& animated_translation) {
  const Vec3& gravity = joint.gravity;
  const Vec3 bone = current - parent_previous;
  const double bone_sq = glm::dot(bone, bone);
  const Vec3 normal_gravity =
      bone_sq >= kMinDirectionSquared
          ? gravity - (glm::dot(gravity, bone) / bone_sq) * bone
          : gravity;
  Vec3 next = current + (current - previous) * joint.keep +
              (normal_gravity + shared.wind * joint.wind_scale) * shared.dt_sq;
  if (joint.stiffness != 0.0) {
    next += ((animated_translation + shared.shift) - next) * joint.stiffness;
  }
  return next;
}

// Length correction from the parent. The offset is scaled by (length /
// |offset|^2) * |offset| rather than length / |offset|, so that its square
// root and division run side by side rather than one after the other.
inline Vec3 CorrectLength(const PreparedJoint& joint, const Transform* animated,
                          int i, const Vec3& parent, const Vec3& next) {
  const Vec3 offset = next - parent;
  const double offset_sq = glm::dot(offset, offset);
  if (!(offset_sq >= kMinDirectionSquared)) {
    return CorrectDegenerateLength(joint, animated, i, parent);
  }
  return parent + offset * ((joint.length / offset_sq) * std::sqrt(offset_sq));
}

// Collisions with the colliders `near` the joint, in the colliders' frame
// (they are given at the end of the step; `shift` takes them back to this
// substep). The overlap tests come first, two colliders at a time (a pair
// with one collider near tests both; the other's bit is dropped), and the
// push-out, out of line, only on contact: in the common case `next` does
// not wait for the tests.
inline Vec3 CollideNear(const PreparedColliders& colliders, ColliderSet near,
                        const PreparedJoint& joint, const Vec3& parent,
                        const Vec3& shift, const Vec3& next) {
  const Vec3 shifted = next - shift;
  ColliderSet touching = 0;
  for (ColliderSet rest = near; rest != 0;) {
    const int pair = absl::countr_zero(rest) >> 1;
    rest &= ~(ColliderSet{3} << (2 * pair));
    touching |=
        ColliderSet{OverlapBits(colliders.pairs[pair], shifted, joint.radius)}
        << (2 * pair);
  }
  if ((touching & near) == 0) return next;
  return PushOut(colliders.colliders, near, joint, parent - shift, shifted) +
         shift;
}

// Substep with the follow-the-leader velocity correction (DynamicChain::
// follow_the_leader): as SubstepJoints, and each joint's length correction
// d (corrected minus predicted position) is collected per parent; once
// every joint has moved, a parent's Verlet history moves by s times the
// mean d of its children, which takes s d / dt out of its velocity (the
// history, not the position, so the bones keep their lengths).
void SubstepFollowingTheLeader(const ChainView& chain,
                               const Transform* animated,
                               const PreparedColliders& colliders,
                               const SubstepShared& shared,
                               DynamicState* state) {
  Vec3* const positions = state->positions.data();
  Vec3* const previous = state->previous_positions.data();
  const PreparedJoint* const joints = chain.joints;
  const int count = chain.count;
  std::array<Vec3, kMaxDynamicJoints> corrections;
  std::array<int, kMaxDynamicJoints> children;
  corrections.fill(Vec3(0.0));
  children.fill(0);
  for (int i = 1; i < count; ++i) {
    const PreparedJoint& joint = joints[i];
    const Vec3 current = positions[i];
    const Vec3 predicted =
        PredictPosition(joint, shared, current, previous[i],
                        previous[joint.parent], animated[i].translation);
    const Vec3 parent = positions[joint.parent];
    Vec3 next = CorrectLength(joint, animated, i, parent, predicted);
    corrections[joint.parent] += next - predicted;
    ++children[joint.parent];
    if (const ColliderSet near = colliders.candidates[i]; near != 0) {
      next = CollideNear(colliders, near, joint, parent, shared.shift, next);
    }
    previous[i] = current;
    positions[i] = next;
  }
  const double follow_the_leader = chain.chain->follow_the_leader;
  for (int i = 1; i < count; ++i) {
    if (children[i] == 0) continue;
    previous[i] += corrections[i] * (follow_the_leader / children[i]);
  }
}

// Every joint of one substep, parent before child (see the header).
//
// The joints form a dependency chain (each needs its parent's corrected
// position): the forces use the state at the start of the substep
// (explicit Verlet: the bone from the parent's old position, which
// previous[] holds once the parent has moved) and can be computed ahead;
// only the length correction and the collider tests wait for the parent.
// In a strand (kStrand: every parent the joint before) the parent's new and
// old positions are carried in registers from one joint to the next rather
// than stored and loaded again, which keeps a store-to-load round trip off
// that dependency chain.
template <bool kStrand>
void SubstepJoints(const ChainView& chain, const Transform* animated,
                   const PreparedColliders& colliders,
                   const SubstepShared& shared, DynamicState* state) {
  Vec3* const positions = state->positions.data();
  Vec3* const previous = state->previous_positions.data();
  const PreparedJoint* const joints = chain.joints;
  const int count = chain.count;
  Vec3 parent_position = positions[0];
  Vec3 parent_previous = previous[0];
  for (int i = 1; i < count; ++i) {
    const PreparedJoint& joint = joints[i];
    const Vec3 current = positions[i];
    const Vec3 parent_was = kStrand ? parent_previous : previous[joint.parent];
    Vec3 next = PredictPosition(joint, shared, current, previous[i], parent_was,
                                animated[i].translation);
    const Vec3 parent = kStrand ? parent_position : positions[joint.parent];
    next = CorrectLength(joint, animated, i, parent, next);
    if (const ColliderSet near = colliders.candidates[i]; near != 0) {
      next = CollideNear(colliders, near, joint, parent, shared.shift, next);
    }
    previous[i] = current;
    positions[i] = next;
    if (kStrand) {
      parent_position = next;
      parent_previous = current;
    }
  }
}

}  // namespace

void PrepareColliders(const ChainView& chain,
                      absl::Span<const Collider> colliders, const Vec3& root,
                      PreparedColliders* prepared) {
  const int count = chain.count;
  ColliderSet* const candidates = prepared->candidates;
  std::fill(candidates, candidates + count, ColliderSet{0});
  prepared->colliders = colliders;
  if (colliders.empty()) return;
  const PreparedJoint* const joints = chain.joints;
  for (size_t c = 0; c < colliders.size(); ++c) {
    const Collider& collider = colliders[c];
    OverlapTest& test = prepared->tests[c];
    test.start = collider.start;
    test.axis = collider.end - collider.start;
    // A segment too short to invert its squared length (under about 1e-154
    // m) is tested as a sphere about its start.
    const double axis_sq = glm::dot(test.axis, test.axis);
    test.inverse_axis_sq =
        axis_sq >= std::numeric_limits<double>::min() ? 1.0 / axis_sq : 0.0;
    test.radius = collider.radius;
    const double clearance = Clearance(collider, root);
    const ColliderSet bit = ColliderSet{1} << c;
    for (int i = 1; i < count; ++i) {
      candidates[i] |= joints[i].reach > clearance ? bit : 0;
    }
  }
  for (size_t c = 0; c < colliders.size(); c += 2) {
    const OverlapTest& a = prepared->tests[c];
    const OverlapTest& b =
        prepared->tests[c + 1 < colliders.size() ? c + 1 : c];
    OverlapPair& pair = prepared->pairs[c / 2];
    pair.start_x = Pair(a.start.x, b.start.x);
    pair.start_y = Pair(a.start.y, b.start.y);
    pair.start_z = Pair(a.start.z, b.start.z);
    pair.axis_x = Pair(a.axis.x, b.axis.x);
    pair.axis_y = Pair(a.axis.y, b.axis.y);
    pair.axis_z = Pair(a.axis.z, b.axis.z);
    pair.inverse_axis_sq = Pair(a.inverse_axis_sq, b.inverse_axis_sq);
    pair.radius = Pair(a.radius, b.radius);
  }
}

void Substep(const ChainView& chain, const Transform* animated,
             const PreparedColliders& colliders, const Vec3& root,
             const Vec3& wind, DynamicState* state) {
  Vec3* const positions = state->positions.data();
  Vec3* const previous = state->previous_positions.data();
  SubstepShared shared;
  shared.dt_sq = chain.chain->substep * chain.chain->substep;
  shared.shift = root - animated[0].translation;
  shared.wind = wind;
  previous[0] = positions[0];
  positions[0] = root;
  if (chain.chain->follow_the_leader != 0.0) {
    SubstepFollowingTheLeader(chain, animated, colliders, shared, state);
  } else if (chain.strand) {
    SubstepJoints<true>(chain, animated, colliders, shared, state);
  } else {
    SubstepJoints<false>(chain, animated, colliders, shared, state);
  }
}

}  // namespace ik::dynamics_internal
