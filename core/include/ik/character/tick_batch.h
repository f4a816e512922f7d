// A tick of many characters of one kind in one call: for each character, its
// legs grounded, its chain goals solved and its dynamic chains stepped, on
// its own pose and in that order (what ik.v1 IkService.Tick does for a
// character), every job through one set of scratch buffers. Set-up that does
// not depend on the character (the joints dynamics reads, the buffers'
// sizes) is done once per call, and after the first call on a scratch no
// character allocates.
//
//   std::vector<ik::CharacterTick> crowd(n);  // each: pose, goals, states
//   ik::TickScratch scratch;                   // kept from tick to tick
//   ik::TickBatchJob batch;
//   batch.character = &character;
//   batch.ground = ground;
//   batch.characters = absl::MakeSpan(crowd);
//   batch.scratch = &scratch;
//   if (absl::Status status = batch.Run(); !status.ok()) return status;
//   // crowd[k].ground_status, .goals_status, .dynamics_status: each job's
#ifndef IK_CHARACTER_TICK_BATCH_H_
#define IK_CHARACTER_TICK_BATCH_H_

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "ik/base/math.h"
#include "ik/character/character.h"
#include "ik/dynamics/dynamics.h"
#include "ik/dynamics/wind_noise.h"
#include "ik/ground/grounding.h"
#include "ik/ground/terrain.h"
#include "ik/rig/solve_chain.h"

namespace ik {

struct CharacterTick;

// Told of each job of a character once it succeeded, with what the job
// left: its own answer (a job that fails is not reported; later jobs may
// turn the same joints again). Called on the thread running the batch,
// before `read_back` normalises anything.
class TickJobObserver {
 public:
  virtual ~TickJobObserver() = default;
  // After grounding: tick.feet, tick.ground_report, the legs' joints.
  virtual void Grounded(const CharacterTick& tick) = 0;
  // After goal `goal` (of tick.goals): its result and its chain's joints.
  // Goals are all or none: when a later goal fails, the goals job fails
  // (tick.goals_status) and what was reported for it no longer holds.
  virtual void GoalSolved(const CharacterTick& tick, size_t goal) = 0;
  // After dynamics: tick.dynamic_states and .dynamic_reports, and each
  // chain stepped's new local rotations (one per chain joint, the chains in
  // the order stepped, back to back).
  virtual void DynamicsStepped(const CharacterTick& tick,
                               absl::Span<const Quat> rotations) = 0;
};

// One character's share of a tick: its pose, what to do with it and where
// the answers go. Owns nothing: every span is the caller's, alive while the
// batch runs.
struct CharacterTick {
  // In/out: the pose, model -> world root and one local transform per rig
  // joint (rotations unit length). Each job works on what the one before
  // left; a job that fails leaves it as it found it.
  Transform root;
  absl::Span<Transform> locals;
  // Where root and locals came from in the caller's input: the grounding's
  // and the goals' errors about them name it ("pose: leg 'left_leg' cannot
  // be solved in this pose"). Empty: "locals" and "root".
  absl::string_view pose_path;

  // Grounding of every leg of the character on the batch's ground (or
  // `ground`, when set), first. On success the root is lowered by the
  // report's root_offset.
  bool ground_feet = false;
  const Ground* ground = nullptr;
  // Per leg in [0, 1]; empty: 1 for every leg.
  absl::Span<const double> leg_weights;
  std::optional<GroundSmoothing> smoothing;
  // Metres within which an ankle counts as having reached its goal.
  double ground_tolerance = kDefaultTolerance;
  // Outputs when ground_feet: one per leg, and the report.
  absl::Span<FootResult> feet;
  GroundFeetReport ground_report;

  // Chain goals, solved in order on the grounded pose (each goal's `path`
  // names it in errors). All or none: when one fails, the goals' joints
  // are put back as they were before the first.
  absl::Span<const ChainGoal> goals;
  // Output, one per goal.
  absl::Span<ChainSolveResult> goal_results;

  // One step of every dynamic chain of the character (Character::
  // dynamic_chains order), or of those `dynamic_chains` names (indices
  // into it, each once, in the order to step), on the pose the goals left:
  // one state each, in and out; empty: no dynamics. The chains' new local
  // rotations are written into `locals`.
  absl::Span<DynamicState> dynamic_states;
  absl::Span<const int> dynamic_chains;
  // Start every chain stepped at rest (after a cut); the states' noise
  // clocks are kept.
  bool reset_dynamics = false;
  // Wind for every chain stepped, replacing the rig's; null: the rig's.
  const WindSettings* wind = nullptr;
  // What errors about each state name, one per chain stepped; empty:
  // "dynamic_states[i]".
  absl::Span<const std::string> state_paths;
  // Output, one per dynamic chain (when dynamic_states is not empty).
  absl::Span<DynamicsReport> dynamic_reports;
  // Seconds since the previous step, finite and >= 0.
  double delta_time = 0.0;

  // As a caller chaining the single jobs' answers reads them: after each
  // job that succeeded, every local rotation it changed (by bits) is
  // divided by its norm, as ValidateTransform reads a rotation, so the next
  // job works on the bits it would get from the previous job's answer.
  bool read_back = false;
  // Told of each job that succeeded (TickJobObserver); null: nobody.
  TickJobObserver* observer = nullptr;

  // Outputs: each job's status (OK when it succeeded or did not run). Error
  // messages start with the job's field path ("pose.locals...", the goal's
  // path, "states[0]...").
  absl::Status ground_status;
  absl::Status goals_status;
  absl::Status dynamics_status;
};

// How many characters a batch runs side by side: each job for all of them
// before the next job, their two-bone solves together in SIMD lanes.
inline constexpr size_t kTickGroupCharacters = 4;

// Buffers the batch reuses for every character: keep one per thread and
// hand it to every batch it runs. Its contents mean nothing between calls.
// Per character of a group (kTickGroupCharacters) where a job's buffers
// must outlive its start.
struct TickScratch {
  // One per character of the largest group run yet (sized by Run).
  std::vector<SolveChainWorkspace> chain;
  // The goals' joints before the first goal (all-or-none).
  std::array<std::vector<Transform>, kTickGroupCharacters> goal_joints_before;
  // Per character of a group: world transforms of the joints dynamics
  // reads, on the pose after the goals (others are left stale: never read).
  std::array<std::vector<Transform>, kTickGroupCharacters> world;
  // Per character of a group: its dynamic chains' new rotations, back to
  // back.
  std::array<std::vector<Quat>, kTickGroupCharacters> rotations;
  // "dynamic_states[c]", per dynamic chain: what errors about a state name.
  std::vector<std::string> state_paths;
  // The rotations of `locals` before a job (read_back).
  std::array<std::vector<Quat>, kTickGroupCharacters> before_job;
  // 1 per leg: the weights of a character that gives none.
  std::vector<double> all_planted;
};

// Inputs and outputs of one batch. Owns nothing. Thread-compatible: batches
// with distinct characters' spans and scratches may run concurrently on one
// Character and ground.
struct TickBatchJob {
  // The kind every character of the batch is; required.
  const Character* character = nullptr;
  // Where the characters that ground their feet stand.
  Ground ground;
  // In/out; each character's jobs run in order on its own pose, in groups
  // of kTickGroupCharacters characters side by side (a job for each of the
  // group, then the next job): no two characters may share a span.
  absl::Span<CharacterTick> characters;
  // Required.
  TickScratch* scratch = nullptr;

  // INVALID_ARGUMENT for a missing character or scratch, an invalid ground
  // ("ground.meshes[0]: null"), or a character whose spans do not fit
  // ("characters[3].locals: 12 transforms for rig 'humanoid' of 28 joints",
  // ".feet", ".goal_results", ".dynamic_states", ".dynamic_reports",
  // ".dynamic_chains", ".state_paths").
  // Everything else about a character is its jobs' to check, and is
  // reported in its statuses, not here.
  absl::Status Validate() const;
  // Validates, then runs every character's jobs.
  absl::Status Run() const;
};

}  // namespace ik

#endif  // IK_CHARACTER_TICK_BATCH_H_
