// The cost of a swivel angle (ChainGoal::swivel): SolveChainJob::Run on the
// example humanoid's left arm (two-bone) and clavicle-to-wrist arm (FABRIK)
// with and without one, over the same seeded reachable targets, and the
// zero-plane map alone.
//
//   build/bench/swivel_bench --benchmark_repetitions=5
//     --benchmark_report_aggregates_only=true
#include <cstdlib>
#include <random>
#include <vector>

#include "bench_rigs.h"
#include "benchmark/benchmark.h"
#include "draws.h"
#include "humanoid_rig.h"
#include "ik/rig/solve_chain.h"
#include "ik/solvers/swivel.h"
#include "random_poses.h"

namespace ik {
namespace {

constexpr int kTargetCount = 1024;

using ::ik::bench::Humanoid;

// Targets the chain reaches within its limits, and swivels, seeded.
struct Goals {
  std::vector<Vec3> targets;
  std::vector<double> swivels;
};

Goals MakeGoals(const Rig& rig, const Chain& chain) {
  std::mt19937_64 engine(42);
  std::uniform_real_distribution<double> swivel(-0.5, 0.5);
  Goals goals;
  for (int i = 0; i < kTargetCount; ++i) {
    goals.targets.push_back(testing::ReachableTarget(rig, chain, engine));
    goals.swivels.push_back(swivel(engine));
  }
  return goals;
}

// range(0): 0 a position goal only, 1 with a pole (the two-bone solver's
// other control), 2 with a swivel. range(1), when given: 1 asks for the
// history-free choice (ChainGoal::history_free), the price of the
// continuity rule being the difference. Each solve starts from the previous
// answer, as a tick-to-tick caller would (a swivel solve ignores it).
void SolveChain(benchmark::State& state, const char* chain_name) {
  const Rig& rig = Humanoid();
  const Chain* chain = rig.FindChain(chain_name);
  const Goals goals = MakeGoals(rig, *chain);
  const int control = static_cast<int>(state.range(0));
  std::vector<Transform> locals(rig.rest_pose().begin(), rig.rest_pose().end());
  SolveChainWorkspace workspace;
  ChainSolveResult result;
  ChainGoal goal;
  goal.chain = chain;
  goal.history_free = state.range(1) != 0;
  SolveChainJob job;
  job.rig = &rig;
  job.goal = &goal;
  job.locals = absl::MakeSpan(locals);
  job.workspace = &workspace;
  job.result = &result;
  int next = 0;
  for (auto _ : state) {
    goal.target_world = goals.targets[next];
    if (control == 1) {
      goal.pole_world = goal.target_world + Vec3(0.0, -0.5, -0.5);
    } else if (control == 2) {
      goal.swivel = goals.swivels[next];
    }
    next = (next + 1) & (kTargetCount - 1);
    const absl::Status status = job.Run();
    benchmark::DoNotOptimize(status);
    benchmark::DoNotOptimize(result);
  }
  state.SetItemsProcessed(state.iterations());
}

void BM_SolveTwoBone(benchmark::State& state) { SolveChain(state, "left_arm"); }
BENCHMARK(BM_SolveTwoBone)
    ->ArgNames({"control", "history_free"})
    ->Args({0, 0})
    ->Args({0, 1})
    ->Args({1, 0})
    ->Args({1, 1})
    ->Args({2, 0});

void BM_SolveFabrik(benchmark::State& state) {
  SolveChain(state, "left_arm_clavicle");
}
// FABRIK ignores a pole; without a swivel it keeps the last limb's
// incoming swivel unless history-free.
BENCHMARK(BM_SolveFabrik)
    ->ArgNames({"control", "history_free"})
    ->Args({0, 0})
    ->Args({0, 1})
    ->Args({2, 0});

// The map alone: the zero plane's normal and the bend for a swivel.
void BM_SwivelBendDirection(benchmark::State& state) {
  const ZeroPlaneMap& map = *Humanoid().FindChain("left_arm")->zero_plane_map;
  std::mt19937_64 engine(7);
  std::normal_distribution<double> normal(0.0, 1.0);
  std::vector<Vec3> axes;
  for (int i = 0; i < kTargetCount; ++i) {
    axes.push_back(glm::normalize(testing::DrawVec3(normal, engine)));
  }
  int next = 0;
  for (auto _ : state) {
    const Vec3 bend = SwivelBendDirection(map, axes[next], 0.3);
    next = (next + 1) & (kTargetCount - 1);
    benchmark::DoNotOptimize(bend);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_SwivelBendDirection);

}  // namespace
}  // namespace ik
