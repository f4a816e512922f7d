// Several SolveChainJobs at once: their two-bone limbs started and solved
// side by side in SIMD lanes, each job with its own Run()'s bits.
#include <cstddef>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "base/job_spans.h"
#include "ik/rig/solve_chain.h"
#include "ik/solvers/two_bone.h"
#include "rig/limb_lanes.h"
#include "rig/solve_chain_internal.h"
#include "rig/two_bone_limits.h"
#include "solvers/two_bone_lanes.h"

namespace ik {
namespace internal {

void RunChainGoalGroup(absl::Span<const SolveChainJob* const> jobs,
                       ChainGoalSteps* steps, absl::Status* statuses) {
  TwoBoneLimbSolve* limbs[kChainGoalLanes];
  const TwoBoneJob* lanes[kChainGoalLanes];
  size_t slot[kChainGoalLanes];
  size_t pending = 0;
  for (size_t k = 0; k < jobs.size(); ++k) {
    statuses[k] = steps[k].Begin(*jobs[k], LimbStart::kLater);
    if (statuses[k].ok() && steps[k].pending()) {
      limbs[pending] = steps[k].limb();
      lanes[pending] = &steps[k].job();
      slot[pending++] = k;
    }
  }
  StartLimbs(absl::MakeConstSpan(limbs, pending));
  absl::Status solved[kChainGoalLanes];
  RunTwoBoneJobGroup(absl::MakeConstSpan(lanes, pending), solved);
  for (size_t p = 0; p < pending; ++p) {
    statuses[slot[p]] = steps[slot[p]].Finish(solved[p]);
  }
}

}  // namespace internal

namespace {

// Whether two jobs touch the same memory: a pose, a workspace or a result.
bool Share(const SolveChainJob& a, const SolveChainJob& b) {
  const bool poses_overlap =
      a.locals.data() < b.locals.data() + b.locals.size() &&
      b.locals.data() < a.locals.data() + a.locals.size();
  return poses_overlap ||
         (a.workspace != nullptr && a.workspace == b.workspace) ||
         (a.result != nullptr && a.result == b.result);
}

}  // namespace

absl::Status RunSolveChainJobs(absl::Span<const SolveChainJob* const> jobs,
                               absl::Span<absl::Status> statuses) {
  if (absl::Status status = internal::CheckJobSpans(jobs, statuses.size());
      !status.ok()) {
    return status;
  }
  // Runs of consecutive jobs that share nothing, up to a group's size: a
  // job sharing a pose, a workspace or a result with an earlier job of the
  // run starts the next run, so it sees that job's answer.
  internal::ChainGoalSteps steps[internal::kChainGoalLanes];
  size_t first = 0;
  while (first < jobs.size()) {
    size_t end = first + 1;
    while (end < jobs.size() && end - first < internal::kChainGoalLanes) {
      bool shares = false;
      for (size_t k = first; k < end && !shares; ++k) {
        shares = Share(*jobs[k], *jobs[end]);
      }
      if (shares) break;
      ++end;
    }
    internal::RunChainGoalGroup(jobs.subspan(first, end - first), steps,
                                statuses.data() + first);
    first = end;
  }
  return absl::OkStatus();
}

}  // namespace ik
