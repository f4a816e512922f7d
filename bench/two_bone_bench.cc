// Benchmarks of the analytic two-bone solve on the example humanoid's left
// arm: the bare TwoBoneJob, and SolveChainJob::Run (validation, forward
// kinematics down the chain, the solve, applying and re-measuring).
//
//   build/bench/two_bone_bench --benchmark_repetitions=5
#include <random>
#include <vector>

#include "bench_rigs.h"
#include "benchmark/benchmark.h"
#include "draws.h"
#include "humanoid_rig.h"
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

}  // namespace
}  // namespace ik
