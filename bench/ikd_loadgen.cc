// ikd_loadgen: a bounded load generator for a running ikd.
//
//   ikd_loadgen --server=127.0.0.1:50051 --threads=4 --requests=20000
//               --rig=humanoid --chain=left_arm --goals=8
//
// Each thread sends --requests/--threads SolveChain calls back to back on one
// shared channel (targets drawn from a seeded generator inside the chain's
// reach), then the tool prints throughput and latency percentiles. It stops by
// itself: the work is a fixed count, and every call has a deadline. Use only
// against servers on this machine (loopback).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/strings/str_format.h"
#include "absl/time/time.h"
#include "ik/client.h"

ABSL_FLAG(std::string, server, "127.0.0.1:50051", "ikd address");
ABSL_FLAG(int, threads, 2, "concurrent callers");
ABSL_FLAG(int, requests, 20000, "total SolveChain calls");
ABSL_FLAG(std::string, rig, "humanoid", "rig to solve");
ABSL_FLAG(std::string, chain, "left_arm", "chain to solve");
ABSL_FLAG(int, goals, 1, "goals per request (one tick's batch)");
ABSL_FLAG(double, center_x, 0.35, "centre of the target box, world X");
ABSL_FLAG(double, center_y, 1.2, "centre of the target box, world Y");
ABSL_FLAG(double, center_z, 0.15, "centre of the target box, world Z");
ABSL_FLAG(double, half_size, 0.15, "half size of the target box, m");
ABSL_FLAG(uint64_t, seed, 1, "seed of the target generator");

namespace {

struct ThreadResult {
  std::vector<double> latencies_us;
  int failures = 0;
  int reached = 0;
  int goals = 0;
  std::string first_error;
};

void RunCaller(ik::Client& client, int calls, uint64_t seed,
               ThreadResult& out) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> offset(-absl::GetFlag(FLAGS_half_size),
                                                absl::GetFlag(FLAGS_half_size));
  ik::v1::SolveChainRequest request;
  request.set_rig(absl::GetFlag(FLAGS_rig));
  for (int g = 0; g < absl::GetFlag(FLAGS_goals); ++g) {
    request.add_goals()->set_chain(absl::GetFlag(FLAGS_chain));
  }
  out.latencies_us.reserve(calls);
  for (int i = 0; i < calls; ++i) {
    for (ik::v1::ChainGoal& goal : *request.mutable_goals()) {
      goal.mutable_target()->set_x(absl::GetFlag(FLAGS_center_x) + offset(rng));
      goal.mutable_target()->set_y(absl::GetFlag(FLAGS_center_y) + offset(rng));
      goal.mutable_target()->set_z(absl::GetFlag(FLAGS_center_z) + offset(rng));
    }
    const auto start = std::chrono::steady_clock::now();
    absl::StatusOr<ik::v1::SolveChainResponse> answer =
        client.SolveChain(request);
    const auto end = std::chrono::steady_clock::now();
    out.latencies_us.push_back(
        std::chrono::duration<double, std::micro>(end - start).count());
    if (!answer.ok()) {
      if (out.failures++ == 0) out.first_error = answer.status().ToString();
      continue;
    }
    for (const ik::v1::GoalResult& result : answer->results()) {
      ++out.goals;
      out.reached += result.reached();
    }
  }
}

double Percentile(const std::vector<double>& sorted, double p) {
  if (sorted.empty()) return 0.0;
  const size_t index = std::min(sorted.size() - 1,
                                static_cast<size_t>(p / 100.0 * sorted.size()));
  return sorted[index];
}

}  // namespace

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  const int threads = std::max(1, absl::GetFlag(FLAGS_threads));
  const int requests = std::max(1, absl::GetFlag(FLAGS_requests));

  ik::ClientOptions options;
  options.target = absl::GetFlag(FLAGS_server);
  options.deadline = absl::Seconds(10);
  ik::Client client(options);
  if (absl::StatusOr<bool> serving = client.CheckHealth();
      !serving.ok() || !*serving) {
    absl::FPrintF(stderr, "ikd_loadgen: %s is not serving\n", options.target);
    return 1;
  }

  std::vector<ThreadResult> results(threads);
  std::vector<std::thread> callers;
  const auto start = std::chrono::steady_clock::now();
  for (int t = 0; t < threads; ++t) {
    const int calls = requests / threads + (t < requests % threads ? 1 : 0);
    callers.emplace_back(RunCaller, std::ref(client), calls,
                         absl::GetFlag(FLAGS_seed) + t, std::ref(results[t]));
  }
  for (std::thread& caller : callers) caller.join();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();

  std::vector<double> latencies;
  int failures = 0, reached = 0, goals = 0;
  std::string first_error;
  for (const ThreadResult& r : results) {
    latencies.insert(latencies.end(), r.latencies_us.begin(),
                     r.latencies_us.end());
    failures += r.failures;
    reached += r.reached;
    goals += r.goals;
    if (first_error.empty()) first_error = r.first_error;
  }
  std::sort(latencies.begin(), latencies.end());
  absl::PrintF(
      "%d calls (%d goals each) from %d threads in %.2f s: %.0f calls/s, "
      "%.0f goals/s\n",
      requests, absl::GetFlag(FLAGS_goals), threads, seconds,
      requests / seconds, goals / seconds);
  absl::PrintF("latency us: p50 %.1f  p90 %.1f  p99 %.1f  max %.1f\n",
               Percentile(latencies, 50), Percentile(latencies, 90),
               Percentile(latencies, 99), latencies.back());
  absl::PrintF("goals reached: %d of %d; failed calls: %d%s%s\n", reached,
               goals, failures,
               first_error.empty() ? "" : "; first: ", first_error);
  return failures == 0 ? 0 : 1;
}
