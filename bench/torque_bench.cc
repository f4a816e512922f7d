// Benchmarks of TorqueJob::Run on the example tail's 12-joint chain
// (tail_00 -> tail_11, every joint a 0.52 rad cone with +-0.2 rad of
// twist), at tolerance 1e-3 m with an iteration cap of 300, as
// chain_bench.cc runs FabrikJob and CcdJob on the same chain. Targets come
// from forward kinematics of poses within the limits: reachable.
//   BM_TorqueJob: cold. Every solve starts from the rest pose and goes to
//     one of 1024 seeded random targets anywhere in reach.
//   BM_TorqueJobWarm: warm. Every solve starts from the previous answer and
//     the target moves about 1 cm along a path.
// Variants: the damped step (the default), the plain Jacobian-transpose
// step, and the damped step with springs towards the rest pose
// (elasticity 1, the root 4 times as stiff as the last joint).
// The "iterations" counter is the mean number of iterations per solve.
//
//   build/bench/torque_bench --benchmark_repetitions=5
#include <algorithm>
#include <cstdlib>
#include <random>
#include <vector>

#include "benchmark/benchmark.h"
#include "ik/solvers/torque.h"
#include "random_poses.h"
#include "tail_rig.h"
#include "warm_path.h"

namespace ik {
namespace {

constexpr int kTargetCount = 1024;
constexpr double kTolerance = 1e-3;
constexpr int kMaxIterations = 300;

enum Variant { kDamped = 0, kPlain = 1, kElastic = 2 };

struct TailCase {
  Transform parent_model;
  std::vector<Transform> rest_locals;
  std::vector<JointConstraint> constraints;
  std::vector<TorqueJointSettings> springs;
  std::vector<Vec3> targets;
  // A closed path through kTargetCount reachable targets, a tick apart.
  std::vector<Vec3> path;
};

const TailCase& Tail() {
  static const TailCase* const tail = [] {
    absl::StatusOr<Rig> created = testing::TailRig();
    if (!created.ok()) std::abort();
    static const Rig* const rig = new Rig(*std::move(created));
    ChainDefinition definition;
    definition.root = "tail_00";
    definition.tip = "tail_11";
    absl::StatusOr<Chain> chain = rig->MakeChain(definition);
    if (!chain.ok() || chain->joints.size() != 12) std::abort();
    auto* out = new TailCase;
    const std::vector<Transform> models =
        testing::ModelTransforms(*rig, rig->rest_pose());
    out->parent_model = models[rig->parents()[chain->joints[0]]];
    for (const int joint : chain->joints) {
      const JointDefinition& joint_definition = rig->joint(joint);
      out->rest_locals.push_back(rig->rest_pose()[joint]);
      out->constraints.push_back(
          {&joint_definition.limit, joint_definition.rest.rotation});
      TorqueJointSettings spring;
      spring.elasticity = 1.0;
      spring.preferred_rotation = joint_definition.rest.rotation;
      out->springs.push_back(spring);
    }
    std::mt19937_64 engine(20240601 + 12);
    for (int i = 0; i < kTargetCount; ++i) {
      out->targets.push_back(testing::ReachableTarget(*rig, *chain, engine));
    }
    out->path = bench::WarmPath(*rig, *chain, engine, kTargetCount);
    return out;
  }();
  return *tail;
}

TorqueJob MakeJob(const TailCase& tail, Variant variant,
                  std::vector<Transform>& locals, ChainWorkspace& workspace,
                  SolveReport& report) {
  TorqueJob job;
  job.parent_model = tail.parent_model;
  job.locals = absl::MakeSpan(locals);
  job.constraints = tail.constraints;
  job.max_iterations = kMaxIterations;
  job.tolerance = kTolerance;
  job.workspace = &workspace;
  job.report = &report;
  if (variant == kPlain) job.settings.damping = 0.0;
  if (variant == kElastic) {
    job.settings.joints = tail.springs;
    job.settings.root_stiffness = 4.0;
  }
  return job;
}

void BM_TorqueJob(benchmark::State& state) {
  const TailCase& tail = Tail();
  std::vector<Transform> locals = tail.rest_locals;
  ChainWorkspace workspace;
  SolveReport report;
  TorqueJob job = MakeJob(tail, static_cast<Variant>(state.range(0)), locals,
                          workspace, report);
  int next = 0;
  double iterations = 0.0;
  for (auto _ : state) {
    std::copy(tail.rest_locals.begin(), tail.rest_locals.end(), locals.begin());
    job.target_model = tail.targets[next];
    next = (next + 1) & (kTargetCount - 1);
    const absl::Status status = job.Run();
    benchmark::DoNotOptimize(status);
    benchmark::DoNotOptimize(locals.data());
    iterations += report.iterations;
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["iterations"] =
      benchmark::Counter(iterations, benchmark::Counter::kAvgIterations);
}

void BM_TorqueJobWarm(benchmark::State& state) {
  const TailCase& tail = Tail();
  std::vector<Transform> locals = tail.rest_locals;
  ChainWorkspace workspace;
  SolveReport report;
  TorqueJob job = MakeJob(tail, static_cast<Variant>(state.range(0)), locals,
                          workspace, report);
  job.target_model = tail.path.back();  // settle on the path's start
  if (!job.Run().ok()) std::abort();
  int next = 0;
  double iterations = 0.0;
  for (auto _ : state) {
    job.target_model = tail.path[next];
    next = (next + 1) & (kTargetCount - 1);
    const absl::Status status = job.Run();
    benchmark::DoNotOptimize(status);
    benchmark::DoNotOptimize(locals.data());
    iterations += report.iterations;
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["iterations"] =
      benchmark::Counter(iterations, benchmark::Counter::kAvgIterations);
}

void Variants(benchmark::internal::Benchmark* benchmark) {
  benchmark->ArgName("variant");  // 0 damped, 1 plain, 2 elastic
  for (const int variant : {kDamped, kPlain, kElastic}) {
    benchmark->Arg(variant);
  }
}

BENCHMARK(BM_TorqueJob)->Apply(Variants);
BENCHMARK(BM_TorqueJobWarm)->Apply(Variants);

}  // namespace
}  // namespace ik
