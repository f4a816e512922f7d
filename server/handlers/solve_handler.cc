// IkHandlers::SolveChain: a request's chain goals converted, checked against
// the call's work budget, and solved one after another on one pose
// (SolveChainJob), each answer converted as it is solved. Tick characters
// solve their goals through SolveGoals too.
#include <cstdint>
#include <list>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "convert/solve.h"
#include "convert/values.h"
#include "handlers/handlers.h"
#include "ik/base/field_error.h"
#include "ik/rig/solve_chain.h"
#include "rpc/core_time.h"

namespace ik::server {
namespace {

// The work a goal may take at most: its chain's joints times its iteration
// cap (one pass for the analytic two-bone solver).
std::int64_t GoalWork(const ChainGoal& goal) {
  const Chain& chain = *goal.chain;
  const SolverKind solver =
      ResolveSolver(goal.solver.value_or(chain.solver), chain);
  const std::int64_t iterations =
      solver == SolverKind::kTwoBone
          ? 1
          : goal.max_iterations.value_or(chain.max_iterations);
  return static_cast<std::int64_t>(chain.joints.size()) * iterations;
}

// `goals` converted on `rig` into `converted`; the ad-hoc chains they
// name live in `ad_hoc_chains`, which must outlive them.
absl::Status GoalsFromProto(
    const google::protobuf::RepeatedPtrField<v1::ChainGoal>& goals,
    const Rig& rig, std::list<Chain>& ad_hoc_chains,
    std::vector<ChainGoal>& converted) {
  converted.reserve(goals.size());
  for (int i = 0; i < goals.size(); ++i) {
    absl::StatusOr<ChainGoal> goal =
        GoalFromProto(goals[i], rig, i, ad_hoc_chains);
    if (!goal.ok()) return goal.status();
    converted.push_back(*goal);
  }
  return absl::OkStatus();
}

// Between two goals the call yields its thread; CANCELLED (naming goals[i])
// when it was abandoned meanwhile: an abandoned call stops between goals
// (each is bounded by --max_work_per_call).
absl::Status YieldBeforeGoal(const CallScope& scope, size_t i) {
  scope.Yield();
  if (!scope.stopped()) return absl::OkStatus();
  return FieldError(absl::StatusCode::kCancelled,
                    absl::StrCat("goals[", i, "]"),
                    "the call was cancelled or passed its deadline; "
                    "this goal and the ones after it were not solved");
}

}  // namespace

absl::Status IkHandlers::WithinWorkBudget(
    absl::Span<const ChainGoal> goals) const {
  std::int64_t work = 0;
  for (size_t i = 0; i < goals.size(); ++i) {
    const std::int64_t goal_work = GoalWork(goals[i]);
    work += goal_work;
    if (goal_work > limits_.max_work_per_call &&
        goals[i].max_iterations.has_value()) {
      return FieldError(
          absl::StatusCode::kResourceExhausted,
          absl::StrCat("goals[", i, "].max_iterations"),
          absl::StrCat(*goals[i].max_iterations, " iterations on ",
                       goals[i].chain->joints.size(),
                       " joints exceed the "
                       "work limit of ",
                       limits_.max_work_per_call,
                       " joint-iterations per call (ikd --max_work_per_call)"));
    }
  }
  if (work <= limits_.max_work_per_call) return absl::OkStatus();
  return FieldError(
      absl::StatusCode::kResourceExhausted, "goals",
      absl::StrCat("the goals' work, ", work,
                   " joint-iterations (joints times iteration cap, summed), "
                   "exceeds the limit of ",
                   limits_.max_work_per_call,
                   " per call (ikd --max_work_per_call)"));
}

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
  absl::StatusOr<DensePose> pose =
      PoseFromProto(request.pose(), (*entry)->rig());
  if (!pose.ok()) return pose.status();
  response.set_revision((*entry)->revision);
  return SolveGoals(**entry, request.goals(), *pose, AnswerForm::kFull,
                    response.mutable_results(), scope);
}

absl::Status IkHandlers::SolveGoals(
    const RigEntry& entry,
    const google::protobuf::RepeatedPtrField<v1::ChainGoal>& goals,
    DensePose& pose, AnswerForm form,
    google::protobuf::RepeatedPtrField<v1::GoalResult>* results,
    const CallScope* scope) const {
  if (goals.size() > limits_.max_goals_per_request) {
    return FieldError(
        absl::StatusCode::kResourceExhausted, "goals",
        absl::StrCat(goals.size(), " goals exceed the limit of ",
                     limits_.max_goals_per_request, " per request"));
  }
  const Rig& rig = entry.rig();
  // Not shared with the thread's other calls: a call yielding between its
  // goals may run another's SolveGoals on this thread.
  std::vector<ChainGoal> converted;
  std::list<Chain> ad_hoc_chains;
  if (absl::Status status =
          GoalsFromProto(goals, rig, ad_hoc_chains, converted);
      !status.ok()) {
    return status;
  }
  if (absl::Status status = WithinWorkBudget(converted); !status.ok()) {
    return status;
  }

  // Scratch, fully written by each solve before it is read, so one per
  // thread serves nested calls too (about 27 KB: zeroing one per call cost
  // more than the solves of a tick character).
  thread_local SolveChainWorkspace workspace;
  ChainSolveResult result;
  SolveChainJob job;
  job.rig = &rig;
  job.root = pose.root;
  job.locals = absl::MakeSpan(pose.locals);
  job.pose_path = "pose";
  job.workspace = &workspace;
  job.result = &result;
  SolveCounters::Goals counted(&counters_);
  for (size_t i = 0; i < converted.size(); ++i) {
    const ChainGoal& goal = converted[i];
    if (scope != nullptr && i > 0) {
      if (absl::Status status = YieldBeforeGoal(*scope, i); !status.ok()) {
        return status;
      }
    }
    job.goal = &goal;
    if (absl::Status status = RunCore(job); !status.ok()) return status;
    counted.Add(result.solver, result.report.reached, result.report.iterations);
    if (results != nullptr) {
      GoalResultToProto(goal, rig, result, pose.locals, form, *results->Add());
    }
  }
  return absl::OkStatus();
}

}  // namespace ik::server
