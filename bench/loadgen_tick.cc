#include "loadgen_tick.h"

#include <algorithm>
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/time.h"
#include "crowd_core.h"
#include "example_ikd.h"
#include "loadgen_util.h"
#include "server.h"
#include "service_limits.h"
#include "state/rig_registry.h"
#include "state/terrain_registry.h"

namespace ik::loadgen {
namespace {

// One way of sending ticks, measured.
struct TickRun {
  std::vector<double> latencies_ms;
  double seconds = 0.0;
  double ikd_cpu_seconds = 0.0;
  // Of which ikd's recording writer (ikd --record_dir).
  double recorder_cpu_seconds = 0.0;
  int failed_jobs = 0;
  std::string first_error;
  // Wire bytes of the last tick's request and answer.
  size_t request_bytes = 0;
  size_t answer_bytes = 0;
  // The last tick's request (the core reference's input).
  v1::TickRequest last_request;
};

// The thread of ikd --record_dir that writes the recording.
constexpr char kRecorderThread[] = "ikd-recorder";

int FailedJobs(const v1::TickResponse& answer) {
  int failed = 0;
  for (const v1::TickCharacterResult& c : answer.characters()) {
    failed += (c.status().code() != 0) + (c.ground_status().code() != 0) +
              (c.goals_status().code() != 0) +
              (c.dynamics_status().code() != 0);
  }
  return failed;
}

// `ticks` ticks of `crowd`, each sent by `send` (which returns the answer).
template <typename Send>
TickRun RunTicks(SyntheticCrowd& crowd, int ticks, int pid, Send&& send) {
  TickRun run;
  const double cpu_before = ProcessCpuSeconds(pid);
  const double recorder_before = ThreadCpuSeconds(pid, kRecorderThread);
  const auto start = std::chrono::steady_clock::now();
  for (int t = 0; t < ticks; ++t) {
    const v1::TickRequest& request = crowd.NextTick();
    const auto tick_start = std::chrono::steady_clock::now();
    absl::StatusOr<v1::TickResponse> answer = send(request);
    run.latencies_ms.push_back(
        std::chrono::duration<double, std::milli>(
            std::chrono::steady_clock::now() - tick_start)
            .count());
    if (t == ticks - 1) run.last_request = crowd.CompleteTick();
    if (!answer.ok()) {
      if (run.first_error.empty()) run.first_error = answer.status().ToString();
      ++run.failed_jobs;
      continue;
    }
    run.failed_jobs += FailedJobs(*answer);
    run.request_bytes = request.ByteSizeLong();
    run.answer_bytes = answer->ByteSizeLong();
    crowd.Absorb(*answer);
  }
  run.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  run.ikd_cpu_seconds = ProcessCpuSeconds(pid) - cpu_before;
  run.recorder_cpu_seconds =
      ThreadCpuSeconds(pid, kRecorderThread) - recorder_before;
  std::sort(run.latencies_ms.begin(), run.latencies_ms.end());
  return run;
}

void PrintTickRun(const std::string& what, const TickRun& run, int ticks,
                  int characters, int pid) {
  absl::PrintF(
      "%s: %d ticks of %d characters in %.2f s: %.1f ticks/s; tick latency "
      "ms p50 %.2f p99 %.2f max %.2f",
      what, ticks, characters, run.seconds, ticks / run.seconds,
      Percentile(run.latencies_ms, 50), Percentile(run.latencies_ms, 99),
      run.latencies_ms.empty() ? 0.0 : run.latencies_ms.back());
  if (pid > 0) {
    absl::PrintF("; ikd CPU %.2f ms per tick, %.2f us per character",
                 1e3 * run.ikd_cpu_seconds / ticks,
                 1e6 * run.ikd_cpu_seconds / ticks / characters);
  }
  if (run.recorder_cpu_seconds > 0.0 && run.ikd_cpu_seconds > 0.0) {
    absl::PrintF("; of which recording (%s) %.2f ms per tick, %.1f %%",
                 kRecorderThread, 1e3 * run.recorder_cpu_seconds / ticks,
                 100.0 * run.recorder_cpu_seconds / run.ikd_cpu_seconds);
  }
  absl::PrintF("; bytes per character: request %d, answer %d",
               run.request_bytes / characters, run.answer_bytes / characters);
  absl::PrintF("; failed jobs %d%s%s\n", run.failed_jobs,
               run.first_error.empty() ? "" : "; first: ", run.first_error);
}

// The load of `load` against `client`'s ikd, whose rig is `rig`: the ticks,
// then the single calls; each printed as one line, `label` after its name
// (", 2 solver threads"). Returns the ticks' run; adds the failed jobs of
// both to `failed`.
TickRun RunLoad(Client& client, const v1::Rig& rig, const TickLoadOptions& load,
                const std::string& label, int& failed) {
  const CrowdOptions& options = load.crowd;
  SyntheticCrowd crowd(rig, options);
  const int ticks = std::max(1, load.ticks);
  const int pid = load.ikd_pid;
  const bool streamed = load.stream;
  std::optional<TickStream> stream;
  if (streamed) stream.emplace(client);
  TickRun ticked =
      RunTicks(crowd, ticks, pid, [&](const v1::TickRequest& request) {
        return streamed ? stream->Tick(request) : client.Tick(request);
      });
  PrintTickRun(absl::StrCat(streamed ? "TickStream" : "Tick", label), ticked,
               ticks, options.characters, pid);
  failed += ticked.failed_jobs;
  const int single_ticks = load.single_ticks;
  if (single_ticks <= 0) return ticked;
  const TickRun single = RunTicks(crowd, single_ticks, pid,
                                  [&](const v1::TickRequest& /*request*/) {
                                    return crowd.RunAsSingleCalls(client);
                                  });
  PrintTickRun(absl::StrCat("single calls", label), single, single_ticks,
               options.characters, pid);
  if (pid > 0 && ticked.ikd_cpu_seconds > 0.0) {
    absl::PrintF("ikd CPU per character: tick / single calls = %.3f\n",
                 (ticked.ikd_cpu_seconds / ticks) /
                     (single.ikd_cpu_seconds / single_ticks));
  }
  failed += single.failed_jobs;
  return ticked;
}

// The crowd's rig as the target serves it (and prints why not).
std::optional<v1::Rig> ServedRig(Client& client, const std::string& name) {
  absl::StatusOr<v1::GetRigResponse> rig = client.GetRig(name);
  if (!rig.ok()) {
    absl::FPrintF(stderr, "ikd_loadgen: %s\n", rig.status().ToString());
    return std::nullopt;
  }
  return rig->rig();
}

// The same ticks through the core in this process: the examples' rigs and
// terrains, which must be what the target serves.
class CoreReference {
 public:
  CoreReference() : rigs_(limits_.max_rigs), terrains_(limits_.max_terrains) {}

  // Loads `load.examples_dir` and checks that its rig and terrain are the
  // target's (same revisions).
  absl::Status Prepare(Client& client, const TickLoadOptions& load);

  // Converts `request`, times it through TickBatchJob and prints the line;
  // `ikd_cpu_seconds` (<= 0: not measured) over `ticks` is ikd's.
  absl::Status Report(const v1::TickRequest& request,
                      const TickLoadOptions& load, double ikd_cpu_seconds,
                      int ticks);

 private:
  server::ServiceLimits limits_;
  server::RigRegistry rigs_;
  server::TerrainRegistry terrains_;
};

absl::Status CoreReference::Prepare(Client& client,
                                    const TickLoadOptions& load) {
  const std::string& dir = load.examples_dir;
  if (absl::Status loaded =
          server::LoadExamples(dir, limits_, rigs_, terrains_);
      !loaded.ok()) {
    return absl::FailedPreconditionError(
        absl::StrCat("--examples_dir=", dir, ": ", loaded.message()));
  }
  absl::StatusOr<std::shared_ptr<const server::RigEntry>> rig =
      rigs_.Get({.name = load.rig, .name_path = "--rig"});
  absl::StatusOr<v1::GetRigResponse> served = client.GetRig(load.rig);
  if (!rig.ok() || !served.ok() || served->revision() != (*rig)->revision) {
    return absl::FailedPreconditionError(
        absl::StrCat("rig '", load.rig, "' in --examples_dir=", dir, " is ",
                     rig.ok() ? (*rig)->revision : "missing", ", the target's ",
                     served.ok() ? served->revision() : "unknown"));
  }
  const std::string& terrain = load.crowd.terrain;
  if (terrain.empty()) return absl::OkStatus();
  absl::StatusOr<std::shared_ptr<const server::TerrainEntry>> local =
      terrains_.Get({.name = terrain, .name_path = "--terrain"});
  absl::StatusOr<v1::ListTerrainsResponse> listed = client.ListTerrains();
  std::string target_revision = listed.ok() ? "missing" : "unknown";
  if (listed.ok()) {
    for (const v1::TerrainSummary& summary : listed->terrains()) {
      if (summary.name() == terrain) target_revision = summary.revision();
    }
  }
  if (!local.ok() || (*local)->revision != target_revision) {
    return absl::FailedPreconditionError(
        absl::StrCat("terrain '", terrain, "' in --examples_dir=", dir, " is ",
                     local.ok() ? (*local)->revision : "missing",
                     ", the target's ", target_revision));
  }
  return absl::OkStatus();
}

absl::Status CoreReference::Report(const v1::TickRequest& request,
                                   const TickLoadOptions& load,
                                   double ikd_cpu_seconds, int ticks) {
  server::CrowdCoreInputs inputs;
  if (absl::Status converted =
          inputs.Convert(request, rigs_, terrains_, limits_);
      !converted.ok()) {
    return converted;
  }
  absl::StatusOr<server::CoreTiming> timing =
      server::TimeCrowdBatch(inputs, load.core_timing);
  if (!timing.ok()) return timing.status();
  const double core_us = 1e6 * timing->seconds_per_character;
  const int characters = request.characters_size();
  absl::PrintF(
      "core (TickBatchJob in this process, 1 thread, the last tick's %d "
      "characters): %.2f us per character, median of %d repetitions",
      characters, core_us, timing->repetitions);
  if (ikd_cpu_seconds > 0.0) {
    const double ikd_us = 1e6 * ikd_cpu_seconds / ticks / characters;
    absl::PrintF("; ikd CPU per character / core = %.2f / %.2f = %.2f", ikd_us,
                 core_us, ikd_us / core_us);
  } else if (!load.solver_threads.empty()) {
    absl::PrintF("; ikd CPU / core: not measured (ikd shares this process)");
  } else if (load.ikd_pid > 0) {
    absl::PrintF(
        "; ikd CPU / core: no CPU time read for --ikd_pid=%d (not ikd's "
        "process, or too few --ticks for /proc's clock ticks)",
        load.ikd_pid);
  } else {
    absl::PrintF("; ikd CPU / core: give --ikd_pid");
  }
  absl::PrintF("; failed jobs %d\n", timing->failed_jobs);
  return absl::OkStatus();
}

// Prints each count's latencies and their ratios to one thread's (or to
// the first count's, when 1 was not run).
void PrintScaling(const std::vector<int>& counts,
                  const std::vector<TickRun>& runs) {
  size_t base = 0;
  for (size_t i = 0; i < counts.size(); ++i) {
    if (counts[i] == 1) {
      base = i;
      break;
    }
  }
  const double base_p50 = Percentile(runs[base].latencies_ms, 50);
  const double base_p99 = Percentile(runs[base].latencies_ms, 99);
  for (size_t i = 0; i < counts.size(); ++i) {
    const double p50 = Percentile(runs[i].latencies_ms, 50);
    const double p99 = Percentile(runs[i].latencies_ms, 99);
    absl::PrintF("solver threads %d: tick p50 %.2f ms, p99 %.2f ms", counts[i],
                 p50, p99);
    if (i != base) {
      absl::PrintF("; / %d thread%s: p50 %.3f, p99 %.3f", counts[base],
                   counts[base] == 1 ? "" : "s", p50 / base_p50,
                   p99 / base_p99);
    }
    absl::PrintF("\n");
  }
}

// The load against `client_options.target`.
int RunAgainstTarget(const ClientOptions& client_options,
                     const TickLoadOptions& load, CoreReference* core) {
  Client client(client_options);
  if (absl::StatusOr<bool> serving = client.CheckHealth();
      !serving.ok() || !*serving) {
    absl::FPrintF(stderr, "ikd_loadgen: %s is not serving\n",
                  client_options.target);
    return 1;
  }
  const std::optional<v1::Rig> rig = ServedRig(client, load.rig);
  if (!rig) return 1;
  if (core != nullptr) {
    if (absl::Status ready = core->Prepare(client, load); !ready.ok()) {
      absl::FPrintF(stderr,
                    "ikd_loadgen: the core reference: %s (--core_reference="
                    "false to go without)\n",
                    ready.message());
      return 2;
    }
  }
  int failed = 0;
  const TickRun ticked = RunLoad(client, *rig, load, "", failed);
  if (core != nullptr) {
    if (absl::Status reported =
            core->Report(ticked.last_request, load, ticked.ikd_cpu_seconds,
                         std::max(1, load.ticks));
        !reported.ok()) {
      absl::FPrintF(stderr, "ikd_loadgen: the core reference: %s\n",
                    reported.message());
      return 1;
    }
  }
  return failed == 0 ? 0 : 1;
}

// The load against an ikd in this process per solver thread count.
int RunScaling(const ClientOptions& client_options, const TickLoadOptions& load,
               CoreReference* core) {
  std::vector<TickRun> runs;
  int failed = 0;
  for (size_t i = 0; i < load.solver_threads.size(); ++i) {
    const int threads = load.solver_threads[i];
    absl::StatusOr<std::unique_ptr<server::IkServer>> ikd =
        server::StartExampleIkd(load.examples_dir, threads);
    if (!ikd.ok()) {
      absl::FPrintF(stderr, "ikd_loadgen: an ikd in this process: %s\n",
                    ikd.status().ToString());
      return 1;
    }
    ClientOptions options = client_options;
    options.target = server::ExampleIkdTarget(**ikd);
    Client client(options);
    const std::optional<v1::Rig> rig = ServedRig(client, load.rig);
    if (!rig) return 1;
    if (core != nullptr && i == 0) {
      if (absl::Status ready = core->Prepare(client, load); !ready.ok()) {
        absl::FPrintF(stderr, "ikd_loadgen: the core reference: %s\n",
                      ready.message());
        return 2;
      }
    }
    runs.push_back(
        RunLoad(client, *rig, load,
                absl::StrFormat(", %d solver thread%s (ikd in this process)",
                                threads, threads == 1 ? "" : "s"),
                failed));
    (*ikd)->Shutdown(absl::Seconds(5));
  }
  PrintScaling(load.solver_threads, runs);
  if (core != nullptr) {
    if (absl::Status reported =
            core->Report(runs.front().last_request, load, 0.0, load.ticks);
        !reported.ok()) {
      absl::FPrintF(stderr, "ikd_loadgen: the core reference: %s\n",
                    reported.message());
      return 1;
    }
  }
  return failed == 0 ? 0 : 1;
}

}  // namespace

int RunTick(const ClientOptions& client_options, const TickLoadOptions& load) {
  std::optional<CoreReference> core;
  if (load.core_reference) core.emplace();
  CoreReference* reference = core ? &*core : nullptr;
  return load.solver_threads.empty()
             ? RunAgainstTarget(client_options, load, reference)
             : RunScaling(client_options, load, reference);
}

}  // namespace ik::loadgen
