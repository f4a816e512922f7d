// ikd_loadgen: a bounded load generator for a running ikd.
//
//   ikd_loadgen --server=127.0.0.1:50051 --threads=4 --requests=20000
//               --rig=humanoid --chain=left_arm --goals=8
//
//   ikd_loadgen --rpc=ground --terrain=stairs --center_x=0 --center_y=0.3
//               --center_z=0.9 --half_size=0.6
//
// Each thread sends --requests/--threads calls back to back on one shared
// channel, then the tool prints throughput and latency percentiles. SolveChain
// (--rpc=solve): --goals targets per call drawn from a seeded generator in the
// box around --center_*; GroundFeet (--rpc=ground): the rig's rest pose with
// its root at seeded places in that box, standing on --terrain. It stops by
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
ABSL_FLAG(int, requests, 20000, "total calls");
ABSL_FLAG(std::string, rpc, "solve",
          "solve (SolveChain) | ground (GroundFeet)");
ABSL_FLAG(std::string, terrain, "stairs", "ground: registered terrain");
ABSL_FLAG(std::string, rig, "humanoid", "rig to solve");
ABSL_FLAG(std::string, chain, "left_arm", "chain to solve");
ABSL_FLAG(int, goals, 1, "goals per request (one tick's batch)");
ABSL_FLAG(double, center_x, 0.35,
          "centre of the target box (ground: root box), world X");
ABSL_FLAG(double, center_y, 1.2, "centre of the box, world Y");
ABSL_FLAG(double, center_z, 0.15, "centre of the box, world Z");
ABSL_FLAG(double, half_size, 0.15, "half size of the box, m");
ABSL_FLAG(uint64_t, seed, 1, "seed of the target generator");

namespace {

struct ThreadResult {
  std::vector<double> latencies_us;
  int failures = 0;
  int reached = 0;
  int goals = 0;  // goals solved, or feet grounded
  std::string first_error;
};

// A seeded point in the box around --center_*.
class BoxPoints {
 public:
  explicit BoxPoints(uint64_t seed)
      : rng_(seed),
        offset_(-absl::GetFlag(FLAGS_half_size),
                absl::GetFlag(FLAGS_half_size)) {}
  void Next(ik::v1::Vec3* point) {
    point->set_x(absl::GetFlag(FLAGS_center_x) + offset_(rng_));
    point->set_y(absl::GetFlag(FLAGS_center_y) + offset_(rng_));
    point->set_z(absl::GetFlag(FLAGS_center_z) + offset_(rng_));
  }

 private:
  std::mt19937_64 rng_;
  std::uniform_real_distribution<double> offset_;
};

// Times one call into `out`; true with the answer when it succeeded.
template <typename Call>
auto Timed(Call&& call, ThreadResult& out) {
  const auto start = std::chrono::steady_clock::now();
  auto answer = call();
  const auto end = std::chrono::steady_clock::now();
  out.latencies_us.push_back(
      std::chrono::duration<double, std::micro>(end - start).count());
  if (!answer.ok() && out.failures++ == 0) {
    out.first_error = answer.status().ToString();
  }
  return answer;
}

void RunSolveCaller(ik::Client& client, int calls, uint64_t seed,
                    ThreadResult& out) {
  BoxPoints targets(seed);
  ik::v1::SolveChainRequest request;
  request.set_rig(absl::GetFlag(FLAGS_rig));
  for (int g = 0; g < absl::GetFlag(FLAGS_goals); ++g) {
    request.add_goals()->set_chain(absl::GetFlag(FLAGS_chain));
  }
  out.latencies_us.reserve(calls);
  for (int i = 0; i < calls; ++i) {
    for (ik::v1::ChainGoal& goal : *request.mutable_goals()) {
      targets.Next(goal.mutable_target());
    }
    auto answer = Timed([&] { return client.SolveChain(request); }, out);
    if (!answer.ok()) continue;
    for (const ik::v1::GoalResult& result : answer->results()) {
      ++out.goals;
      out.reached += result.reached();
    }
  }
}

void RunGroundCaller(ik::Client& client, int calls, uint64_t seed,
                     ThreadResult& out) {
  BoxPoints roots(seed);
  ik::v1::GroundFeetRequest request;
  request.set_rig(absl::GetFlag(FLAGS_rig));
  request.mutable_ground()->add_terrains(absl::GetFlag(FLAGS_terrain));
  out.latencies_us.reserve(calls);
  for (int i = 0; i < calls; ++i) {
    roots.Next(request.mutable_pose()->mutable_root()->mutable_translation());
    auto answer = Timed([&] { return client.GroundFeet(request); }, out);
    if (!answer.ok()) continue;
    for (const ik::v1::FootResult& foot : answer->feet()) {
      out.goals += foot.grounded();
      out.reached += foot.grounded() && foot.reached();
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
  const std::string rpc = absl::GetFlag(FLAGS_rpc);
  if (rpc != "solve" && rpc != "ground") {
    absl::FPrintF(stderr, "ikd_loadgen: --rpc must be solve or ground\n");
    return 2;
  }

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
    callers.emplace_back(rpc == "ground" ? RunGroundCaller : RunSolveCaller,
                         std::ref(client), calls, absl::GetFlag(FLAGS_seed) + t,
                         std::ref(results[t]));
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
  if (rpc == "ground") {
    absl::PrintF(
        "%d GroundFeet calls on '%s' from %d threads in %.2f s: %.0f calls/s\n",
        requests, absl::GetFlag(FLAGS_terrain), threads, seconds,
        requests / seconds);
  } else {
    absl::PrintF(
        "%d calls (%d goals each) from %d threads in %.2f s: %.0f calls/s, "
        "%.0f goals/s\n",
        requests, absl::GetFlag(FLAGS_goals), threads, seconds,
        requests / seconds, goals / seconds);
  }
  absl::PrintF("latency us: p50 %.1f  p90 %.1f  p99 %.1f  max %.1f\n",
               Percentile(latencies, 50), Percentile(latencies, 90),
               Percentile(latencies, 99), latencies.back());
  absl::PrintF("%s reached: %d of %d; failed calls: %d%s%s\n",
               rpc == "ground" ? "grounded feet" : "goals", reached, goals,
               failures, first_error.empty() ? "" : "; first: ", first_error);
  return failures == 0 ? 0 : 1;
}
