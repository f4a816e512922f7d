#include "server/handlers.h"

#include <cstdint>
#include <list>
#include <memory>
#include <utility>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "ik/base/field_error.h"
#include "ik/base/validate.h"
#include "ik/rig/solve_chain.h"
#include "server/convert/solve.h"
#include "server/convert/values.h"
#include "server/core_time.h"

namespace ik::server {
namespace {

// A name a request looks up: required, and following the name rule (so a
// name that cannot be registered is INVALID_ARGUMENT, not NOT_FOUND).
absl::Status RequireName(absl::string_view name, absl::string_view path) {
  if (name.empty()) return InvalidField(path, "required");
  return ValidateName(name, path);
}

// Register{Rig,Terrain}: registers a built entry -- after `save` wrote
// `definition` to the state store, if there is one -- and fills the answer.
template <typename Entry, typename Definition, typename Response>
absl::Status RegisterEntry(
    absl::StatusOr<std::shared_ptr<const Entry>> entry, bool replace,
    Registry<Entry>& registry, const StateStore* store,
    absl::Status (StateStore::*save)(const Definition&, absl::string_view,
                                     absl::string_view) const,
    const Definition& definition, absl::string_view path, Response& response) {
  if (!entry.ok()) return entry.status();
  const std::string revision = (*entry)->revision;
  auto registered = registry.Register(*std::move(entry), replace, [&] {
    return store == nullptr ? absl::OkStatus()
                            : (store->*save)(definition, revision, path);
  });
  if (!registered.ok()) return registered.status();
  response.set_name(registered->entry->name());
  response.set_revision(registered->entry->revision);
  response.set_created(registered->created);
  response.set_replaced(registered->replaced);
  return absl::OkStatus();
}

// Delete{Rig,Terrain}, written to the state store first (`save_deleted`).
template <typename Entry, typename Request, typename Response>
absl::Status DeleteEntry(const Request& request, Registry<Entry>& registry,
                         const StateStore* store,
                         absl::Status (StateStore::*save_deleted)(
                             absl::string_view, absl::string_view) const,
                         Response& response) {
  if (absl::Status status = RequireName(request.name(), "name"); !status.ok()) {
    return status;
  }
  absl::StatusOr<std::string> removed =
      registry.Delete({request.name(), "name", request.revision()}, [&] {
        return store == nullptr
                   ? absl::OkStatus()
                   : (store->*save_deleted)(request.name(), "name");
      });
  if (!removed.ok()) return removed.status();
  response.set_revision(*std::move(removed));
  return absl::OkStatus();
}

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

absl::StatusOr<std::shared_ptr<const RigEntry>> IkHandlers::PinnedRig(
    absl::string_view name, absl::string_view revision) const {
  if (absl::Status status = RequireName(name, "rig"); !status.ok()) {
    return status;
  }
  return registry_.Get({name, "rig", revision});
}

absl::Status IkHandlers::RegisterRig(const v1::RegisterRigRequest& request,
                                     v1::RegisterRigResponse& response) {
  if (!request.has_rig()) {
    return InvalidField("rig", "required");
  }
  return RegisterEntry(BuildRigEntry(request.rig(), limits_, "rig"),
                       request.replace(), registry_, store_,
                       &StateStore::SaveRig, request.rig(), "rig", response);
}

absl::Status IkHandlers::GetRig(const v1::GetRigRequest& request,
                                v1::GetRigResponse& response) {
  if (absl::Status status = RequireName(request.name(), "name"); !status.ok()) {
    return status;
  }
  absl::StatusOr<std::shared_ptr<const RigEntry>> entry =
      registry_.Get({request.name(), "name"});
  if (!entry.ok()) return entry.status();
  *response.mutable_rig() = (*entry)->definition;
  response.set_revision((*entry)->revision);
  return absl::OkStatus();
}

absl::Status IkHandlers::ListRigs(const v1::ListRigsRequest& /*request*/,
                                  v1::ListRigsResponse& response) {
  for (const std::shared_ptr<const RigEntry>& entry : registry_.List()) {
    v1::RigSummary* summary = response.add_rigs();
    summary->set_name(entry->rig().name());
    summary->set_revision(entry->revision);
    summary->set_joint_count(entry->rig().joint_count());
    for (const Chain& chain : entry->rig().chains()) {
      summary->add_chains(chain.name);
    }
  }
  return absl::OkStatus();
}

absl::Status IkHandlers::DeleteRig(const v1::DeleteRigRequest& request,
                                   v1::DeleteRigResponse& response) {
  return DeleteEntry<RigEntry>(request, registry_, store_,
                               &StateStore::SaveRigDeleted, response);
}

absl::Status IkHandlers::RegisterTerrain(
    const v1::RegisterTerrainRequest& request,
    v1::RegisterTerrainResponse& response) {
  if (!request.has_terrain()) {
    return InvalidField("terrain", "required");
  }
  return RegisterEntry(BuildTerrainEntry(request.terrain(), limits_, "terrain"),
                       request.replace(), terrains_, store_,
                       &StateStore::SaveTerrain, request.terrain(), "terrain",
                       response);
}

absl::Status IkHandlers::ListTerrains(
    const v1::ListTerrainsRequest& /*request*/,
    v1::ListTerrainsResponse& response) {
  for (const std::shared_ptr<const TerrainEntry>& entry : terrains_.List()) {
    v1::TerrainSummary* summary = response.add_terrains();
    summary->set_name(entry->name());
    summary->set_revision(entry->revision);
    summary->set_kind(entry->kind());
    summary->set_vertex_count(entry->vertex_count());
    summary->set_triangle_count(entry->triangle_count());
    ToProto(entry->bounds().min, summary->mutable_bounds_min());
    ToProto(entry->bounds().max, summary->mutable_bounds_max());
  }
  return absl::OkStatus();
}

absl::Status IkHandlers::DeleteTerrain(const v1::DeleteTerrainRequest& request,
                                       v1::DeleteTerrainResponse& response) {
  return DeleteEntry<TerrainEntry>(request, terrains_, store_,
                                   &StateStore::SaveTerrainDeleted, response);
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
  converted.reserve(goals.size());
  std::list<Chain> ad_hoc_chains;
  for (int i = 0; i < goals.size(); ++i) {
    absl::StatusOr<ChainGoal> goal =
        GoalFromProto(goals[i], rig, i, ad_hoc_chains);
    if (!goal.ok()) return goal.status();
    converted.push_back(*goal);
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
      scope->Yield();
      // An abandoned call stops between goals (each is bounded by
      // --max_work_per_call).
      if (scope->stopped()) {
        return FieldError(absl::StatusCode::kCancelled,
                          absl::StrCat("goals[", i, "]"),
                          "the call was cancelled or passed its deadline; "
                          "this goal and the ones after it were not solved");
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
