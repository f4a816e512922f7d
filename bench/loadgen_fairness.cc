#include "loadgen_fairness.h"

#include <grpc/grpc.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <optional>
#include <thread>

#include "absl/strings/str_format.h"
#include "crowd.h"
#include "loadgen_util.h"

namespace ik::loadgen {
namespace {

// A client on a connection of its own (channels to one target share a
// connection unless told not to), so the server sees it as another peer.
Client OwnConnection(const ClientOptions& base) {
  ClientOptions options = base;
  options.channel_arguments.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
  return Client(options);
}

// Latencies (ms) of `call` repeated for `seconds`, and its failures.
template <typename Call>
std::vector<double> CallFor(double seconds, Call&& call, int& failures) {
  std::vector<double> latencies;
  const auto end =
      std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < end) {
    const auto start = std::chrono::steady_clock::now();
    const bool ok = call();
    latencies.push_back(std::chrono::duration<double, std::milli>(
                            std::chrono::steady_clock::now() - start)
                            .count());
    failures += !ok;
  }
  std::sort(latencies.begin(), latencies.end());
  return latencies;
}

// The SolveChain flood's call: flood_goals FABRIK goals on the tail.
v1::SolveChainRequest HeavySolve(const FairnessOptions& fairness) {
  v1::SolveChainRequest heavy;
  heavy.set_rig("tail");
  BoxPoints tail_targets(fairness.seed + 1, fairness.center,
                         fairness.half_size);
  for (int g = 0; g < fairness.flood_goals; ++g) {
    v1::ChainGoal* tail_goal = heavy.add_goals();
    tail_goal->set_chain("tail");
    tail_goal->set_solver(v1::SOLVER_FABRIK);
    v1::Vec3* target = tail_goal->mutable_target();
    tail_targets.Next(target);
    target->set_x(0.2 + 0.1 * (target->x() - fairness.center[0]));
    target->set_y(0.6 + 0.1 * (target->y() - fairness.center[1]));
    target->set_z(-0.9 + 0.1 * (target->z() - fairness.center[2]));
  }
  return heavy;
}

// One flooding caller until `end`: heavy SolveChains, or the crowd's
// ticks on a TickStream of its own.
void Flood(Client& flood, const FairnessOptions& fairness,
           const v1::SolveChainRequest& heavy, const v1::Rig* rig,
           std::chrono::steady_clock::time_point end, std::atomic<int>& calls,
           std::atomic<int>& failed) {
  if (rig == nullptr) {
    while (std::chrono::steady_clock::now() < end) {
      if (!flood.SolveChain(heavy).ok()) ++failed;
      ++calls;
    }
    return;
  }
  CrowdOptions crowd_options;
  crowd_options.characters = fairness.flood_characters;
  crowd_options.terrain = fairness.terrain;
  crowd_options.detail = v1::TICK_DETAIL_POSE;
  SyntheticCrowd crowd(*rig, crowd_options);
  TickStream stream(flood);
  while (std::chrono::steady_clock::now() < end) {
    absl::StatusOr<v1::TickResponse> answer = stream.Tick(crowd.NextTick());
    if (answer.ok()) {
      crowd.Absorb(*answer);
    } else {
      ++failed;
    }
    ++calls;
  }
}

// This program run with --rpc=flood against the same server for half a
// second more than the victim calls, its output to read; null (after
// saying why) when it cannot start.
FILE* StartFlood(const ClientOptions& options,
                 const FairnessOptions& fairness) {
  char self[4096] = {};
  if (readlink("/proc/self/exe", self, sizeof(self) - 1) <= 0) {
    absl::FPrintF(stderr, "ikd_loadgen: cannot find its own program\n");
    return nullptr;
  }
  const std::string command = absl::StrFormat(
      "'%s' --rpc=flood --server='%s' --seconds=%f --flood_streams=%d "
      "--flood_goals=%d --flood_characters=%d --rig='%s' --terrain='%s' "
      "--seed=%d",
      self, options.target, fairness.seconds + 0.5, fairness.flood_streams,
      fairness.flood_goals, fairness.flood_characters, fairness.rig,
      fairness.terrain, fairness.seed);
  FILE* flood = popen(command.c_str(), "r");
  if (flood == nullptr) {
    absl::FPrintF(stderr, "ikd_loadgen: cannot start the flood\n");
  }
  return flood;
}

// The victim's latencies alone and under the flood, and the health
// checks' under it.
void PrintFairness(const FairnessOptions& fairness,
                   const std::vector<double>& alone,
                   const std::vector<double>& flooded, int flood_calls,
                   const std::vector<double>& health, int health_failures) {
  absl::PrintF("victim alone: %d calls, p50 %.3f ms, p99 %.3f ms\n",
               alone.size(), Percentile(alone, 50), Percentile(alone, 99));
  const std::string what =
      fairness.flood_characters > 0
          ? absl::StrFormat("%d x %d-character TickStream",
                            fairness.flood_streams, fairness.flood_characters)
          : absl::StrFormat("%d x %d-goal SolveChain", fairness.flood_streams,
                            fairness.flood_goals);
  absl::PrintF(
      "victim under a flood of %s (%d flood calls): %d calls, p50 %.3f ms, "
      "p99 %.3f ms; p99 ratio %.2f\n",
      what, flood_calls, flooded.size(), Percentile(flooded, 50),
      Percentile(flooded, 99), Percentile(flooded, 99) / Percentile(alone, 99));
  absl::PrintF("health under the flood: %d checks, p99 %.3f ms, %d failed\n",
               health.size(), Percentile(health, 99), health_failures);
}

}  // namespace

int RunFlood(const ClientOptions& options, const FairnessOptions& fairness) {
  const v1::SolveChainRequest heavy = HeavySolve(fairness);
  Client flood = OwnConnection(options);
  std::optional<v1::Rig> rig;
  if (fairness.flood_characters > 0) {
    absl::StatusOr<v1::GetRigResponse> got = flood.GetRig(fairness.rig);
    if (!got.ok()) {
      absl::FPrintF(stderr, "ikd_loadgen: %s\n", got.status().ToString());
      return 1;
    }
    rig = got->rig();
  }
  std::atomic<int> calls{0};
  std::atomic<int> failed{0};
  const auto end = std::chrono::steady_clock::now() +
                   std::chrono::duration_cast<std::chrono::nanoseconds>(
                       std::chrono::duration<double>(fairness.seconds));
  std::vector<std::thread> flooders;
  for (int f = 0; f < fairness.flood_streams; ++f) {
    flooders.emplace_back([&] {
      Flood(flood, fairness, heavy, rig ? &*rig : nullptr, end, calls, failed);
    });
  }
  for (std::thread& flooder : flooders) flooder.join();
  absl::PrintF("flood calls: %d\n", calls.load());
  return failed == 0 ? 0 : 1;
}

int RunFairness(const ClientOptions& options, const FairnessOptions& fairness) {
  const double seconds = fairness.seconds;
  Client victim = OwnConnection(options);
  Client health = OwnConnection(options);
  v1::SolveChainRequest light;
  light.set_rig(fairness.rig);
  v1::ChainGoal* goal = light.add_goals();
  goal->set_chain(fairness.chain);
  BoxPoints targets(fairness.seed, fairness.center, fairness.half_size);
  const auto victim_call = [&] {
    targets.Next(goal->mutable_target());
    return victim.SolveChain(light).ok();
  };
  const auto health_call = [&] {
    absl::StatusOr<bool> serving = health.CheckHealth();
    return serving.ok() && *serving;
  };
  int failures = 0;
  const std::vector<double> alone = CallFor(seconds, victim_call, failures);

  // The flood runs in a process of its own (this program, --rpc=flood), as
  // another client would: in this one, its threads would share the
  // victim's gRPC client threads and delay the victim's own answers.
  FILE* flood = StartFlood(options, fairness);
  if (flood == nullptr) return 1;
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // flood on
  int flooded_failures = 0;
  std::vector<double> health_latencies;
  int health_failures = 0;
  std::thread checker([&] {
    health_latencies = CallFor(seconds, health_call, health_failures);
  });
  const std::vector<double> flooded =
      CallFor(seconds, victim_call, flooded_failures);
  checker.join();
  int flood_calls = 0;
  if (std::fscanf(flood, "flood calls: %d", &flood_calls) != 1 ||
      pclose(flood) != 0) {
    absl::FPrintF(stderr, "ikd_loadgen: the flood failed\n");
    return 1;
  }

  PrintFairness(fairness, alone, flooded, flood_calls, health_latencies,
                health_failures);
  absl::PrintF("victim failures: %d alone, %d under the flood\n", failures,
               flooded_failures);
  return failures + flooded_failures + health_failures == 0 ? 0 : 1;
}

}  // namespace ik::loadgen
