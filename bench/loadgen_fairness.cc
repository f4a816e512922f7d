#include "loadgen_fairness.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstddef>
#include <cstdio>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/string_view.h"
#include "loadgen_util.h"

namespace ik::loadgen {
namespace {

// Latencies (ms, sorted) of calls repeated for a time, and how many failed.
struct Timed {
  std::vector<double> latencies;
  int failures = 0;
};

// `call` (true when it succeeded) repeated for `seconds`.
template <typename Call>
Timed CallFor(double seconds, Call&& call) {
  Timed timed;
  const auto end =
      std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < end) {
    const auto start = std::chrono::steady_clock::now();
    const bool ok = call();
    timed.latencies.push_back(std::chrono::duration<double, std::milli>(
                                  std::chrono::steady_clock::now() - start)
                                  .count());
    timed.failures += !ok;
  }
  std::sort(timed.latencies.begin(), timed.latencies.end());
  return timed;
}

// The victim tenant: its one-goal SolveChains and its health checks, each
// on a connection of its own with the victim's token. Solve and
// CheckHealth may run at once, each on one thread at a time.
class Victim {
 public:
  Victim(const ClientOptions& options, const FairnessOptions& fairness)
      : solver_(OwnConnection(WithToken(options, fairness.victim_token))),
        checker_(OwnConnection(WithToken(options, fairness.victim_token))),
        targets_(fairness.seed, fairness.center, fairness.half_size) {
    request_.set_rig(fairness.rig);
    request_.add_goals()->set_chain(fairness.chain);
  }

  // One SolveChain of the `kind` victim to the next seeded target; true
  // when it succeeded.
  bool Solve(VictimKind kind) {
    v1::ChainGoal* goal = request_.mutable_goals(0);
    goal->set_solver(kind == VictimKind::kPooled ? v1::SOLVER_FABRIK
                                                 : v1::SOLVER_UNSPECIFIED);
    targets_.Next(goal->mutable_target());
    absl::Status status = solver_.SolveChain(request_).status();
    if (!status.ok() && first_error_.empty()) first_error_ = status.ToString();
    return status.ok();
  }
  // One gRPC health check; true when it says SERVING.
  bool CheckHealth() {
    absl::StatusOr<bool> serving = checker_.CheckHealth();
    return serving.ok() && *serving;
  }
  // The first failed Solve's status; empty when none failed.
  const std::string& first_error() const { return first_error_; }

 private:
  static ClientOptions WithToken(ClientOptions options, std::string token) {
    options.token = std::move(token);
    return options;
  }

  Client solver_;
  Client checker_;
  BoxPoints targets_;
  v1::SolveChainRequest request_;
  std::string first_error_;
};

// `text` as one word of a POSIX shell command, whatever it holds.
std::string ShellQuoted(const std::string& text) {
  return absl::StrCat("'", absl::StrReplaceAll(text, {{"'", "'\\''"}}), "'");
}

// 1234567 -> "1,234,567".
std::string WithCommas(std::int64_t value) {
  std::string digits = absl::StrCat(value < 0 ? -value : value);
  for (int at = static_cast<int>(digits.size()) - 3; at > 0; at -= 3) {
    digits.insert(at, ",");
  }
  return value < 0 ? "-" + digits : digits;
}

// `flooded` / `alone` as "×1.23" (or "×123" from 100 on).
std::string Ratio(double flooded, double alone) {
  if (alone <= 0) return "—";
  const double ratio = flooded / alone;
  if (ratio < 100) return absl::StrFormat("×%.2f", ratio);
  return absl::StrFormat("×%.0f", ratio);
}

// What one flood's process reported on its stdout.
struct FloodReport {
  bool ran = false;
  int calls = 0;
  int failed = 0;
  std::int64_t request_bytes = 0;
  double cpu_seconds = 0;
};

// This program again, --rpc=flood with `flood`'s settings and the flood's
// token, against the same server; its stdout to read. Null (after saying
// why, never with the command, which holds the token) when it cannot start.
FILE* StartFlood(const ClientOptions& options, const FairnessOptions& fairness,
                 const FloodOptions& flood) {
  char self[4096] = {};
  if (readlink("/proc/self/exe", self, sizeof(self) - 1) <= 0) {
    absl::FPrintF(stderr, "ikd_loadgen: cannot find its own program\n");
    return nullptr;
  }
  std::string command = absl::StrFormat(
      "%s --rpc=flood --flood=%s --server=%s --seconds=%f --flood_streams=%d "
      "--flood_goals=%d --flood_characters=%d --rig=%s --terrain=%s --seed=%d",
      ShellQuoted(self), FloodKindName(flood.kind), ShellQuoted(options.target),
      flood.seconds, flood.streams, flood.goals, flood.characters,
      ShellQuoted(flood.rig), ShellQuoted(flood.terrain), flood.seed);
  if (!fairness.flood_token.empty()) {
    absl::StrAppend(&command,
                    " --flood_token=", ShellQuoted(fairness.flood_token));
  }
  FILE* process = popen(command.c_str(), "r");
  if (process == nullptr) {
    absl::FPrintF(stderr, "ikd_loadgen: cannot start the %s flood\n",
                  FloodKindName(flood.kind));
  }
  return process;
}

// Reads the flood's first line: true when it is kFloodReadyLine (its
// requests built, its connection up), false when the flood gave up.
bool AwaitReady(FILE* process) {
  char line[64] = {};
  return std::fgets(line, sizeof(line), process) != nullptr &&
         absl::StripTrailingAsciiWhitespace(line) == kFloodReadyLine;
}

// Waits for the flood's process and reads its last line (RunFlood's).
FloodReport FinishFlood(FILE* process) {
  FloodReport report;
  report.ran = std::fscanf(process,
                           "flood calls: %d failed: %d request bytes: %" SCNd64
                           " cpu seconds: %lf",
                           &report.calls, &report.failed, &report.request_bytes,
                           &report.cpu_seconds) == 4;
  pclose(process);
  return report;
}

// How the tokens make the victim and the flood tenants, for the preamble.
std::string TenantsOf(const FairnessOptions& fairness) {
  if (fairness.victim_token.empty() && fairness.flood_token.empty()) {
    return "no tokens: on loopback ikd takes victim and flood for one caller";
  }
  if (fairness.victim_token == fairness.flood_token) {
    return "one token for both: ikd takes them for one caller";
  }
  return "victim and flood carry different tokens: two callers to ikd";
}

void PrintPreamble(const FairnessOptions& fairness,
                   const std::vector<Timed>& alone) {
  std::vector<std::string> victims;
  for (std::size_t v = 0; v < fairness.victims.size(); ++v) {
    victims.push_back(absl::StrFormat(
        "`%s` %d calls (%d failed)", VictimKindName(fairness.victims[v]),
        alone[v].latencies.size(), alone[v].failures));
  }
  absl::PrintF(
      "victim: one-goal SolveChain (%s, chain %s) back to back, `tiny` with "
      "the chain's solver, `pooled` with SOLVER_FABRIK; alone for %.1f s "
      "each: %s; health checks on a third connection; each flood: %d callers "
      "on one connection, another process, its CPU (user + system) while it "
      "floods in cores; %s\n\n",
      fairness.rig, fairness.chain, fairness.seconds,
      absl::StrJoin(victims, ", "), fairness.flood.streams,
      TenantsOf(fairness));
  absl::PrintF(
      "| flood | victim | request | flood calls (CPU) | victim p50 / p99 "
      "alone | victim p50 / p99 flooded | p50 ÷ alone | p99 ÷ alone | health "
      "p99 / max | failed (victim / health / flood) |\n");
  absl::PrintF("|---|---|---|---|---|---|---|---|---|---|\n");
  std::fflush(stdout);  // before any flood's complaints on stderr
}

// "p50 / p99 ms" of `timed`; "—" when it holds no call.
std::string Latencies(const Timed& timed) {
  if (timed.latencies.empty()) return "—";
  return absl::StrFormat("%.3f / %.3f ms", Percentile(timed.latencies, 50),
                         Percentile(timed.latencies, 99));
}

// The p-th percentile of `flooded` over that of `alone`; "—" when either
// holds no call.
std::string PercentileRatio(const Timed& flooded, const Timed& alone,
                            double p) {
  if (flooded.latencies.empty() || alone.latencies.empty()) return "—";
  return Ratio(Percentile(flooded.latencies, p),
               Percentile(alone.latencies, p));
}

// One row; `first` for a flood's first victim, which names what the flood
// sends (the others name its kind only).
void PrintRow(const FloodOptions& flood, VictimKind victim, bool first,
              const FloodReport& report, const Timed& alone,
              const Timed& flooded, const Timed& health) {
  const std::string name =
      first ? absl::StrFormat("`%s`: %s", FloodKindName(flood.kind),
                              DescribeFlood(flood))
            : absl::StrFormat("`%s`", FloodKindName(flood.kind));
  const std::string request_bytes =
      report.ran ? absl::StrCat(WithCommas(report.request_bytes), " B") : "—";
  const std::string flood_calls =
      report.ran ? absl::StrFormat("%s (%.2f core)", WithCommas(report.calls),
                                   report.cpu_seconds / flood.seconds)
                 : "—";
  const std::string flood_failed =
      report.ran ? absl::StrCat(report.failed) : "did not run";
  const std::string health_latencies =
      health.latencies.empty()
          ? "—"
          : absl::StrFormat("%.3f / %.3f ms", Percentile(health.latencies, 99),
                            health.latencies.back());
  absl::PrintF(
      "| %s | `%s` | %s | %s | %s | %s | %s | %s | %s | %d / %d / %s |\n", name,
      VictimKindName(victim), request_bytes, flood_calls, Latencies(alone),
      Latencies(flooded), PercentileRatio(flooded, alone, 50),
      PercentileRatio(flooded, alone, 99), health_latencies, flooded.failures,
      health.failures, flood_failed);
  std::fflush(stdout);
}

// The `victim` kind for `fairness.seconds` under `flood` (its kind set),
// with health checks on a thread of their own meanwhile, and the flood's
// report; prints the table row. Returns the failures of all three (a flood
// that did not run counts one).
int RunUnderFlood(const ClientOptions& options, const FairnessOptions& fairness,
                  FloodOptions flood, VictimKind victim_kind, bool first,
                  Victim& victim, const Timed& alone) {
  // Half a second longer than the victim calls, so that it floods the whole
  // time: ready, then 200 ms to get going, then the victim.
  flood.seconds = fairness.seconds + 0.5;
  // The flood runs in a process of its own, as another client would: in
  // this one, its threads would share the victim's gRPC client threads and
  // delay the victim's own answers.
  FILE* process = StartFlood(options, fairness, flood);
  if (process == nullptr) return 1;
  Timed flooded;
  Timed health;
  if (AwaitReady(process)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    std::thread checker([&] {
      health = CallFor(fairness.seconds, [&] { return victim.CheckHealth(); });
    });
    flooded =
        CallFor(fairness.seconds, [&] { return victim.Solve(victim_kind); });
    checker.join();
  }
  const FloodReport report = FinishFlood(process);
  PrintRow(flood, victim_kind, first, report, alone, flooded, health);
  return flooded.failures + health.failures + (report.ran ? report.failed : 1);
}

}  // namespace

absl::string_view VictimKindName(VictimKind kind) {
  return kind == VictimKind::kPooled ? "pooled" : "tiny";
}

int RunFairness(const ClientOptions& options, const FairnessOptions& fairness) {
  Victim victim(options, fairness);
  std::vector<Timed> alone;
  int failures = 0;
  for (VictimKind kind : fairness.victims) {
    alone.push_back(
        CallFor(fairness.seconds, [&] { return victim.Solve(kind); }));
    failures += alone.back().failures;
  }
  PrintPreamble(fairness, alone);
  for (FloodKind kind : fairness.floods) {
    FloodOptions flood = fairness.flood;
    flood.kind = kind;
    for (std::size_t v = 0; v < fairness.victims.size(); ++v) {
      failures += RunUnderFlood(options, fairness, flood, fairness.victims[v],
                                v == 0, victim, alone[v]);
    }
  }
  if (!victim.first_error().empty()) {
    absl::FPrintF(stderr, "ikd_loadgen: the victim's first failure: %s\n",
                  victim.first_error());
  }
  return failures == 0 ? 0 : 1;
}

}  // namespace ik::loadgen
