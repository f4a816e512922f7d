#include "ik/dynamics/dynamics.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>

#include "absl/numeric/bits.h"
#include "absl/status/status.h"
#include "ik/base/validate.h"
#include "ik/dynamics/dynamic_rotations.h"
#include "ik/dynamics/wind_noise.h"

namespace ik {
namespace {

// A step within this fraction of a substep of a whole number of substeps
// counts as that whole number: 1/30 s is four 1/120 s substeps even though
// neither is exact in binary.
constexpr double kSubstepRounding = 1e-9;

// How many substeps a step runs and what time it leaves over.
struct SubstepPlan {
  int substeps = 0;
  bool clamped = false;
  double remainder = 0.0;
};

SubstepPlan PlanSubsteps(double remainder, double delta_time, double substep,
                         int max_substeps) {
  const double total = remainder + delta_time;
  double count = std::floor(total / substep);
  double rest = total - count * substep;
  if (rest >= substep * (1.0 - kSubstepRounding)) {
    count += 1.0;
    rest = 0.0;
  }
  SubstepPlan plan;
  if (count > static_cast<double>(max_substeps)) {
    plan.substeps = max_substeps;
    plan.clamped = true;  // the excess time is dropped
    return plan;
  }
  plan.substeps = static_cast<int>(count);
  plan.remainder = std::max(rest, 0.0);
  return plan;
}

// Starts the chain at rest in the animated pose.
void StartAtRest(absl::Span<const Transform> animated, DynamicState* state) {
  const size_t count = animated.size();
  state->positions.resize(count);
  state->previous_positions.resize(count);
  state->rotations.assign(count, IdentityQuat());
  for (size_t i = 0; i < count; ++i) {
    state->positions[i] = animated[i].translation;
    state->previous_positions[i] = animated[i].translation;
  }
  state->time_remainder = 0.0;
}

// Colliders as a set of indices, one bit each (kMaxDynamicColliders is 64).
using ColliderSet = uint64_t;
static_assert(kMaxDynamicColliders <= 64, "ColliderSet holds 64 colliders");

// A collider prepared once per step for the per-joint overlap test: the
// point of its segment closest to p is start + axis * clamp((p - start).axis
// / |axis|^2, 0, 1), with 1 / |axis|^2 stored, so the test takes no
// division.
struct OverlapTest {
  Vec3 start;
  Vec3 axis;  // zero for a sphere
  double inverse_axis_sq;
  double radius;
};

// The colliders of one step, ready for the substeps. Spheres are tested
// apart from capsules: their test is a third of the work. No member
// initialisers: it lives on Run's stack, sized for the largest step, and
// PrepareColliders fills what the step uses.
struct PreparedColliders {
  absl::Span<const Collider> colliders;
  OverlapTest tests[kMaxDynamicColliders];
  ColliderSet spheres;
  // Per joint, the colliders it may reach during the step (see Clearance).
  ColliderSet candidates[kMaxDynamicJoints];
};

// Relative slack on the clearance, for rounding.
constexpr double kClearanceSlack = 1e-9;

// How close a joint must get to the root for it to possibly touch
// `collider`: in the colliders' frame the root stays at its animated
// position a_0 for the whole step, and joint i stays within its path length
// P_i (the sum of the bone lengths up from it) of the root, so it can only
// touch the collider when P_i + radius_i exceeds this clearance,
// distance(a_0, segment) - collider radius (less a little slack).
double Clearance(const Collider& collider, const Vec3& root) {
  const double distance = glm::length(
      root - ClosestPointOnSegment(root, collider.start, collider.end));
  return (distance - collider.radius) - kClearanceSlack * (1.0 + distance);
}

// Prepares `colliders` for a step whose root is animated at `root` (in the
// colliders' frame).
void PrepareColliders(const DynamicChain& chain,
                      absl::Span<const Collider> colliders, const Vec3& root,
                      PreparedColliders* prepared) {
  const size_t count = chain.joints.size();
  ColliderSet* const candidates = prepared->candidates;
  std::fill(candidates, candidates + count, ColliderSet{0});
  prepared->colliders = colliders;
  prepared->spheres = 0;
  if (colliders.empty()) return;
  // reach[i] = P_i + radius_i.
  const DynamicJoint* const joints = chain.joints.data();
  double path_length[kMaxDynamicJoints];
  double reach[kMaxDynamicJoints];
  path_length[0] = 0.0;
  reach[0] = 0.0;
  for (size_t i = 1; i < count; ++i) {
    path_length[i] = path_length[joints[i].parent] + joints[i].length;
    reach[i] = path_length[i] + joints[i].radius;
  }
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
    prepared->spheres |= ColliderSet{test.inverse_axis_sq == 0.0} << c;
    const double clearance = Clearance(collider, root);
    const ColliderSet bit = ColliderSet{1} << c;
    for (size_t i = 1; i < count; ++i) {
      candidates[i] |= reach[i] > clearance ? bit : 0;
    }
  }
}

// Whether a joint of `joint_radius` at `point` overlaps the collider (up to
// rounding; PushOutOfCollider decides exactly). TouchesSphere is the same
// test for a collider of zero axis.
inline bool Overlaps(const OverlapTest& test, const Vec3& point,
                     double joint_radius) {
  const Vec3 w = point - test.start;
  const double t = std::min(
      1.0, std::max(0.0, glm::dot(w, test.axis) * test.inverse_axis_sq));
  const Vec3 gap = w - test.axis * t;
  const double reach = test.radius + joint_radius;
  return glm::dot(gap, gap) < reach * reach;
}

inline bool TouchesSphere(const OverlapTest& test, const Vec3& point,
                          double joint_radius) {
  const Vec3 gap = point - test.start;
  const double reach = test.radius + joint_radius;
  return glm::dot(gap, gap) < reach * reach;
}

// `shifted`, a joint's position in the colliders' frame, pushed out of
// each collider of `candidates` in order (PushOutOfCollider); `parent` in
// the same frame. The colliders left out are beyond the joint's reach
// (Clearance), where PushOutOfCollider would leave it alone. Out of line:
// contacts are the uncommon case.
Vec3 PushOut(absl::Span<const Collider> colliders, ColliderSet candidates,
             const DynamicJoint& joint, const Vec3& parent, Vec3 shifted) {
  for (; candidates != 0; candidates &= candidates - 1) {
    PushOutOfCollider(colliders[absl::countr_zero(candidates)], joint.radius,
                      parent, joint.length, &shifted);
  }
  return shifted;
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
Vec3 PredictPosition(const DynamicChain& chain, const DynamicJoint& joint,
                     const SubstepShared& shared, const Vec3& current,
                     const Vec3& previous, const Vec3& parent_previous,
                     const Vec3& animated_translation) {
  const DynamicJointOverrides& overrides = joint.overrides;
  const Vec3& gravity =
      overrides.gravity.has_value() ? *overrides.gravity : chain.gravity;
  const Vec3 bone = current - parent_previous;
  const double bone_sq = glm::dot(bone, bone);
  const Vec3 normal_gravity =
      bone_sq >= kMinDirectionSquared
          ? gravity - (glm::dot(gravity, bone) / bone_sq) * bone
          : gravity;
  const double keep = 1.0 - overrides.drag.value_or(chain.drag);
  const double wind_scale = overrides.wind_scale.value_or(1.0);
  Vec3 next = current + (current - previous) * keep +
              (normal_gravity + shared.wind * wind_scale) * shared.dt_sq;
  const double stiffness = overrides.stiffness.value_or(chain.stiffness);
  if (stiffness != 0.0) {
    next += ((animated_translation + shared.shift) - next) * stiffness;
  }
  return next;
}

// Length correction from the parent. A joint on its parent takes the
// animated bone's direction (else straight down).
Vec3 CorrectLength(const DynamicJoint& joint, const Transform* animated,
                   size_t i, const Vec3& parent, const Vec3& next) {
  Vec3 offset = next - parent;
  double offset_sq = glm::dot(offset, offset);
  if (!(offset_sq >= kMinDirectionSquared)) {
    offset = animated[i].translation - animated[joint.parent].translation;
    offset_sq = glm::dot(offset, offset);
    if (!(offset_sq >= kMinDirectionSquared)) {
      offset = Vec3(0.0, -1.0, 0.0);
      offset_sq = 1.0;
    }
  }
  return parent + offset * ((joint.length / offset_sq) * std::sqrt(offset_sq));
}

// Collisions with the colliders `near` the joint, in the colliders' frame
// (they are given at the end of the step; `shift` takes them back to this
// substep). The overlap tests come first and the push-out, out of line,
// only on contact: in the common case `next` does not wait for the tests.
Vec3 CollideNear(const PreparedColliders& colliders, ColliderSet near,
                 const DynamicJoint& joint, const Vec3& parent,
                 const Vec3& shift, const Vec3& next) {
  const Vec3 shifted = next - shift;
  bool touching = false;
  for (ColliderSet rest = near & colliders.spheres; rest != 0;
       rest &= rest - 1) {
    touching |= TouchesSphere(colliders.tests[absl::countr_zero(rest)], shifted,
                              joint.radius);
  }
  for (ColliderSet rest = near & ~colliders.spheres; rest != 0;
       rest &= rest - 1) {
    touching |= Overlaps(colliders.tests[absl::countr_zero(rest)], shifted,
                         joint.radius);
  }
  if (!touching) return next;
  return PushOut(colliders.colliders, near, joint, parent - shift, shifted) +
         shift;
}

// Substep with the follow-the-leader velocity correction (DynamicChain::
// follow_the_leader): as Substep, and each joint's length correction d
// (corrected minus predicted position) is collected per parent; once every
// joint has moved, a parent's Verlet history moves by s times the mean d of
// its children, which takes s d / dt out of its velocity (the history, not
// the position, so the bones keep their lengths).
void SubstepFollowingTheLeader(const DynamicChain& chain,
                               const Transform* animated,
                               const PreparedColliders& colliders,
                               const SubstepShared& shared,
                               DynamicState* state) {
  Vec3* const positions = state->positions.data();
  Vec3* const previous = state->previous_positions.data();
  const DynamicJoint* const joints = chain.joints.data();
  const size_t count = chain.joints.size();
  std::array<Vec3, kMaxDynamicJoints> corrections;
  std::array<int, kMaxDynamicJoints> children;
  corrections.fill(Vec3(0.0));
  children.fill(0);
  for (size_t i = 1; i < count; ++i) {
    const DynamicJoint& joint = joints[i];
    const Vec3 current = positions[i];
    const Vec3 predicted =
        PredictPosition(chain, joint, shared, current, previous[i],
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
  for (size_t i = 1; i < count; ++i) {
    if (children[i] == 0) continue;
    previous[i] += corrections[i] * (chain.follow_the_leader / children[i]);
  }
}

// One substep of every joint, parent before child (see the header). `root`
// is the root's position at the end of this substep, `wind` the wind's
// acceleration at that time.
//
// The joints form a dependency chain (each needs its parent's corrected
// position): the forces use the state at the start of the substep
// (explicit Verlet: the bone from the parent's old position, which
// previous[] holds once the parent has moved) and can be computed ahead;
// only the length correction and the collider tests wait for the parent.
// The length correction scales the offset by (length / |offset|^2) *
// |offset| rather than length / |offset|, so that its square root and
// division run side by side rather than one after the other.
void Substep(const DynamicChain& chain, const Transform* animated,
             const PreparedColliders& colliders, const Vec3& root,
             const Vec3& wind, DynamicState* state) {
  Vec3* const positions = state->positions.data();
  Vec3* const previous = state->previous_positions.data();
  const DynamicJoint* const joints = chain.joints.data();
  SubstepShared shared;
  shared.dt_sq = chain.substep * chain.substep;
  shared.shift = root - animated[0].translation;
  shared.wind = wind;
  previous[0] = positions[0];
  positions[0] = root;
  const size_t count = chain.joints.size();
  if (chain.follow_the_leader != 0.0) {
    SubstepFollowingTheLeader(chain, animated, colliders, shared, state);
    return;
  }
  for (size_t i = 1; i < count; ++i) {
    const DynamicJoint& joint = joints[i];
    const Vec3 current = positions[i];
    Vec3 next =
        PredictPosition(chain, joint, shared, current, previous[i],
                        previous[joint.parent], animated[i].translation);
    const Vec3 parent = positions[joint.parent];
    next = CorrectLength(joint, animated, i, parent, next);
    if (const ColliderSet near = colliders.candidates[i]; near != 0) {
      next = CollideNear(colliders, near, joint, parent, shared.shift, next);
    }
    previous[i] = current;
    positions[i] = next;
  }
}

}  // namespace

absl::Status StepDynamicsJob::Run() const {
  if (absl::Status status = Validate(); !status.ok()) return status;
  const DynamicChain& chain = *this->chain;
  DynamicsReport result;
  const Vec3 root_animated = animated_world[0].translation;
  if (reset) {
    result.reset = DynamicsReset::kRequested;
  } else if (state->positions.empty()) {
    result.reset = DynamicsReset::kEmptyState;
  } else if (!(glm::length(root_animated - state->positions[0]) <=
               chain.teleport_distance)) {
    result.reset = DynamicsReset::kTeleport;
  }
  if (result.reset != DynamicsReset::kNone) {
    StartAtRest(animated_world, state);
  }

  const SubstepPlan plan = PlanSubsteps(state->time_remainder, delta_time,
                                        chain.substep, chain.max_substeps);
  result.substeps = plan.substeps;
  result.clamped = plan.clamped;
  // The root slides from where the last substep left it to its animated
  // position over the time the substeps cover.
  const Vec3 root_start = state->positions[0];
  const Vec3 root_travel = root_animated - root_start;
  const double covered = plan.clamped ? plan.substeps * chain.substep
                                      : state->time_remainder + delta_time;
  // Collision culling (see Clearance), on the stack: at most
  // kMaxDynamicColliders colliders and kMaxDynamicJoints joints.
  PreparedColliders colliders;
  PrepareColliders(chain, colliders_world, root_animated, &colliders);
  // A steady wind (no turbulence, or no wind) is the same at every substep.
  const bool steady_wind =
      chain.wind.turbulence == 0.0 || chain.wind.strength == 0.0;
  const Vec3 steady =
      steady_wind ? WindAcceleration(chain.wind, 0.0) : Vec3(0.0);
  for (int k = 0; k < plan.substeps; ++k) {
    const double fraction = std::min(1.0, (k + 1) * chain.substep / covered);
    state->noise_time += chain.substep;
    if (state->noise_time > kMaxWindTime) state->noise_time -= kMaxWindTime;
    Substep(
        chain, animated_world.data(), colliders,
        root_start + root_travel * fraction,
        steady_wind ? steady : WindAcceleration(chain.wind, state->noise_time),
        state);
  }
  state->time_remainder = plan.remainder;
  UpdateDynamicRotations(chain, animated_world, state->positions, plan.substeps,
                         absl::MakeSpan(state->rotations), rotations_world,
                         corrections_local);
  *report = result;
  return absl::OkStatus();
}

}  // namespace ik
