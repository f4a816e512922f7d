// IkHandlers::Work: a single call's work counted before it runs, as its
// handler counts it (ReadGoals for SolveChain; CharacterJobs counting only,
// as a tick's first pass does, for GroundFeet and StepDynamics), so that
// where the call runs is decided by its work and never by its size.
#include <cstdint>
#include <list>
#include <memory>
#include <optional>
#include <vector>

#include "handlers/character_jobs.h"
#include "handlers/handlers.h"
#include "handlers/request_ground.h"

namespace ik::server {
namespace {

// The work `add` adds to a character of `entry`'s rig counting only; 0
// when adding fails or the jobs are over the character's budget (the
// handler refuses them before they run).
template <typename Add>
std::int64_t CountedWork(const RigEntry& entry, const ServiceLimits& limits,
                         SolveCounters& counters, Add add) {
  // A pose the counting never reads or writes.
  thread_local DensePose unused;
  CharacterJobs& jobs = CharacterJobs::ForThisThread();
  jobs.Start(entry, unused, AnswerForm::kFull, /*read_back=*/false, limits,
             counters);
  jobs.CountOnly();
  if (!add(jobs).ok() || !jobs.WithinCharacterBudget().ok()) return 0;
  return jobs.work();
}

}  // namespace

std::int64_t IkHandlers::Work(const v1::SolveChainRequest& request) const {
  absl::StatusOr<std::shared_ptr<const RigEntry>> entry =
      PinnedRig(request.rig(), request.revision());
  if (!entry.ok()) return 0;
  std::list<Chain> ad_hoc_chains;
  std::vector<ChainGoal> goals;
  std::int64_t work = 0;
  if (!ReadGoals(request.goals(), (*entry)->rig(), limits_, ad_hoc_chains,
                 goals, &work)
           .ok()) {
    return 0;
  }
  return work;
}

std::int64_t IkHandlers::Work(const v1::GroundFeetRequest& request) const {
  absl::StatusOr<std::shared_ptr<const RigEntry>> entry =
      PinnedRig(request.rig(), request.revision());
  if (!entry.ok()) return 0;
  RequestGround ground;
  if (!ground.Build(request.ground(), terrains_, limits_, "ground").ok()) {
    return 0;
  }
  return CountedWork(**entry, limits_, counters_, [&](CharacterJobs& jobs) {
    return jobs.AddGrounding(request, ground, nullptr);
  });
}

std::int64_t IkHandlers::Work(const v1::StepDynamicsRequest& request) const {
  absl::StatusOr<std::shared_ptr<const RigEntry>> entry =
      PinnedRig(request.rig(), request.revision());
  if (!entry.ok()) return 0;
  // Counting only, AddDynamics writes no answer.
  thread_local v1::StepDynamicsResponse unused;
  return CountedWork(**entry, limits_, counters_, [&](CharacterJobs& jobs) {
    return jobs.AddDynamics(request, unused);
  });
}

}  // namespace ik::server
