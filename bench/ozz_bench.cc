// ikd against ozz-animation, side by side, on the same 1,024 seeded arms
// (upper arm 0.30 m, forearm 0.25 m, a random shoulder placement, elbow
// hinge and bend, a random pole and a random reachable target):
//   BM_IkdTwoBonePole / BM_OzzTwoBonePole: the two-bone job alone, with a
//     pole (ik::TwoBoneJob with pole_model; ozz::animation::IKTwoBoneJob with
//     pole_vector and the elbow's hinge as mid_axis), from the arm's model
//     transforms (ozz's rounded to float).
//   BM_IkdTwoBonePolePairs / BM_IkdTwoBonePoleQuads: ikd's same jobs two
//     or four at a time through ik::RunTwoBoneJobs (SIMD lanes: SSE2 pairs,
//     AVX groups of four where the processor has AVX; each job Run's bits),
//     against BM_OzzTwoBonePole per job.
//   BM_IkdWholeGoal / BM_OzzWholeGoal: a whole goal on the arm's local pose:
//     forward kinematics, solve, apply, re-measure. ikd: ik::SolveChainJob on
//     a 3-joint rig with a two-bone chain, no joint limits, pole_world set.
//     ozz: LocalToModelJob, IKTwoBoneJob, the corrections post-multiplied
//     into the SoA locals, LocalToModelJob again.
//   BM_IkdWholeGoalQuads: ikd's same whole goals four at a time through
//     ik::RunSolveChainJobs (the two-bone solves in SIMD lanes, each goal
//     Run's bits), against BM_OzzWholeGoal per goal.
//   BM_IkdCrowdCharacter / BM_OzzCrowdCharacter: the example crowd's whole
//     character, 1,000 of them per iteration (bench/ozz_crowd.h: ikd's
//     TickBatchJob against ozz's LocalToModelJob, IKTwoBoneJob and IKAimJob
//     with ikd's rays and dynamics step), checked the same way: ankles on
//     their goals, wrists on their targets.
// Each iteration solves the next arm from that arm's own start pose. Before
// timing, every answer is checked by a double-precision forward
// kinematics of the bench's own (bench/ozz_arms.cc): the wrist's distance to
// the target, the elbow's distance from the shoulder-target-pole plane and
// its side, the bone lengths, and that ikd gives the same bits when an arm
// is solved twice and when it is solved in a pair or a group of four (its
// whole goal too, in a group of four). The
// worst values become counters; an answer off by more than 1e-9 m (ikd) or
// 1e-4 m (ozz, in floats) fails the program. It ends with a table of median CPU
// times.
//
// Optional, never built by default or in CI. From a fresh ikd checkout
// (CMake >= 3.24, which ozz's CMakeLists requires):
//   git clone --depth 1 --branch 0.16.0
//     https://github.com/guillaumeblanc/ozz-animation ../ozz-animation
//   cmake -S . -B build-ozz -DIKD_OZZ_DIR=$PWD/../ozz-animation
//   cmake --build build-ozz -j2 --target ozz_bench
//   build-ozz/bench/ozz_bench
// (10 repetitions, aggregates only, in random order, unless
// --benchmark_repetitions or --benchmark_enable_random_interleaving is given.)
// ozz builds -O2 (SSE2), ikd's core with its own flags (bench/CMakeLists.txt).
#include <cstdio>
#include <cstring>
#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "benchmark/benchmark.h"
#include "ik/rig/solve_chain.h"
#include "ik/solvers/two_bone.h"
#include "ozz/base/maths/soa_transform.h"
#include "ozz_arms.h"
#include "ozz_crowd.h"
#include "ozz_problems.h"
#include "ozz_table_reporter.h"

namespace ik::bench {
namespace {

namespace om = ::ozz::math;

Problems* g_problems = nullptr;
CrowdCharacters* g_crowd = nullptr;

void SetCounters(benchmark::State& state, const AnswerErrors& errors) {
  state.counters["tip_err_m"] = errors.tip_to_target;
  state.counters["plane_err_m"] = errors.elbow_off_pole_plane;
  state.counters["bone_err_m"] = errors.bone_length_error;
  state.SetItemsProcessed(state.iterations());
}

void BM_IkdTwoBonePole(benchmark::State& state) {
  const Problems& p = *g_problems;
  int next = 0;
  for (auto _ : state) {
    const absl::Status status = p.ikd_jobs[next].Run();
    next = (next + 1) & (kArmCount - 1);
    benchmark::DoNotOptimize(status);
    benchmark::DoNotOptimize(p.ikd_root_correction);
    benchmark::DoNotOptimize(p.ikd_mid_correction);
  }
  SetCounters(state, p.ikd_two_bone);
}
BENCHMARK(BM_IkdTwoBonePole);

// `size` arms per iteration through RunTwoBoneJobs (SIMD lanes: pairs of
// SSE2, or groups of four in AVX where the processor has it); the table
// gives the time per arm.
void SolveGroups(benchmark::State& state, int size) {
  const Problems& p = *g_problems;
  absl::Status statuses[4];
  int next = 0;
  for (auto _ : state) {
    const absl::Status status =
        RunTwoBoneJobs(absl::MakeConstSpan(&p.ikd_group_jobs[next], size),
                       absl::MakeSpan(statuses, size));
    next = (next + size) & (kArmCount - 1);
    benchmark::DoNotOptimize(status);
    benchmark::DoNotOptimize(statuses);
    benchmark::DoNotOptimize(p.ikd_group_root_corrections);
    benchmark::DoNotOptimize(p.ikd_group_mid_corrections);
  }
  SetCounters(state, p.ikd_two_bone);
  state.SetItemsProcessed(size * state.iterations());
}
void BM_IkdTwoBonePolePairs(benchmark::State& state) { SolveGroups(state, 2); }
BENCHMARK(BM_IkdTwoBonePolePairs);
void BM_IkdTwoBonePoleQuads(benchmark::State& state) { SolveGroups(state, 4); }
BENCHMARK(BM_IkdTwoBonePoleQuads);

void BM_OzzTwoBonePole(benchmark::State& state) {
  const Problems& p = *g_problems;
  int next = 0;
  for (auto _ : state) {
    const bool ok = p.ozz_jobs[next].Run();
    next = (next + 1) & (kArmCount - 1);
    benchmark::DoNotOptimize(ok);
    benchmark::DoNotOptimize(p.ozz_root_correction);
    benchmark::DoNotOptimize(p.ozz_mid_correction);
  }
  SetCounters(state, p.ozz_two_bone);
}
BENCHMARK(BM_OzzTwoBonePole);

void BM_IkdWholeGoal(benchmark::State& state) {
  const Problems& p = *g_problems;
  ArmPose locals;
  SolveChainWorkspace workspace;
  ChainSolveResult result;
  int next = 0;
  for (auto _ : state) {
    const absl::Status status =
        SolveIkdGoal(p, next, locals, workspace, result);
    next = (next + 1) & (kArmCount - 1);
    benchmark::DoNotOptimize(status);
    benchmark::DoNotOptimize(locals);
    benchmark::DoNotOptimize(result);
  }
  SetCounters(state, p.ikd_goal);
}
BENCHMARK(BM_IkdWholeGoal);

// Four arms per iteration through RunSolveChainJobs; the table gives the
// time per goal.
void BM_IkdWholeGoalQuads(benchmark::State& state) {
  const Problems& p = *g_problems;
  GoalQuad quad;
  int next = 0;
  for (auto _ : state) {
    const absl::Status status = SolveIkdGoalQuad(p, next, quad);
    next = (next + 4) & (kArmCount - 1);
    benchmark::DoNotOptimize(status);
    benchmark::DoNotOptimize(quad.locals);
    benchmark::DoNotOptimize(quad.results);
  }
  SetCounters(state, p.ikd_goal);
  state.SetItemsProcessed(4 * state.iterations());
}
BENCHMARK(BM_IkdWholeGoalQuads);

void BM_OzzWholeGoal(benchmark::State& state) {
  Problems& p = *g_problems;
  om::SoaTransform locals;
  int next = 0;
  for (auto _ : state) {
    const bool ok = SolveOzzGoal(p, next, locals);
    next = (next + 1) & (kArmCount - 1);
    benchmark::DoNotOptimize(ok);
    benchmark::DoNotOptimize(locals);
  }
  SetCounters(state, p.ozz_goal);
}
BENCHMARK(BM_OzzWholeGoal);

void BM_IkdCrowdCharacter(benchmark::State& state) {
  g_crowd->Measure(state, CrowdCharacters::Side::kIkd);
}
BENCHMARK(BM_IkdCrowdCharacter)->Unit(benchmark::kMillisecond);

void BM_OzzCrowdCharacter(benchmark::State& state) {
  g_crowd->Measure(state, CrowdCharacters::Side::kOzz);
}
BENCHMARK(BM_OzzCrowdCharacter)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace ik::bench

int main(int argc, char** argv) {
  // Ten repetitions, aggregates only, the repetitions of all the
  // benchmarks run in random order (Google Benchmark's random interleaving,
  // so a drift of this machine's speed falls on both libraries alike),
  // unless told otherwise.
  std::vector<char*> args(argv, argv + argc);
  bool repetitions_given = false;
  bool interleaving_given = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--benchmark_repetitions", 23) == 0) {
      repetitions_given = true;
    }
    if (std::strncmp(argv[i], "--benchmark_enable_random_interleaving", 38) ==
        0) {
      interleaving_given = true;
    }
  }
  static char repetitions[] = "--benchmark_repetitions=10";
  static char aggregates_only[] = "--benchmark_report_aggregates_only=true";
  static char interleaving[] = "--benchmark_enable_random_interleaving=true";
  if (!repetitions_given) {
    args.push_back(repetitions);
    args.push_back(aggregates_only);
  }
  if (!interleaving_given) args.push_back(interleaving);
  int count = static_cast<int>(args.size());
  args.push_back(nullptr);
  benchmark::Initialize(&count, args.data());
  if (benchmark::ReportUnrecognizedArguments(count, args.data())) return 1;

  ik::bench::Problems problems;
  if (!ik::bench::BuildProblems(problems) ||
      !ik::bench::CheckAnswers(problems)) {
    return 1;
  }
  std::unique_ptr<ik::bench::CrowdCharacters> crowd =
      ik::bench::CrowdCharacters::Create();
  if (crowd == nullptr ||
      !crowd->CheckAnswers(ik::bench::kIkdBound, ik::bench::kOzzCrowdBound)) {
    return 1;
  }
  ik::bench::g_problems = &problems;
  ik::bench::g_crowd = crowd.get();
  ik::bench::TableReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  reporter.PrintTable(crowd->characters());
  benchmark::Shutdown();
  return 0;
}
