#include "ik/dynamics.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "absl/numeric/bits.h"
#include "absl/status/status.h"
#include "ik/dynamic_rotations.h"
#include "ik/wind_noise.h"

namespace ik {
namespace {

// Squared lengths below this, m², count as zero (no usable direction).
constexpr double kMinDirectionSquared = 1e-24;
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

// A collider prepared once per step for the per-joint overlap test: the
// point of its segment closest to p is start + axis * clamp((p - start).axis
// / |axis|^2, 0, 1), with 1 / |axis|^2 stored (0 for a sphere, whose axis is
// zero), so the test takes no division. No member initialisers: Run keeps
// an array of kMaxDynamicColliders of them and fills only what it uses.
struct OverlapTest {
  Vec3 start;
  Vec3 axis;
  double inverse_axis_sq;
  double radius;
};

// Relative slack on the clearance, for rounding.
constexpr double kClearanceSlack = 1e-9;

OverlapTest PrepareOverlapTest(const Collider& collider) {
  OverlapTest test;
  test.start = collider.start;
  test.axis = collider.end - collider.start;
  const double axis_sq = glm::dot(test.axis, test.axis);
  test.inverse_axis_sq = axis_sq > 0.0 ? 1.0 / axis_sq : 0.0;
  test.radius = collider.radius;
  return test;
}

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

// Whether a joint of `joint_radius` at `point` overlaps the collider (up to
// rounding; PushOutOfCollider decides exactly).
inline bool Overlaps(const OverlapTest& test, const Vec3& point,
                     double joint_radius) {
  const Vec3 w = point - test.start;
  const double t = std::min(
      1.0, std::max(0.0, glm::dot(w, test.axis) * test.inverse_axis_sq));
  const Vec3 gap = w - test.axis * t;
  const double reach = test.radius + joint_radius;
  return glm::dot(gap, gap) < reach * reach;
}

// Colliders as a set of indices, one bit each (kMaxDynamicColliders is 64).
using ColliderSet = uint64_t;
static_assert(kMaxDynamicColliders <= 64, "ColliderSet holds 64 colliders");

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

// One substep of every joint, parent before child (see the header). `root`
// is the root's position at the end of this substep, `wind` the wind's
// acceleration at that time; `candidates[i]` the colliders joint i may
// reach this step.
//
// The joints form a dependency chain (each needs its parent's corrected
// position), so the latency of that chain sets the speed: the forces use
// the state at the start of the substep (explicit Verlet: the bone from the
// parent's old position, which previous[] holds once the parent has moved)
// and can be computed ahead; only the length correction and the collider
// tests wait for the parent. The length correction scales the offset by
// (length / |offset|^2) * |offset| rather than length / |offset|, so that
// its square root and division run side by side rather than one after the
// other.
void Substep(const DynamicChain& chain, absl::Span<const Transform> animated,
             absl::Span<const Collider> colliders,
             const OverlapTest* overlap_tests, const ColliderSet* candidates,
             const Vec3& root, const Vec3& wind, DynamicState* state) {
  Vec3* const positions = state->positions.data();
  Vec3* const previous = state->previous_positions.data();
  const double dt_sq = chain.substep * chain.substep;
  // Stiffness targets and colliders move with the root within a step.
  const Vec3 shift = root - animated[0].translation;
  previous[0] = positions[0];
  positions[0] = root;
  const size_t count = chain.joints.size();
  for (size_t i = 1; i < count; ++i) {
    const DynamicJoint& joint = chain.joints[i];
    const DynamicJointOverrides& overrides = joint.overrides;
    const Vec3 current = positions[i];

    // Verlet with gravity normal to the bone (u = parent -> joint).
    const Vec3& gravity =
        overrides.gravity.has_value() ? *overrides.gravity : chain.gravity;
    const Vec3 bone = current - previous[joint.parent];
    const double bone_sq = glm::dot(bone, bone);
    const Vec3 normal_gravity =
        bone_sq >= kMinDirectionSquared
            ? gravity - (glm::dot(gravity, bone) / bone_sq) * bone
            : gravity;
    const double keep = 1.0 - overrides.drag.value_or(chain.drag);
    const double wind_scale = overrides.wind_scale.value_or(1.0);
    Vec3 next = current + (current - previous[i]) * keep +
                (normal_gravity + wind * wind_scale) * dt_sq;

    // Pull towards the animated position.
    const double stiffness = overrides.stiffness.value_or(chain.stiffness);
    if (stiffness != 0.0) {
      next += ((animated[i].translation + shift) - next) * stiffness;
    }

    // Length correction from the parent. A joint on its parent takes the
    // animated bone's direction (else straight down).
    const Vec3 parent = positions[joint.parent];
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
    next = parent +
           offset * ((joint.length / offset_sq) * std::sqrt(offset_sq));

    // Collisions, in the colliders' frame (they are given at the end of the
    // step; `shift` takes them back to this substep). The overlap tests come
    // first and the push-out, out of line, only on contact: in the common
    // case `next` does not wait for the tests.
    if (const ColliderSet near = candidates[i]; near != 0) {
      const Vec3 shifted = next - shift;
      bool touching = false;
      for (ColliderSet rest = near; rest != 0; rest &= rest - 1) {
        touching |= Overlaps(overlap_tests[absl::countr_zero(rest)], shifted,
                             joint.radius);
      }
      if (touching) {
        next = PushOut(colliders, near, joint, parent - shift, shifted) + shift;
      }
    }

    previous[i] = current;
    positions[i] = next;
  }
}

// Fills `candidates` (one set per joint) with the colliders each joint may
// reach this step (see Clearance), and `overlap_tests` for the colliders.
void PrepareColliders(const DynamicChain& chain,
                      absl::Span<const Collider> colliders, const Vec3& root,
                      OverlapTest* overlap_tests, ColliderSet* candidates) {
  const size_t count = chain.joints.size();
  std::fill(candidates, candidates + count, ColliderSet{0});
  if (colliders.empty()) return;
  double clearance[kMaxDynamicColliders];
  for (size_t c = 0; c < colliders.size(); ++c) {
    overlap_tests[c] = PrepareOverlapTest(colliders[c]);
    clearance[c] = Clearance(colliders[c], root);
  }
  double path_length[kMaxDynamicJoints];
  path_length[0] = 0.0;
  for (size_t i = 1; i < count; ++i) {
    const DynamicJoint& joint = chain.joints[i];
    path_length[i] = path_length[joint.parent] + joint.length;
    const double reach = path_length[i] + joint.radius;
    ColliderSet near = 0;
    for (size_t c = 0; c < colliders.size(); ++c) {
      near |= static_cast<ColliderSet>(reach > clearance[c]) << c;
    }
    candidates[i] = near;
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
  OverlapTest overlap_tests[kMaxDynamicColliders];
  ColliderSet candidates[kMaxDynamicJoints];
  PrepareColliders(chain, colliders_world, root_animated, overlap_tests,
                   candidates);
  for (int k = 0; k < plan.substeps; ++k) {
    const double fraction = std::min(1.0, (k + 1) * chain.substep / covered);
    state->noise_time += chain.substep;
    if (state->noise_time > kMaxWindTime) state->noise_time -= kMaxWindTime;
    Substep(chain, animated_world, colliders_world, overlap_tests, candidates,
            root_start + root_travel * fraction,
            WindAcceleration(chain.wind, state->noise_time), state);
  }
  state->time_remainder = plan.remainder;
  UpdateDynamicRotations(chain, animated_world, state->positions, plan.substeps,
                         absl::MakeSpan(state->rotations), rotations_world,
                         corrections_local);
  *report = result;
  return absl::OkStatus();
}

}  // namespace ik
