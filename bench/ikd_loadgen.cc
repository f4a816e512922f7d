// ikd_loadgen: a bounded load generator for a running ikd.
//
//   ikd_loadgen --server=127.0.0.1:50051 --threads=4 --requests=20000
//               --rig=humanoid --chain=left_arm --goals=8
//
//   ikd_loadgen --rpc=ground --terrain=stairs --center_x=0 --center_y=0.3
//               --center_z=0.9 --half_size=0.6
//
//   ikd_loadgen --rpc=health --threads=8 --requests=20000   (the reference)
//
//   ikd_loadgen --rpc=tick --characters=1000 --ticks=100 [--stream]
//               [--pose_only] [--ikd_pid=PID] [--single_ticks=3]
//               [--solver_threads=1,2] [--core_reference=false]
//
// Each thread sends --requests/--threads calls back to back on one shared
// channel, then the tool prints throughput and latency percentiles. SolveChain
// (--rpc=solve): --goals targets per call drawn from a seeded generator in the
// box around --center_*; GroundFeet (--rpc=ground): the rig's rest pose with
// its root at seeded places in that box, standing on --terrain. It stops by
// itself: the work is a fixed count, and every call has a deadline. Use only
// against servers on this machine (loopback).
//
// Tick (--rpc=tick): the synthetic crowd of client/crowd/crowd.h
// (--characters of --rig walking over --terrain: full animated pose,
// grounding of both legs, two hand goals, dynamics states carried tick to
// tick), --ticks ticks back to back from one caller, unary or on one
// TickStream; then the same crowd's next --single_ticks ticks as single
// calls (GroundFeet, SolveChain, StepDynamics per character), for the ratio
// in the same run. With --ikd_pid, ikd's CPU time (user + system,
// /proc/PID/stat) per tick and per character for both (bench/loadgen_tick.cc),
// and, when ikd records (--record_dir), its recording writer's share of it.
// With --solver_threads=1,2,...: instead of --server, an ikd started in this
// process for each count (serving --examples_dir's rigs and terrains on a
// loopback port), the same load against each, and each count's latencies
// against one thread's. Then the core reference (unless
// --core_reference=false): the last tick's request converted as ikd converts
// it and run through ik::TickBatchJob in this process, timed with Google
// Benchmark (bench/crowd_core.h), against ikd's CPU per character.
//
// Fairness (--rpc=fairness, bench/loadgen_fairness.h): a victim client
// (one --chain goal per SolveChain, back to back, --victim_token; --victim:
// tiny with the chain's solver, answered inline, or pooled with
// SOLVER_FABRIK, which takes the solver pool) for --seconds alone, then for
// --seconds under each --flood kind in turn (bench/loadgen_flood.h): a
// flooding client -- this program again, --rpc=flood, in a process of its
// own, --flood_token -- keeping --flood_streams calls in flight on its own
// connection; health checks on a third connection meanwhile. Prints a
// markdown table row per kind and victim: the victim's p50/p99 alone and
// flooded, the health checks' p99 and max, the flood's CPU.
//
//   ikd_loadgen --rpc=fairness --flood=all --seconds=3
//               --victim_token=READ_TOKEN --flood_token=ADMIN_TOKEN
//
// scripts/bench-fairness.sh starts an ikd with two such tokens and runs it.
//
// Unread (--rpc=unread, bench/loadgen_unread.h): callers that write large
// ticks on TickStreams and never read them; ikd's VmRSS (--ikd_pid) idle and
// at its peak. scripts/bench-unread.sh starts an ikd and runs it.
#include <malloc.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/time.h"
#include "crowd.h"
#include "ik/client.h"
#include "loadgen_fairness.h"
#include "loadgen_flood.h"
#include "loadgen_tick.h"
#include "loadgen_unread.h"
#include "loadgen_util.h"

ABSL_FLAG(std::string, server, "127.0.0.1:50051", "ikd address");
ABSL_FLAG(int, threads, 2, "concurrent callers");
ABSL_FLAG(int, requests, 20000, "total calls");
ABSL_FLAG(std::string, rpc, "solve",
          "solve (SolveChain) | ground (GroundFeet) | health (gRPC's "
          "Health.Check, the reference) | tick (Tick, TickStream) "
          "| fairness (a victim alone, then under each --flood) | flood (one "
          "--flood alone, for --seconds) | unread (callers that never read "
          "their TickStreams' answers, and ikd's memory)");
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
ABSL_FLAG(int, characters, 1000, "tick, unread: characters per tick");
ABSL_FLAG(int, ticks, 100, "tick: ticks to send");
ABSL_FLAG(bool, stream, false, "tick: send the ticks on one TickStream");
ABSL_FLAG(bool, baselines, false,
          "tick, with --stream and a compact --pose_form: send each "
          "character on its baseline once answered (TickCharacter.baseline: "
          "no rig, only the changed joints, no dynamics states)");
ABSL_FLAG(std::string, pose_form, "compact",
          "tick: how each pose is sent: compact (CompactPose, float32), "
          "quantized (CompactPose, 48-bit rotations), packed "
          "(Pose.rotations, doubles) or joints (a JointPose per joint)");
ABSL_FLAG(bool, pose_only, false,
          "tick: ask for the final poses, statuses and dynamics states only "
          "(TICK_DETAIL_POSE)");
ABSL_FLAG(bool, job_rotations, false,
          "tick: ask for each job's rotations too (TickRequest.job_rotations)");
ABSL_FLAG(int, single_ticks, 3,
          "tick: ticks run again as single calls for comparison (0: none)");
ABSL_FLAG(int, ikd_pid, 0,
          "tick: ikd's process id, to report its CPU time (0: not reported); "
          "unread: to read its memory (required)");
ABSL_FLAG(std::vector<std::string>, solver_threads, {},
          "tick: solver thread counts, e.g. 1,2: for each, an ikd in this "
          "process with that many solver threads serving --examples_dir on a "
          "loopback port, loaded in turn instead of --server (empty: "
          "--server)");
ABSL_FLAG(std::string, examples_dir, IK_EXAMPLES_DIR,
          "tick: the examples' directory (rigs/, terrains/) the ikd in this "
          "process serves and the core reference reads");
ABSL_FLAG(bool, core_reference, true,
          "tick: also time the last tick through the core in this process "
          "(TickBatchJob; needs --examples_dir to hold the target's rig and "
          "terrain)");
ABSL_FLAG(double, core_min_time, 0.5,
          "tick: the core reference's seconds per repetition (3 "
          "repetitions, the median reported)");

namespace {

using ik::loadgen::Percentile;

struct ThreadResult {
  std::vector<double> latencies_us;
  int failures = 0;
  int reached = 0;
  int goals = 0;  // goals solved, or feet grounded
  std::string first_error;
};

// A seeded point in the box --center_* and --half_size give.
ik::loadgen::BoxPoints FlagBox(uint64_t seed) {
  return ik::loadgen::BoxPoints(
      seed,
      {absl::GetFlag(FLAGS_center_x), absl::GetFlag(FLAGS_center_y),
       absl::GetFlag(FLAGS_center_z)},
      absl::GetFlag(FLAGS_half_size));
}

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
  ik::loadgen::BoxPoints targets = FlagBox(seed);
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
  ik::loadgen::BoxPoints roots = FlagBox(seed);
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

// gRPC's own Health.Check, the reference for a single call's cost: the same
// callers and channel, a call that never reaches the solver pool.
void RunHealthCaller(ik::Client& client, int calls, uint64_t /*seed*/,
                     ThreadResult& out) {
  out.latencies_us.reserve(calls);
  for (int i = 0; i < calls; ++i) {
    auto serving = Timed([&] { return client.CheckHealth(); }, out);
    if (serving.ok()) {
      ++out.goals;
      out.reached += *serving;
    }
  }
}

// --solver_threads as counts (each >= 1) into `counts`; false (after
// saying why) for anything else.
bool ParseSolverThreads(std::vector<int>& counts) {
  for (const std::string& count : absl::GetFlag(FLAGS_solver_threads)) {
    int threads = 0;
    if (!absl::SimpleAtoi(count, &threads) || threads < 1) {
      absl::FPrintF(stderr,
                    "ikd_loadgen: --solver_threads takes counts >= 1 "
                    "separated by commas, not '%s'\n",
                    count);
      return false;
    }
    counts.push_back(threads);
  }
  if (!counts.empty() && absl::GetFlag(FLAGS_ikd_pid) != 0) {
    absl::FPrintF(stderr,
                  "ikd_loadgen: --ikd_pid reads another process; with "
                  "--solver_threads ikd runs in this one\n");
    return false;
  }
  return true;
}

// --rpc=tick: the synthetic crowd's ticks (ik::loadgen::RunTick) with the
// flags' options.
int RunTick(const ik::ClientOptions& options) {
  ik::loadgen::TickLoadOptions tick;
  tick.rig = absl::GetFlag(FLAGS_rig);
  tick.crowd.characters = std::max(1, absl::GetFlag(FLAGS_characters));
  tick.crowd.terrain = absl::GetFlag(FLAGS_terrain);
  tick.crowd.seed = absl::GetFlag(FLAGS_seed);
  if (!ik::ParseCrowdPoseForm(absl::GetFlag(FLAGS_pose_form),
                              &tick.crowd.pose_form)) {
    absl::FPrintF(stderr, "ikd_loadgen: --pose_form must be %s\n",
                  ik::kCrowdPoseFormNames);
    return 2;
  }
  tick.crowd.job_rotations = absl::GetFlag(FLAGS_job_rotations);
  if (absl::GetFlag(FLAGS_pose_only)) {
    tick.crowd.detail = ik::v1::TICK_DETAIL_POSE;
  }
  tick.ticks = std::max(1, absl::GetFlag(FLAGS_ticks));
  tick.single_ticks = absl::GetFlag(FLAGS_single_ticks);
  tick.stream = absl::GetFlag(FLAGS_stream);
  tick.crowd.baselines = absl::GetFlag(FLAGS_baselines);
  if (tick.crowd.baselines &&
      (!tick.stream ||
       (tick.crowd.pose_form != ik::CrowdPoseForm::kCompact &&
        tick.crowd.pose_form != ik::CrowdPoseForm::kCompactQuantized))) {
    absl::FPrintF(stderr,
                  "ikd_loadgen: --baselines needs --stream and --pose_form "
                  "compact or quantized\n");
    return 2;
  }
  tick.ikd_pid = absl::GetFlag(FLAGS_ikd_pid);
  if (!ParseSolverThreads(tick.solver_threads)) return 2;
  tick.examples_dir = absl::GetFlag(FLAGS_examples_dir);
  tick.core_reference = absl::GetFlag(FLAGS_core_reference);
  tick.core_timing.min_time = absl::GetFlag(FLAGS_core_min_time);
  return ik::loadgen::RunTick(options, tick);
}

// --rpc=solve, --rpc=ground and --rpc=health: `requests` calls from
// `threads` callers, then the rate, the latencies and the goals reached.
int RunCallers(ik::Client& client, const std::string& rpc, int threads,
               int requests) {
  std::vector<ThreadResult> results(threads);
  std::vector<std::thread> callers;
  const auto start = std::chrono::steady_clock::now();
  for (int t = 0; t < threads; ++t) {
    const int calls = requests / threads + (t < requests % threads ? 1 : 0);
    callers.emplace_back(rpc == "ground"   ? RunGroundCaller
                         : rpc == "health" ? RunHealthCaller
                                           : RunSolveCaller,
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
  } else if (rpc == "health") {
    absl::PrintF(
        "%d Health.Check calls from %d threads in %.2f s: %.0f "
        "calls/s\n",
        requests, threads, seconds, requests / seconds);
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
  absl::PrintF("%s: %d of %d; failed calls: %d%s%s\n",
               rpc == "ground"   ? "grounded feet reached"
               : rpc == "health" ? "answers SERVING"
                                 : "goals reached",
               reached, goals, failures,
               first_error.empty() ? "" : "; first: ", first_error);
  return failures == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  // As ikd does: megabyte ticks reuse heap buffers instead of fresh mapped
  // pages (the loadgen shares the machine with the server it measures).
  mallopt(M_MMAP_THRESHOLD, 64 << 20);
  mallopt(M_TRIM_THRESHOLD, 256 << 20);
  const int threads = std::max(1, absl::GetFlag(FLAGS_threads));
  const int requests = std::max(1, absl::GetFlag(FLAGS_requests));
  const std::string rpc = absl::GetFlag(FLAGS_rpc);
  if (rpc != "solve" && rpc != "ground" && rpc != "health" && rpc != "tick" &&
      rpc != "fairness" && rpc != "flood" && rpc != "unread") {
    absl::FPrintF(stderr,
                  "ikd_loadgen: --rpc must be solve, ground, health, tick, "
                  "fairness, flood or unread\n");
    return 2;
  }

  std::optional<ik::loadgen::FairnessOptions> fairness;
  if (rpc == "fairness" || rpc == "flood") {
    absl::StatusOr<ik::loadgen::FairnessOptions> flags =
        ik::loadgen::FairnessOptionsFromFlags(rpc == "flood");
    if (!flags.ok()) {
      absl::FPrintF(stderr, "ikd_loadgen: %s\n", flags.status().message());
      return 2;
    }
    fairness = *std::move(flags);
  }

  ik::ClientOptions options;
  options.target = absl::GetFlag(FLAGS_server);
  options.deadline = absl::Seconds(10);
  // The tick and unread modes check their own target (--server, or the ikds
  // the tick starts).
  if (rpc == "tick") return RunTick(options);
  if (rpc == "unread") return ik::loadgen::RunUnreadWithFlags(options);
  ik::Client client(options);
  if (absl::StatusOr<bool> serving = client.CheckHealth();
      !serving.ok() || !*serving) {
    absl::FPrintF(stderr, "ikd_loadgen: %s is not serving\n", options.target);
    return 1;
  }
  if (rpc == "fairness") return ik::loadgen::RunFairness(options, *fairness);
  if (rpc == "flood") {
    options.token = fairness->flood_token;
    return ik::loadgen::RunFlood(options, fairness->flood);
  }
  return RunCallers(client, rpc, threads, requests);
}
