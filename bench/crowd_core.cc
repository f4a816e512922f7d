#include "crowd_core.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "convert/compact_pose.h"
#include "convert/dynamics.h"
#include "convert/ground.h"
#include "convert/solve.h"
#include "convert/values.h"
#include "state/directory_loader.h"

namespace ik::server {
namespace {

// `status` with `path` in front of its message.
absl::Status At(absl::string_view path, const absl::Status& status) {
  if (status.ok()) return status;
  return absl::Status(status.code(), absl::StrCat(path, ".", status.message()));
}

// One character of the request converted into `out` (its rig already
// found: `character`).
absl::Status ConvertCharacter(const v1::TickCharacter& in,
                              const Character& character,
                              std::list<Chain>& ad_hoc_chains,
                              CrowdCharacterInput& out) {
  if (absl::Status pose =
          in.has_compact_pose()
              ? CompactPoseFromProto(in.compact_pose(), character.rig,
                                     TransformCheck::kValidate, out.pose)
              : PoseFromProto(in.pose(), character.rig, out.pose);
      !pose.ok()) {
    return pose;
  }
  out.grounds = in.has_ground();
  if (in.ground().has_ground()) {
    return absl::InvalidArgumentError(
        "ground.ground: a ground of its own (the core's batch grounds every "
        "character on the request's shared_ground)");
  }
  out.weights.assign(in.ground().weights().begin(),
                     in.ground().weights().end());
  if (out.weights.empty()) out.weights.assign(character.legs.size(), 1.0);
  out.smoothing = SmoothingFromProto(in.ground(), out.previous_offsets);
  for (int i = 0; i < in.goals_size(); ++i) {
    absl::StatusOr<ChainGoal> goal =
        GoalFromProto(in.goals(i), character.rig, i, ad_hoc_chains);
    if (!goal.ok()) return goal.status();
    out.goals.push_back(*goal);
  }
  out.steps = in.has_dynamics();
  out.states.resize(character.dynamic_chains.size());
  for (const v1::DynamicChainState& state : in.dynamics().states()) {
    for (size_t c = 0; c < character.dynamic_chains.size(); ++c) {
      if (character.dynamic_chains[c].name == state.chain()) {
        out.states[c] = StateFromProto(state);
      }
    }
  }
  out.delta_time = in.dynamics().delta_time();
  return absl::OkStatus();
}

// Keeps each run's CPU time per iteration; prints nothing.
class KeepingReporter : public benchmark::BenchmarkReporter {
 public:
  bool ReportContext(const Context& /*context*/) override { return true; }
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& run : runs) {
      if (run.run_type != Run::RT_Iteration) continue;
      if (run.error_occurred) {
        error = run.error_message;
      } else if (run.iterations > 0) {
        cpu_seconds.push_back(run.cpu_accumulated_time /
                              static_cast<double>(run.iterations));
        iterations += run.iterations;
      }
    }
  }
  std::vector<double> cpu_seconds;
  std::int64_t iterations = 0;
  std::string error;
};

}  // namespace

absl::Status LoadExamples(const std::string& examples_dir,
                          const ServiceLimits& limits, RigRegistry& rigs,
                          TerrainRegistry& terrains) {
  if (absl::StatusOr<int> loaded =
          LoadRigDirectory(examples_dir + "/rigs", limits, rigs);
      !loaded.ok()) {
    return loaded.status();
  }
  return LoadTerrainDirectory(examples_dir + "/terrains", limits, terrains)
      .status();
}

absl::Status CrowdCoreInputs::Convert(const v1::TickRequest& request,
                                      const RigRegistry& rigs,
                                      const TerrainRegistry& terrains,
                                      const ServiceLimits& limits) {
  if (request.characters().empty()) {
    return absl::InvalidArgumentError("characters: none");
  }
  const std::string& rig = request.characters(0).rig();
  absl::StatusOr<std::shared_ptr<const RigEntry>> found =
      rigs.Get({.name = rig, .name_path = "characters[0].rig"});
  if (!found.ok()) return found.status();
  entry = *std::move(found);
  if (absl::Status built = ground.Build(request.shared_ground(), terrains,
                                        limits, "shared_ground");
      !built.ok()) {
    return built;
  }
  inputs.assign(request.characters_size(), CrowdCharacterInput());
  for (int k = 0; k < request.characters_size(); ++k) {
    const std::string path = absl::StrCat("characters[", k, "]");
    if (request.characters(k).rig() != rig) {
      return absl::InvalidArgumentError(absl::StrCat(
          path, ".rig: '", request.characters(k).rig(), "', not the crowd's '",
          rig, "' (the core's batch is of one rig)"));
    }
    if (absl::Status converted = ConvertCharacter(
            request.characters(k), character(), ad_hoc_chains, inputs[k]);
        !converted.ok()) {
      return At(path, converted);
    }
  }
  return absl::OkStatus();
}

CrowdRun::CrowdRun(const CrowdCoreInputs& crowd, int jobs) : jobs(jobs) {
  const Character& character = crowd.character();
  const size_t count = crowd.inputs.size();
  locals.resize(count);
  states.resize(count);
  feet.assign(count, std::vector<FootResult>(character.legs.size()));
  reports.assign(count,
                 std::vector<DynamicsReport>(character.dynamic_chains.size()));
  results.resize(count);
  ticks.resize(count);
  for (size_t k = 0; k < count; ++k) {
    const CrowdCharacterInput& in = crowd.inputs[k];
    results[k].resize(in.goals.size());
    CharacterTick& tick = ticks[k];
    tick.ground_feet = CrowdGrounds(jobs) && in.grounds;
    tick.leg_weights = in.weights;
    tick.smoothing = in.smoothing;
    tick.feet = absl::MakeSpan(feet[k]);
    if (CrowdSolves(jobs)) {
      tick.goals = in.goals;
      tick.goal_results = absl::MakeSpan(results[k]);
    }
    tick.delta_time = in.delta_time;
  }
  Restore(crowd);
}

void CrowdRun::Restore(const CrowdCoreInputs& crowd) {
  for (size_t k = 0; k < ticks.size(); ++k) {
    const CrowdCharacterInput& in = crowd.inputs[k];
    locals[k] = in.pose.locals;
    states[k] = in.states;
    CharacterTick& tick = ticks[k];
    tick.root = in.pose.root;
    tick.locals = absl::MakeSpan(locals[k]);
    if (CrowdSteps(jobs) && in.steps) {
      tick.dynamic_states = absl::MakeSpan(states[k]);
      tick.dynamic_reports = absl::MakeSpan(reports[k]);
    }
  }
}

absl::Status RunBatch(const CrowdCoreInputs& crowd, CrowdRun& run,
                      TickScratch& scratch) {
  TickBatchJob batch;
  batch.character = &crowd.character();
  batch.ground = crowd.ground.view();
  batch.characters = absl::MakeSpan(run.ticks);
  batch.scratch = &scratch;
  return batch.Run();
}

int FailedJobs(const CrowdRun& run) {
  int failed = 0;
  for (const CharacterTick& tick : run.ticks) {
    failed += !tick.ground_status.ok() + !tick.goals_status.ok() +
              !tick.dynamics_status.ok();
  }
  return failed;
}

absl::StatusOr<CoreTiming> TimeCrowdBatch(const CrowdCoreInputs& crowd,
                                          const CoreTimingOptions& options) {
  CrowdRun run(crowd, kAllCrowdJobs);
  TickScratch scratch;
  if (absl::Status once = RunBatch(crowd, run, scratch); !once.ok()) {
    return once;
  }
  CoreTiming timing;
  timing.failed_jobs = FailedJobs(run);
  benchmark::RegisterBenchmark(
      "core/TickBatchJob",
      [&](benchmark::State& state) {
        MeasureCrowd(state, crowd, run, [&] {
          benchmark::DoNotOptimize(RunBatch(crowd, run, scratch));
        });
      })
      ->MinTime(options.min_time)
      ->Repetitions(std::max(1, options.repetitions));
  KeepingReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::ClearRegisteredBenchmarks();
  if (!reporter.error.empty()) return absl::InternalError(reporter.error);
  if (reporter.cpu_seconds.empty()) {
    return absl::InternalError("the core's benchmark did not run");
  }
  std::vector<double>& cpu = reporter.cpu_seconds;
  std::sort(cpu.begin(), cpu.end());
  const double median =
      cpu.size() % 2 == 1
          ? cpu[cpu.size() / 2]
          : 0.5 * (cpu[cpu.size() / 2 - 1] + cpu[cpu.size() / 2]);
  timing.seconds_per_character =
      median / static_cast<double>(std::max<size_t>(1, run.ticks.size()));
  timing.repetitions = static_cast<int>(cpu.size());
  timing.batches = reporter.iterations;
  return timing;
}

}  // namespace ik::server
