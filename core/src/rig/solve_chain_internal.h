// Internals of SolveChainJob (ik/rig/solve_chain.h) shared by its source
// files: what validation leaves for the solve. Not part of the public API.
#ifndef IK_SRC_RIG_SOLVE_CHAIN_INTERNAL_H_
#define IK_SRC_RIG_SOLVE_CHAIN_INTERNAL_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "ik/base/math.h"
#include "ik/rig/solve_chain.h"
#include "ik/solvers/swivel.h"
#include "ik/solvers/two_bone.h"
#include "rig/two_bone_limits.h"

namespace ik::internal {

// A goal checked against its job, in the solver's terms.
struct PreparedGoal {
  SolverKind solver = SolverKind::kTwoBone;
  Vec3 target_model{0.0};
  std::optional<Vec3> pole_model;
  std::optional<Quat> orientation_world;  // normalised
};

// Everything SolveChainJob::Validate() checks (solve_chain_validate.cc),
// with what the solve needs of it.
absl::StatusOr<PreparedGoal> Prepare(const SolveChainJob& job);

// The path errors about the job's pose name: its pose_path, or "locals".
std::string LocalsPath(const SolveChainJob& job);

// The model transform of the chain's first joint under `locals`, its
// parent's being `parent_model`.
Transform ChainStartModel(const Chain& chain, const Transform& parent_model,
                          absl::Span<const Transform> locals);

// Model-space positions of the chain's joints into the workspace's
// swivel_positions.
void ChainPositions(const Chain& chain, const Transform& parent_model,
                    absl::Span<const Transform> locals,
                    SolveChainWorkspace& workspace);

// INVALID_ARGUMENT naming the job's pose: the chain's solver refused it.
absl::Status ChainRefusedPose(const SolveChainJob& job, const Chain& chain,
                              const absl::Status& status);

// FABRIK, CCD or the torque solver (`solver`) on a copy of the chain's
// joints, with the retries and the continuity rule on its last limb
// (solve_iterative.cc); the answer written back into the job's locals on
// success, its report, stop reason and solver into `answer` and the limited
// joints (bit k: chain joint k) into `mask`.
absl::Status SolveIterative(const SolveChainJob& job, SolverKind solver,
                            const Transform& parent_model,
                            const Vec3& target_model, ChainSolveResult& answer,
                            std::uint64_t& mask);

// SolveChainJob::Run in two halves about a two-bone goal's TwoBoneJob, so
// that the jobs of several goals (of several characters) can be solved
// together in SIMD lanes (internal::RunTwoBoneJobGroup): Begin, then job()
// solved (its Run or the lanes, the same bits), then Finish give Run's
// bits and status. With LimbStart::kLater the limb's solve is started
// between Begin and the job (internal::StartLimbs, rig/limb_lanes.h, with
// other goals' limbs). A goal of any other solver is solved whole by Begin.
// Not copyable or movable: the job points into it.
//
//   internal::ChainGoalSteps steps;
//   absl::Status status = steps.Begin(job);
//   if (status.ok() && steps.pending()) status =
//   steps.Finish(steps.job().Run());
class ChainGoalSteps {
 public:
  ChainGoalSteps() = default;
  ChainGoalSteps(const ChainGoalSteps&) = delete;
  ChainGoalSteps& operator=(const ChainGoalSteps&) = delete;

  // Everything before the two-bone job (for another solver, the whole
  // solve). Not OK: the goal failed, the pose as it came. `job` must stay
  // alive and unchanged until Finish.
  absl::Status Begin(const SolveChainJob& job,
                     LimbStart when = LimbStart::kNow);
  // Whether a two-bone job awaits its solve, then Finish.
  bool pending() const { return solve_.has_value(); }
  TwoBoneLimbSolve* limb() { return &*solve_; }
  const TwoBoneJob& job() const { return solve_->job(); }
  // `solved`: job()'s status. The rest of the solve and the answer into the
  // job's result; not OK: the goal failed, the pose as it came.
  absl::Status Finish(const absl::Status& solved);

 private:
  // After the solve: the answer measured and written.
  void Answer();
  // On failure: the swivel's turns undone.
  void PutBackSwivel() const;

  const SolveChainJob* job_ = nullptr;
  PreparedGoal prepared_;
  Transform parent_model_;
  Transform root_model_;
  std::optional<AngleArguments> incoming_plane_;
  Quat incoming_mid_ = IdentityQuat();  // the middle joint's incoming rotation
  std::optional<SwivelPlacement> swivel_plane_;
  ChainSolveResult answer_;
  std::uint64_t mask_ = 0;  // bit k: chain joint k held at its limit
  std::optional<TwoBoneLimbSolve> solve_;
};

// The most goals RunChainGoalGroup takes: one group of four SIMD lanes.
inline constexpr size_t kChainGoalLanes = 4;

// Runs up to kChainGoalLanes `jobs` as each one's Run() would, each one's
// status into the same index of `statuses`, with the same bits: every
// job's Begin (LimbStart::kLater) through the same index of `steps` (the
// caller's room, kept from group to group), the pending limbs started
// together (StartLimbs) and their two-bone jobs solved together
// (RunTwoBoneJobGroup), then every Finish. The jobs must share no pose,
// workspace or result.
void RunChainGoalGroup(absl::Span<const SolveChainJob* const> jobs,
                       ChainGoalSteps* steps, absl::Status* statuses);

}  // namespace ik::internal

#endif  // IK_SRC_RIG_SOLVE_CHAIN_INTERNAL_H_
