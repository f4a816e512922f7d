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
// is solved twice and when it is solved in a pair or a group of four. The
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
#include <array>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "benchmark/benchmark.h"
#include "ik/base/math.h"
#include "ik/rig/rig.h"
#include "ik/rig/solve_chain.h"
#include "ik/solvers/two_bone.h"
#include "ozz/animation/runtime/ik_two_bone_job.h"
#include "ozz/animation/runtime/local_to_model_job.h"
#include "ozz/animation/runtime/skeleton.h"
#include "ozz/base/maths/simd_math.h"
#include "ozz/base/maths/simd_quaternion.h"
#include "ozz/base/maths/soa_transform.h"
#include "ozz/base/memory/unique_ptr.h"
#include "ozz_arms.h"
#include "ozz_crowd.h"
#include "ozz_table_reporter.h"

namespace ik::bench {
namespace {

namespace om = ::ozz::math;
namespace oa = ::ozz::animation;

constexpr std::uint64_t kSeed = 18;
constexpr double kIkdBound = 1e-9;  // metres
constexpr double kOzzBound = 1e-4;  // metres
// The crowd's legs come in as animated, some knees within a tenth of a
// degree of straight: IKTwoBoneJob takes their angle as the acos of a float
// cosine near 1, good to about 3e-4 rad (the worst ankle ends 1.3e-4 m off).
constexpr double kOzzCrowdBound = 1e-3;  // metres

// Everything the benchmarks solve, built once by main().
struct Problems {
  std::vector<Arm> arms;
  // ikd: one job per arm (the same outputs), the rig and a goal per arm.
  std::vector<std::array<Transform, 3>> models;
  std::vector<TwoBoneJob> ikd_jobs;
  Quat ikd_root_correction;
  Quat ikd_mid_correction;
  SolveReport ikd_report;
  // The same jobs for RunTwoBoneJobs, in groups of two or four: arm i
  // writes to outputs i % 4.
  std::vector<TwoBoneJob> ikd_group_jobs;
  Quat ikd_group_root_corrections[4];
  Quat ikd_group_mid_corrections[4];
  SolveReport ikd_group_reports[4];
  std::optional<Rig> rig;
  std::vector<ChainGoal> goals;
  // ozz: the same, in its types.
  std::vector<std::array<om::Float4x4, 3>> ozz_models;
  std::vector<oa::IKTwoBoneJob> ozz_jobs;
  om::SimdQuaternion ozz_root_correction;
  om::SimdQuaternion ozz_mid_correction;
  ozz::unique_ptr<oa::Skeleton> skeleton;
  std::vector<om::SoaTransform> ozz_locals;
  // Per arm, IKTwoBoneJob's inputs for the whole goal (the joints' model
  // matrices come from LocalToModelJob).
  std::vector<oa::IKTwoBoneJob> ozz_goal_jobs;
  om::Float4x4 ozz_goal_models[3];
  // The worst errors found by the checks.
  AnswerErrors ikd_two_bone, ozz_two_bone, ikd_goal, ozz_goal;
};

Problems* g_problems = nullptr;
CrowdCharacters* g_crowd = nullptr;

// The timed work of one ikd whole goal: `locals` starts as the arm's pose.
absl::Status SolveIkdGoal(const Problems& p, int arm, ArmPose& locals,
                          SolveChainWorkspace& workspace,
                          ChainSolveResult& result) {
  locals = p.arms[arm].locals;
  SolveChainJob job;
  job.rig = &*p.rig;
  job.goal = &p.goals[arm];
  job.locals = absl::MakeSpan(locals);
  job.workspace = &workspace;
  job.result = &result;
  return job.Run();
}

// The timed work of one ozz whole goal: `locals` starts as the arm's pose.
bool SolveOzzGoal(Problems& p, int arm, om::SoaTransform& locals) {
  locals = p.ozz_locals[arm];
  oa::LocalToModelJob forward;
  forward.skeleton = p.skeleton.get();
  forward.input = ozz::span<const om::SoaTransform>(&locals, 1);
  forward.output = ozz::span<om::Float4x4>(p.ozz_goal_models, 3);
  if (!forward.Run() || !p.ozz_goal_jobs[arm].Run()) return false;
  // Both corrections in one SoA multiply: shoulder in lane 0, elbow in 1.
  const om::SimdFloat4 identity = om::simd_float4::w_axis();
  const om::SimdFloat4 corrections[4] = {p.ozz_root_correction.xyzw,
                                         p.ozz_mid_correction.xyzw, identity,
                                         identity};
  om::SimdFloat4 soa[4];
  om::Transpose4x4(corrections, soa);
  locals.rotation =
      locals.rotation * om::SoaQuaternion::Load(soa[0], soa[1], soa[2], soa[3]);
  return forward.Run();
}

// Builds the problems of both libraries; false (printed) when the rig or
// the skeleton cannot be built.
bool BuildProblems(Problems& p) {
  p.arms = MakeArms(kSeed);
  absl::StatusOr<Rig> rig = MakeArmRig();
  if (rig.ok()) p.skeleton = MakeSkeleton(*rig);
  if (!rig.ok() || p.skeleton == nullptr || p.skeleton->num_joints() != 3) {
    std::fprintf(stderr, "FAIL: building the arm: %s\n",
                 rig.status().ToString().c_str());
    return false;
  }
  p.rig = *std::move(rig);
  const Chain* chain = p.rig->FindChain("arm");
  for (const Arm& arm : p.arms) {
    p.models.push_back(ArmModels(arm.locals));
    TwoBoneJob job;
    job.root_model = p.models.back()[0];
    job.mid_model = p.models.back()[1];
    job.tip_model = p.models.back()[2];
    job.target_model = arm.target_model;
    job.pole_model = arm.pole_model;
    job.root_correction = &p.ikd_root_correction;
    job.mid_correction = &p.ikd_mid_correction;
    job.report = &p.ikd_report;
    p.ikd_jobs.push_back(job);
    const int lane = static_cast<int>(p.ikd_group_jobs.size() % 4);
    job.root_correction = &p.ikd_group_root_corrections[lane];
    job.mid_correction = &p.ikd_group_mid_corrections[lane];
    job.report = &p.ikd_group_reports[lane];
    p.ikd_group_jobs.push_back(job);
    ChainGoal goal;
    goal.chain = chain;
    goal.target_world = arm.target_model;
    goal.pole_world = arm.pole_model;
    p.goals.push_back(goal);

    oa::IKTwoBoneJob ozz_job;
    ozz_job.target = ToSimd(arm.target_model);
    ozz_job.pole_vector = ToSimd(arm.pole_model - arm.locals[0].translation);
    ozz_job.mid_axis = ToSimd(arm.opening_axis_local);
    ozz_job.start_joint_correction = &p.ozz_root_correction;
    ozz_job.mid_joint_correction = &p.ozz_mid_correction;
    ozz_job.start_joint = &p.ozz_goal_models[0];
    ozz_job.mid_joint = &p.ozz_goal_models[1];
    ozz_job.end_joint = &p.ozz_goal_models[2];
    p.ozz_goal_jobs.push_back(ozz_job);
    p.ozz_locals.push_back(ToSoa(arm.locals));
    p.ozz_models.push_back({ToMatrix(p.models.back()[0]),
                            ToMatrix(p.models.back()[1]),
                            ToMatrix(p.models.back()[2])});
  }
  // Pointers into ozz_models only once it stops growing.
  for (int i = 0; i < kArmCount; ++i) {
    oa::IKTwoBoneJob job = p.ozz_goal_jobs[i];
    job.start_joint = &p.ozz_models[i][0];
    job.mid_joint = &p.ozz_models[i][1];
    job.end_joint = &p.ozz_models[i][2];
    p.ozz_jobs.push_back(job);
  }
  return true;
}

// Solves that failed and arms whose answers differed in a bit.
struct CheckCounts {
  int failed_solves = 0;
  int different_bits = 0;
};

// RunTwoBoneJobs, `size` (2 or 4) at a time: each arm Run's bits.
void CheckGroups(Problems& p, int size, CheckCounts& counts) {
  for (int i = 0; i < kArmCount; i += size) {
    absl::Status statuses[4];
    if (!RunTwoBoneJobs(absl::MakeConstSpan(&p.ikd_group_jobs[i], size),
                        absl::MakeSpan(statuses, size))
             .ok()) {
      ++counts.failed_solves;
    }
    for (int lane = 0; lane < size; ++lane) {
      if (!statuses[lane].ok() || !p.ikd_jobs[i + lane].Run().ok()) {
        ++counts.failed_solves;
      }
      const int out = (i + lane) % 4;  // where arm i + lane writes
      if (std::memcmp(&p.ikd_root_correction,
                      &p.ikd_group_root_corrections[out], sizeof(Quat)) != 0 ||
          std::memcmp(&p.ikd_mid_correction, &p.ikd_group_mid_corrections[out],
                      sizeof(Quat)) != 0) {
        ++counts.different_bits;
      }
    }
  }
}

// Each arm solved by ikd's two-bone job and whole goal (each twice: the
// same bits) and by ozz's; the worst errors into `p`.
void CheckArms(Problems& p, CheckCounts& counts) {
  SolveChainWorkspace workspace;
  ChainSolveResult result;
  for (int i = 0; i < kArmCount; ++i) {
    const Arm& arm = p.arms[i];
    // ikd's two-bone job, twice: the same bits.
    if (!p.ikd_jobs[i].Run().ok()) ++counts.failed_solves;
    const Quat root = p.ikd_root_correction, mid = p.ikd_mid_correction;
    if (!p.ikd_jobs[i].Run().ok()) ++counts.failed_solves;
    if (std::memcmp(&root, &p.ikd_root_correction, sizeof(Quat)) != 0 ||
        std::memcmp(&mid, &p.ikd_mid_correction, sizeof(Quat)) != 0) {
      ++counts.different_bits;
    }
    CheckAnswer(arm, Corrected(arm.locals, root, mid), p.ikd_two_bone);
    // ikd's whole goal, twice from the same start: the same bits.
    ArmPose first, second;
    if (!SolveIkdGoal(p, i, first, workspace, result).ok() ||
        !SolveIkdGoal(p, i, second, workspace, result).ok()) {
      ++counts.failed_solves;
    }
    if (std::memcmp(&first, &second, sizeof(ArmPose)) != 0) {
      ++counts.different_bits;
    }
    CheckAnswer(arm, first, p.ikd_goal);
    // ozz's.
    if (!p.ozz_jobs[i].Run()) ++counts.failed_solves;
    CheckAnswer(arm,
                Corrected(arm.locals, ToQuat(p.ozz_root_correction),
                          ToQuat(p.ozz_mid_correction)),
                p.ozz_two_bone);
    om::SoaTransform solved;
    if (!SolveOzzGoal(p, i, solved)) ++counts.failed_solves;
    CheckAnswer(arm, FromSoa(solved), p.ozz_goal);
  }
}

// Prints the worst errors and the bit check; false (printing why) when an
// answer is off, a solve failed or ikd's answers differed in a bit.
bool ReportAnswers(const Problems& p, const CheckCounts& counts) {
  const struct {
    const char* name;
    const AnswerErrors& errors;
    double bound;
  } rows[] = {{"ikd two-bone job", p.ikd_two_bone, kIkdBound},
              {"ozz two-bone job", p.ozz_two_bone, kOzzBound},
              {"ikd whole goal", p.ikd_goal, kIkdBound},
              {"ozz whole goal", p.ozz_goal, kOzzBound}};
  std::printf(
      "Checked by double-precision forward kinematics, worst of %d arms:\n"
      "%-18s %13s %13s %13s %11s\n",
      kArmCount, "", "tip-target m", "off-plane m", "bone-len m", "wrong side");
  for (const auto& row : rows) {
    std::printf("%-18s %13.3g %13.3g %13.3g %11d\n", row.name,
                row.errors.tip_to_target, row.errors.elbow_off_pole_plane,
                row.errors.bone_length_error, row.errors.elbows_on_wrong_side);
  }
  std::printf(
      "ikd solved twice, and by Run and RunTwoBoneJobs in pairs and in "
      "fours: %d of %d grouped solves gave different bits\n",
      counts.different_bits, 2 * kArmCount);
  std::fflush(stdout);
  bool ok = counts.failed_solves == 0 && counts.different_bits == 0;
  for (const auto& row : rows) {
    if (!WithinBound(row.errors, row.bound)) {
      std::fprintf(stderr, "FAIL: %s is off by more than %g m\n", row.name,
                   row.bound);
      ok = false;
    }
  }
  if (counts.failed_solves != 0) {
    std::fprintf(stderr, "FAIL: %d solves returned an error\n",
                 counts.failed_solves);
  }
  if (counts.different_bits != 0) {
    std::fprintf(stderr, "FAIL: ikd gave different bits for the same arm\n");
  }
  return ok;
}

// Solves every arm once with each library, ikd twice, in pairs and in fours;
// records the worst errors in `p`, prints them and returns false (printing
// why) when an answer is off, a solve fails or ikd's answers differ in a
// bit.
bool CheckAnswers(Problems& p) {
  CheckCounts counts;
  CheckGroups(p, 2, counts);
  CheckGroups(p, 4, counts);
  CheckArms(p, counts);
  return ReportAnswers(p, counts);
}

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
