// One step of the dynamic-bone simulation: secondary motion of hair, tails
// and cloth strips, as a pure function of its inputs. Verlet integration with
// drag, the length constraint and collisions by projection (Jakobsen 2001,
// "Advanced Character Physics"), gravity taken normal to the bone.
//
// The caller keeps the state between steps (a stateless service sends it
// back and forth), so any replica can run any step, and the same inputs give
// the same bits. Per step:
//  1. Start at rest in the animated pose when the state is empty, `reset` is
//     set, or the root moved further than the chain's teleport distance.
//  2. Integrate delta_time in fixed substeps of chain.substep (the remainder
//     carries over in the state; at most chain.max_substeps, excess dropped
//     and reported). During the step the root slides linearly from where the
//     last substep left it to its animated position, and the stiffness
//     targets and colliders move with it (translated by the root's offset
//     from its animated position), so long steps see the same motion as
//     short ones. Per substep, per joint, parent before child:
//       Verlet  p' = p + (p - p_prev)(1 - r) + (g_v + w s) dt²
//               (g_v: gravity normal to the bone at the substep's start;
//               w: WindAcceleration at the substep's noise time; s: the
//               joint's wind scale);
//       stiffness  p' += (animated - p') k;
//       length     p' = parent + len (p' - parent) / |p' - parent|;
//       colliders  PushOutOfCollider for each collider in order (the joint
//                  ends on the surface and keeps its length).
//  3. Turn the positions into rotations (UpdateDynamicRotations, see
//     ik/dynamics/dynamic_rotations.h): each joint turns so its bone points at
//     its simulated child, smoothed by rotation_blend, its twist about the bone
//     removed.
//
// Notes. Length correction pulls a joint towards its parent only (follow the
// leader), so a joint never feels the weight of the joints below it: with
// little drag a long chain whips (its tip can fly above the root), which drag
// and stiffness tame. Moving colliders with the root within a step is right for
// colliders attached to the character; one fixed in the world is then off by at
// most the root's travel during one substep. Callers at different rates see the
// same motion when they start from the same state (e.g. a first step with
// delta_time 0 at the same instant) and sample the same root path. Determinism:
// no fast-math, no time-based termination, fixed iteration counts, and wind
// from the seeded noise; the same binary gives the same bits.
//
//   ik::DynamicState state;  // empty: the first step starts at rest
//   ik::DynamicsReport report;
//   std::vector<ik::Quat> corrections(chain.joints.size());
//   ik::StepDynamicsJob job;
//   job.chain = &chain;
//   job.animated_world = animated;    // one transform per chain joint
//   job.colliders_world = colliders;  // placed for this step (PlaceCollider)
//   job.delta_time = 1.0 / 60.0;
//   job.state = &state;
//   job.corrections_local = absl::MakeSpan(corrections);
//   job.report = &report;
//   absl::Status status = job.Run();
//   // local_rotation[j] = animated_local_rotation[j] * corrections[j]
//
// A caller that steps the same chain every frame prepares it once
// (PreparedDynamicChain::Create, ik/dynamics/prepared_dynamic_chain.h) and
// sets job.prepared_chain instead of job.chain: each call then checks only
// what changes between calls, and gives the same bits.
#ifndef IK_DYNAMICS_H_
#define IK_DYNAMICS_H_

#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "ik/base/math.h"
#include "ik/dynamics/colliders.h"
#include "ik/dynamics/dynamic_chain.h"
#include "ik/dynamics/prepared_dynamic_chain.h"

namespace ik {

// Colliders one step accepts at most (RESOURCE_EXHAUSTED beyond).
inline constexpr int kMaxDynamicColliders = 64;

// The simulation state carried from one step to the next: plain data, one
// entry per chain joint in every vector. All empty means "no state yet"
// (the next step starts at rest). World space is the simulation's frame:
// whatever fixed frame the caller gives the animated pose and colliders in
// (world space makes the chain lag behind a moving character; model space
// works too, but then only the animation moves it).
struct DynamicState {
  // Joint positions at the last substep, world space. positions[0] is where
  // the root was then (the teleport test measures from it).
  std::vector<Vec3> positions;
  // Joint positions one substep earlier (Verlet's p_prev: the velocity is
  // positions - previous_positions per substep).
  std::vector<Vec3> previous_positions;
  // Per joint, the world-space rotation delta D currently applied on top of
  // its animated rotation (unit quaternions; identity at rest).
  std::vector<Quat> rotations;
  // Simulated time not yet integrated, seconds, in [0, chain.substep].
  double time_remainder = 0.0;
  // Clock of the wind noise, seconds, in [0, kMaxWindTime]: advances by one
  // substep per substep (wrapping to 0 past kMaxWindTime, some 31 years)
  // and survives resets.
  double noise_time = 0.0;
};

// Why a step started from rest, if it did.
enum class DynamicsReset {
  kNone,        // continued from the given state
  kEmptyState,  // the state was empty (first step)
  kRequested,   // StepDynamicsJob::reset was set
  kTeleport,    // the root moved further than chain.teleport_distance
};

struct DynamicsReport {
  int substeps = 0;      // substeps run by this step
  bool clamped = false;  // delta_time needed more than chain.max_substeps
  DynamicsReset reset = DynamicsReset::kNone;
};

// Inputs and outputs of one step. Owns nothing; Run() allocates only when it
// (re)initialises a state whose vectors have the wrong size (an empty state
// on the first step). Thread-compatible: distinct jobs may run concurrently;
// it is the caller's responsibility to keep the pointed-to data alive and
// unshared during Run().
struct StepDynamicsJob {
  // The chain; Validate() checks it too. Exactly one of `chain` and
  // `prepared_chain` is set.
  const DynamicChain* chain = nullptr;
  // The chain validated and prepared once (PreparedDynamicChain::Create),
  // for a caller that steps it many times: Validate() then checks only
  // what changes between calls. Same steps, to the bit, as `chain`.
  const PreparedDynamicChain* prepared_chain = nullptr;
  // Animated transforms of the chain's joints for this step, world space,
  // one per chain joint: [0] drives the root; the others' translations are
  // the stiffness targets and their rotations the base the output rotations
  // are applied to. Rotations unit length (within about 1e-3); coordinates
  // within +-kMaxCoordinate. Scale is not used.
  absl::Span<const Transform> animated_world;
  // Colliders for this step, world space, at most kMaxDynamicColliders
  // (joint-attached ones placed with PlaceCollider).
  absl::Span<const Collider> colliders_world;
  // Time since the previous step, seconds: finite and >= 0.
  double delta_time = 0.0;
  // Start from rest in the animated pose regardless of the state (whose
  // vectors are then not checked, only its clocks: a caller may reset a
  // state it does not trust).
  bool reset = false;

  // In and out: the state from the previous step (empty on the first),
  // replaced by the new one. Sizes must match the chain (or all be empty);
  // positions within +-kMaxCoordinate, rotations unit (within about 1e-3),
  // clocks in range.
  DynamicState* state = nullptr;
  // Where the state came from in the caller's input: errors about it name
  // "<state_path>.<field>" ("states[1].positions[2]: not finite").
  absl::string_view state_path = "state";

  // Outputs, each optional (an empty span skips it), else one per joint:
  // the new world rotation of each joint, D * animated rotation;
  absl::Span<Quat> rotations_world;
  // the correction to post-multiply into each joint's animated local
  // rotation (local = animated_local * correction); identity for leaves.
  absl::Span<Quat> corrections_local;
  // Required.
  DynamicsReport* report = nullptr;

  // INVALID_ARGUMENT naming the field ("chain: null input", "chain: set
  // chain or prepared_chain, not both", "prepared_chain: empty",
  // "chain.joints[2].length: ...",
  // "animated_world[3].rotation: not a unit quaternion (norm 0)",
  // "colliders_world[1].radius: ...", "delta_time: ...",
  // "state.positions: 3 entries for 5 joints", "state.positions[2]: not
  // finite", "corrections_local: ...", "report: null output");
  // RESOURCE_EXHAUSTED for too many joints or colliders.
  absl::Status Validate() const;
  // Validates (leaving everything untouched on error), then steps. Never
  // produces NaN for valid input. Every bone keeps its length up to
  // rounding; every joint ends outside every collider up to the capsule
  // push-out's residue (ik/dynamics/colliders.h), except where colliders
  // overlap and push it in turn (the later collider wins) or its parent lies
  // inside one.
  absl::Status Run() const;
};

// Runs `jobs` as each one's Run() would, each one's status into the same
// index of `statuses`, with the same bits; the jobs of one prepared chain
// (PreparedDynamicChain) four at a time with their substeps side by side in
// SIMD lanes (two at a time where the processor lacks AVX), for a caller
// that steps many characters' copies of a chain: the same work in fewer
// instructions. Lanes run together when their chain has no
// follow-the-leader and their steps run as many substeps with as many
// colliders; any other job runs on its own. No two jobs may share a state
// or an output. INVALID_ARGUMENT when the spans' sizes differ ("statuses: 3
// for 4 jobs") or a job is null ("jobs[2]: null"); nothing runs then.
absl::Status RunStepDynamicsJobs(absl::Span<const StepDynamicsJob* const> jobs,
                                 absl::Span<absl::Status> statuses);

}  // namespace ik

#endif  // IK_DYNAMICS_H_
