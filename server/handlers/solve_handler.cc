// IkHandlers::SolveChain: a request's chain goals converted and checked
// against the call's limits (ReadGoals, as a tick character's goals are),
// then solved one after another on one pose (SolveChainJob), each answer
// converted as it is solved; other clients' calls may run between goals.
#include <cstdint>
#include <list>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "convert/solve.h"
#include "convert/values.h"
#include "handlers/character_jobs.h"
#include "handlers/handlers.h"
#include "ik/base/field_error.h"
#include "ik/rig/solve_chain.h"
#include "rpc/core_time.h"

namespace ik::server {
namespace {

// Between two goals the call yields its thread; CANCELLED or
// DEADLINE_EXCEEDED (naming goals[i]) when it was abandoned or passed its
// deadline meanwhile: such a call stops between goals (each is bounded by
// --max_work_per_character).
absl::Status YieldBeforeGoal(const CallScope& scope, size_t i) {
  scope.Yield();
  const absl::Status stopped = scope.stopped();
  if (stopped.ok()) return absl::OkStatus();
  return FieldError(stopped.code(), absl::StrCat("goals[", i, "]"),
                    "the call was cancelled or passed its deadline; "
                    "this goal and the ones after it were not solved");
}

}  // namespace

absl::Status IkHandlers::SolveChain(const v1::SolveChainRequest& request,
                                    v1::SolveChainResponse& response,
                                    const CallScope* scope) {
  // The snapshot keeps the rig alive for this call even if it is replaced or
  // deleted meanwhile; no lock is held while solving.
  absl::StatusOr<std::shared_ptr<const RigEntry>> entry =
      PinnedRig(request.rig(), request.revision());
  if (!entry.ok()) return entry.status();
  if (request.goals_size() == 0) {
    return InvalidField("goals", "at least one goal is required");
  }
  const Rig& rig = (*entry)->rig();
  absl::StatusOr<DensePose> pose = PoseFromProto(request.pose(), rig);
  if (!pose.ok()) return pose.status();
  // Not shared with the thread's other calls: a call yielding between its
  // goals may run another's SolveChain on this thread.
  std::vector<ChainGoal> goals;
  std::list<Chain> ad_hoc_chains;
  if (absl::Status status =
          ReadGoals(request.goals(), rig, limits_, ad_hoc_chains, goals);
      !status.ok()) {
    return status;
  }
  response.set_revision((*entry)->revision);

  // Scratch, fully written by each solve before it is read, so one per
  // thread serves nested calls too (about 27 KB: zeroing one per call cost
  // more than the solves of a tick character).
  thread_local SolveChainWorkspace workspace;
  ChainSolveResult result;
  SolveChainJob job;
  job.rig = &rig;
  job.root = pose->root;
  job.locals = absl::MakeSpan(pose->locals);
  job.pose_path = "pose";
  job.workspace = &workspace;
  job.result = &result;
  SolveCounters::Goals counted(&counters_);
  for (size_t i = 0; i < goals.size(); ++i) {
    if (scope != nullptr && i > 0) {
      if (absl::Status status = YieldBeforeGoal(*scope, i); !status.ok()) {
        return status;
      }
    }
    job.goal = &goals[i];
    if (absl::Status status = RunCore(job); !status.ok()) return status;
    counted.Add(result.solver, result.report.reached, result.report.iterations);
    GoalResultToProto(goals[i], rig, result, pose->locals, AnswerForm::kFull,
                      *response.add_results());
  }
  return absl::OkStatus();
}

}  // namespace ik::server
