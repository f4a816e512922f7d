#include "loadgen_tick.h"

#include <algorithm>
#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_format.h"
#include "loadgen_util.h"

namespace ik::loadgen {
namespace {

// One way of sending ticks, measured.
struct TickRun {
  std::vector<double> latencies_ms;
  double seconds = 0.0;
  double ikd_cpu_seconds = 0.0;
  int failed_jobs = 0;
  std::string first_error;
  // Wire bytes of the last tick's request and answer.
  size_t request_bytes = 0;
  size_t answer_bytes = 0;
};

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
  const auto start = std::chrono::steady_clock::now();
  for (int t = 0; t < ticks; ++t) {
    const v1::TickRequest& request = crowd.NextTick();
    const auto tick_start = std::chrono::steady_clock::now();
    absl::StatusOr<v1::TickResponse> answer = send(request);
    run.latencies_ms.push_back(
        std::chrono::duration<double, std::milli>(
            std::chrono::steady_clock::now() - tick_start)
            .count());
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
  std::sort(run.latencies_ms.begin(), run.latencies_ms.end());
  return run;
}

void PrintTickRun(const char* what, const TickRun& run, int ticks,
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
  absl::PrintF("; bytes per character: request %d, answer %d",
               run.request_bytes / characters, run.answer_bytes / characters);
  absl::PrintF("; failed jobs %d%s%s\n", run.failed_jobs,
               run.first_error.empty() ? "" : "; first: ", run.first_error);
}

}  // namespace

int RunTickLoad(Client& client, const TickLoadOptions& load) {
  absl::StatusOr<v1::GetRigResponse> rig = client.GetRig(load.rig);
  if (!rig.ok()) {
    absl::FPrintF(stderr, "ikd_loadgen: %s\n", rig.status().ToString());
    return 1;
  }
  const CrowdOptions& options = load.crowd;
  SyntheticCrowd crowd(rig->rig(), options);
  const int ticks = std::max(1, load.ticks);
  const int pid = load.ikd_pid;
  const bool streamed = load.stream;
  std::optional<TickStream> stream;
  if (streamed) stream.emplace(client);
  const TickRun ticked =
      RunTicks(crowd, ticks, pid, [&](const v1::TickRequest& request) {
        return streamed ? stream->Tick(request) : client.Tick(request);
      });
  PrintTickRun(streamed ? "TickStream" : "Tick", ticked, ticks,
               options.characters, pid);
  const int single_ticks = load.single_ticks;
  int failed = ticked.failed_jobs;
  if (single_ticks > 0) {
    const TickRun single = RunTicks(crowd, single_ticks, pid,
                                    [&](const v1::TickRequest& /*request*/) {
                                      return crowd.RunAsSingleCalls(client);
                                    });
    PrintTickRun("single calls", single, single_ticks, options.characters, pid);
    if (pid > 0 && ticked.ikd_cpu_seconds > 0.0) {
      absl::PrintF("ikd CPU per character: tick / single calls = %.3f\n",
                   (ticked.ikd_cpu_seconds / ticks) /
                       (single.ikd_cpu_seconds / single_ticks));
    }
    failed += single.failed_jobs;
  }
  return failed == 0 ? 0 : 1;
}

}  // namespace ik::loadgen
