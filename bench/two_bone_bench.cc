// Benchmarks of the analytic two-bone solve on the example humanoid's left
// arm: the bare TwoBoneJob, and SolveChainJob::Run (validation, forward
// kinematics down the chain, the solve, applying and re-measuring); and both
// on 1,024 seeded free arms (upper arm 0.30 m, forearm 0.25 m, no limits, a
// random pole), the inputs of bench/ozz_bench.cc's side-by-side table.
//
//   build/bench/two_bone_bench --benchmark_repetitions=5
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <random>
#include <utility>
#include <vector>

#include "bench_rigs.h"
#include "benchmark/benchmark.h"
#include "draws.h"
#include "humanoid_rig.h"
#include "ik/base/math.h"
#include "ik/rig/forward_kinematics.h"
#include "ik/rig/solve_chain.h"
#include "ik/solvers/two_bone.h"

namespace ik {
namespace {

constexpr int kTargetCount = 1024;

using ::ik::bench::Humanoid;

// Reachable model-space targets around the left shoulder, seeded.
std::vector<Vec3> ReachableTargets(const Vec3& shoulder_model) {
  std::mt19937_64 engine(42);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  std::uniform_real_distribution<double> distance(0.05, 0.54);
  std::vector<Vec3> targets;
  targets.reserve(kTargetCount);
  while (static_cast<int>(targets.size()) < kTargetCount) {
    const Vec3 v = testing::DrawVec3(unit, engine);
    const double length = glm::length(v);
    if (length < 1e-3 || length > 1.0) continue;
    targets.push_back(shoulder_model + distance(engine) * v / length);
  }
  return targets;
}

std::vector<Transform> RestModels(const Rig& rig) {
  std::vector<Transform> models(rig.joint_count());
  LocalToModelJob fk;
  fk.parents = rig.parents();
  fk.locals = rig.rest_pose();
  fk.models = absl::MakeSpan(models);
  if (!fk.Run().ok()) std::abort();
  return models;
}

void BM_TwoBoneJobRun(benchmark::State& state) {
  const Rig& rig = Humanoid();
  const Chain& arm = *rig.FindChain("left_arm");
  const std::vector<Transform> models = RestModels(rig);
  const std::vector<Vec3> targets =
      ReachableTargets(models[arm.joints[0]].translation);
  const bool with_pole = state.range(0) != 0;
  Quat root_correction;
  Quat mid_correction;
  SolveReport report;
  TwoBoneJob job;
  job.root_model = models[arm.joints[0]];
  job.mid_model = models[arm.joints[1]];
  job.tip_model = models[arm.joints[2]];
  if (with_pole) job.pole_model = Vec3(0.3, 0.5, -0.5);
  job.root_correction = &root_correction;
  job.mid_correction = &mid_correction;
  job.report = &report;
  int next = 0;
  for (auto _ : state) {
    job.target_model = targets[next];
    next = (next + 1) & (kTargetCount - 1);
    const absl::Status status = job.Run();
    benchmark::DoNotOptimize(status);
    benchmark::DoNotOptimize(root_correction);
    benchmark::DoNotOptimize(mid_correction);
    benchmark::DoNotOptimize(report);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_TwoBoneJobRun)->ArgName("pole")->Arg(0)->Arg(1);

void BM_SolveChainJobRun(benchmark::State& state) {
  const Rig& rig = Humanoid();
  const Chain* arm = rig.FindChain("left_arm");
  const std::vector<Vec3> targets =
      ReachableTargets(RestModels(rig)[arm->joints[0]].translation);
  std::vector<Transform> locals(rig.rest_pose().begin(), rig.rest_pose().end());
  SolveChainWorkspace workspace;
  ChainSolveResult result;
  ChainGoal goal;
  goal.chain = arm;
  SolveChainJob job;
  job.rig = &rig;
  job.goal = &goal;
  job.locals = absl::MakeSpan(locals);
  job.workspace = &workspace;
  job.result = &result;
  int next = 0;
  for (auto _ : state) {
    // Each solve starts from the previous answer, as a tick-to-tick caller
    // would.
    goal.target_world = targets[next];
    next = (next + 1) & (kTargetCount - 1);
    const absl::Status status = job.Run();
    benchmark::DoNotOptimize(status);
    benchmark::DoNotOptimize(result);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_SolveChainJobRun);

// A free arm: shoulder -> elbow (0.30 m) -> wrist (0.25 m), no limits; each
// case is a seeded start pose (shoulder turned anyhow, elbow bent about its
// local z), a reachable target and a pole.
struct FreeArmCase {
  std::vector<Transform> locals;
  Vec3 target{0.0};
  Vec3 pole{0.0};
};

const Rig& FreeArm() {
  static const Rig* const rig = [] {
    RigDefinition def;
    def.name = "free_arm";
    def.joints.resize(3);
    def.joints[0].name = "shoulder";
    def.joints[0].rest.translation = Vec3(0.0, 1.4, 0.0);
    def.joints[1].name = "elbow";
    def.joints[1].parent = 0;
    def.joints[1].rest.translation = Vec3(0.30, 0.0, 0.0);
    def.joints[2].name = "wrist";
    def.joints[2].parent = 1;
    def.joints[2].rest.translation = Vec3(0.25, 0.0, 0.0);
    ChainDefinition chain;
    chain.name = "arm";
    chain.root = "shoulder";
    chain.tip = "wrist";
    def.chains = {chain};
    absl::StatusOr<Rig> created = Rig::Create(std::move(def));
    if (!created.ok()) std::abort();
    return new Rig(*std::move(created));
  }();
  return *rig;
}

std::vector<FreeArmCase> FreeArmCases() {
  std::mt19937_64 engine(7);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  std::uniform_real_distribution<double> bend(0.1, 2.8);
  std::uniform_real_distribution<double> reach(0.06, 0.54);
  std::vector<FreeArmCase> cases(kTargetCount);
  const Rig& rig = FreeArm();
  for (FreeArmCase& arm : cases) {
    arm.locals.assign(rig.rest_pose().begin(), rig.rest_pose().end());
    arm.locals[0].rotation = glm::normalize(testing::DrawQuat(unit, engine));
    arm.locals[1].rotation = AngleAxis(bend(engine), Vec3(0.0, 0.0, 1.0));
    const Vec3 direction = glm::normalize(testing::DrawVec3(unit, engine));
    arm.target = arm.locals[0].translation + reach(engine) * direction;
    arm.pole = arm.locals[0].translation + testing::DrawVec3(unit, engine);
  }
  return cases;
}

// The free arms' two-bone jobs, each with its own outputs; with `hinge`,
// each also turns its elbow about the elbow's hinge (its local z), within
// a range wide enough for every arm's turn (as a limited limb's job does).
struct FreeArmJobs {
  std::vector<TwoBoneJob> jobs;
  std::vector<Quat> root_corrections, mid_corrections;
  std::vector<SolveReport> reports;
};

FreeArmJobs MakeFreeArmJobs(bool hinge = false) {
  const std::vector<FreeArmCase> cases = FreeArmCases();
  FreeArmJobs out;
  out.jobs.resize(cases.size());
  out.root_corrections.resize(cases.size());
  out.mid_corrections.resize(cases.size());
  out.reports.resize(cases.size());
  for (size_t i = 0; i < cases.size(); ++i) {
    std::vector<Transform> models(3);
    LocalToModelJob fk;
    fk.parents = FreeArm().parents();
    fk.locals = cases[i].locals;
    fk.models = absl::MakeSpan(models);
    if (!fk.Run().ok()) std::abort();
    TwoBoneJob& job = out.jobs[i];
    job.root_model = models[0];
    job.mid_model = models[1];
    job.tip_model = models[2];
    job.target_model = cases[i].target;
    job.pole_model = cases[i].pole;
    if (hinge) {
      job.mid_axis_model = models[1].rotation * Vec3(0.0, 0.0, 1.0);
      job.mid_turn_range = AngleRange{-3.0, 3.0};
    }
    job.root_correction = &out.root_corrections[i];
    job.mid_correction = &out.mid_corrections[i];
    job.report = &out.reports[i];
  }
  return out;
}

void BM_FreeArmTwoBoneJob(benchmark::State& state) {
  const FreeArmJobs arms = MakeFreeArmJobs();
  const std::vector<TwoBoneJob>& jobs = arms.jobs;
  int next = 0;
  for (auto _ : state) {
    const absl::Status status = jobs[next].Run();
    next = (next + 1) & (kTargetCount - 1);
    benchmark::DoNotOptimize(status);
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_FreeArmTwoBoneJob);

// Whether arm i's answers in `a` and `b` are the same bits.
bool SameBits(const FreeArmJobs& a, const FreeArmJobs& b, size_t i) {
  return std::memcmp(&a.root_corrections[i], &b.root_corrections[i],
                     sizeof(Quat)) == 0 &&
         std::memcmp(&a.mid_corrections[i], &b.mid_corrections[i],
                     sizeof(Quat)) == 0 &&
         std::memcmp(&a.reports[i].tip_model, &b.reports[i].tip_model,
                     sizeof(Vec3)) == 0 &&
         a.reports[i].residual == b.reports[i].residual &&
         a.reports[i].reached == b.reports[i].reached;
}

// The free arms' jobs, four per iteration: TwoBoneJob::Run on each
// (lanes:0) against RunTwoBoneJobs on two pairs (lanes:2, SSE2 lanes) or on
// the four at once (lanes:4, AVX lanes where the processor has them, else
// pairs), per solve; hinge:1 gives every job the elbow's hinge axis and a
// turn range. Before timing, every arm solved both ways must give the same
// bits.
void BM_FreeArmTwoBonePairs(benchmark::State& state) {
  const int lanes = static_cast<int>(state.range(0));
  const bool hinge = state.range(1) != 0;
  FreeArmJobs scalar = MakeFreeArmJobs(hinge);
  FreeArmJobs laned = MakeFreeArmJobs(hinge);
  std::vector<absl::Status> statuses(laned.jobs.size());
  if (!RunTwoBoneJobs(laned.jobs, absl::MakeSpan(statuses)).ok()) std::abort();
  for (size_t i = 0; i < scalar.jobs.size(); ++i) {
    if (!scalar.jobs[i].Run().ok() || !statuses[i].ok()) std::abort();
    if (!SameBits(scalar, laned, i)) {
      state.SkipWithError("RunTwoBoneJobs' answer differs from Run's");
      return;
    }
  }
  absl::Status group_statuses[4];
  const FreeArmJobs& used = lanes != 0 ? laned : scalar;
  size_t next = 0;
  for (auto _ : state) {
    const TwoBoneJob* group = &used.jobs[next];
    next = (next + 4) & (kTargetCount - 1);
    if (lanes == 4) {
      benchmark::DoNotOptimize(RunTwoBoneJobs(
          absl::MakeConstSpan(group, 4), absl::MakeSpan(group_statuses, 4)));
    } else if (lanes == 2) {
      benchmark::DoNotOptimize(RunTwoBoneJobs(
          absl::MakeConstSpan(group, 2), absl::MakeSpan(group_statuses, 2)));
      benchmark::DoNotOptimize(
          RunTwoBoneJobs(absl::MakeConstSpan(group + 2, 2),
                         absl::MakeSpan(group_statuses + 2, 2)));
    } else {
      for (int i = 0; i < 4; ++i) benchmark::DoNotOptimize(group[i].Run());
    }
    benchmark::ClobberMemory();
  }
  // Per solve: four per iteration.
  state.SetItemsProcessed(4 * state.iterations());
  state.counters["time_per_solve"] =
      benchmark::Counter(4, benchmark::Counter::kIsIterationInvariantRate |
                                benchmark::Counter::kInvert);
}
BENCHMARK(BM_FreeArmTwoBonePairs)
    ->ArgNames({"lanes", "hinge"})
    ->ArgsProduct({{0, 2, 4}, {0, 1}});

// Each solve starts from its case's own pose (copied in, 3 transforms), so
// every iteration solves the same kind of problem.
void BM_FreeArmSolveChainJob(benchmark::State& state) {
  const Rig& rig = FreeArm();
  const std::vector<FreeArmCase> cases = FreeArmCases();
  std::vector<Transform> locals(3);
  SolveChainWorkspace workspace;
  ChainSolveResult result;
  ChainGoal goal;
  goal.chain = rig.FindChain("arm");
  SolveChainJob job;
  job.rig = &rig;
  job.goal = &goal;
  job.locals = absl::MakeSpan(locals);
  job.workspace = &workspace;
  job.result = &result;
  int next = 0;
  for (auto _ : state) {
    const FreeArmCase& arm = cases[next];
    next = (next + 1) & (kTargetCount - 1);
    std::copy(arm.locals.begin(), arm.locals.end(), locals.begin());
    goal.target_world = arm.target;
    goal.pole_world = arm.pole;
    const absl::Status status = job.Run();
    benchmark::DoNotOptimize(status);
    benchmark::DoNotOptimize(result);
    benchmark::DoNotOptimize(locals);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_FreeArmSolveChainJob);

}  // namespace
}  // namespace ik
