// Benchmarks of the iterative chain solvers, FabrikJob::Run and
// CcdJob::Run, on a 3-joint chain (the example humanoid's left arm,
// shoulder -> elbow -> wrist) and a 12-joint one (the example tail,
// tail_00 -> tail_11), with the rigs' joint limits and without any, at
// tolerance 1e-3 m with an iteration cap of 300. All targets come from
// forward kinematics of poses within the limits, so they are reachable.
//   BM_ChainJob: cold. Every solve starts from the rest pose and goes to one
//     of 1024 seeded random targets anywhere in reach.
//   BM_ChainJobWarm: warm. Every solve starts from the previous answer and
//     the target moves about 1 cm along a path, as tick-to-tick corrections
//     of an animated character do.
// The "iterations" counter is the mean number of iterations per solve.
//
//   build/bench/chain_bench --benchmark_repetitions=5
#include <algorithm>
#include <cstdlib>
#include <random>
#include <vector>

#include "benchmark/benchmark.h"
#include "humanoid_rig.h"
#include "ik/solvers/ccd.h"
#include "ik/solvers/chain_job.h"
#include "ik/solvers/fabrik.h"
#include "random_poses.h"
#include "tail_rig.h"
#include "warm_path.h"

namespace ik {
namespace {

constexpr int kTargetCount = 1024;
constexpr double kTolerance = 1e-3;
constexpr int kMaxIterations = 300;

// One benchmark case: the chain's rest locals, its parent's model
// transform, its constraints (empty without limits), the cold targets and a
// warm path.
struct ChainCase {
  Transform parent_model;
  std::vector<Transform> rest_locals;
  std::vector<JointConstraint> constraints;
  std::vector<Vec3> targets;
  // A closed path through kTargetCount reachable targets, a tick apart.
  std::vector<Vec3> path;
};

Rig CreateOrDie(RigDefinition definition) {
  absl::StatusOr<Rig> rig = Rig::Create(std::move(definition));
  if (!rig.ok()) std::abort();
  return *std::move(rig);
}

// The 3-joint arm or the 12-joint tail; with or without limits.
const ChainCase& Case(int joints, bool limits) {
  static ChainCase storage[2][2];
  static bool built[2][2] = {};
  const int which = joints == 3 ? 0 : 1;
  if (built[which][limits]) return storage[which][limits];
  // Without limits the chain gets no constraints; its targets are the same.
  static const Rig* const rigs[2] = {
      new Rig(CreateOrDie(testing::HumanoidRigDefinition())),
      new Rig(CreateOrDie(testing::TailRigDefinition()))};
  const Rig& limited = *rigs[which];
  ChainDefinition chain_definition;
  chain_definition.root = which == 0 ? "left_shoulder" : "tail_00";
  chain_definition.tip = which == 0 ? "left_wrist" : "tail_11";
  absl::StatusOr<Chain> chain = limited.MakeChain(chain_definition);
  if (!chain.ok() || static_cast<int>(chain->joints.size()) != joints) {
    std::abort();
  }
  ChainCase& out = storage[which][limits];
  const std::vector<Transform> models =
      testing::ModelTransforms(limited, limited.rest_pose());
  const int parent = limited.parents()[chain->joints[0]];
  out.parent_model = parent == kNoParent ? Transform() : models[parent];
  for (const int joint : chain->joints) {
    out.rest_locals.push_back(limited.rest_pose()[joint]);
    if (limits) {
      const JointDefinition& definition = limited.joint(joint);
      JointConstraint constraint;
      if (definition.limit.kind != JointLimit::Kind::kNone) {
        constraint.limit = &definition.limit;
      }
      constraint.rest_rotation = definition.rest.rotation;
      out.constraints.push_back(constraint);
    }
  }
  std::mt19937_64 engine(20240601 + joints);
  for (int i = 0; i < kTargetCount; ++i) {
    out.targets.push_back(testing::ReachableTarget(limited, *chain, engine));
  }
  out.path = bench::WarmPath(limited, *chain, engine, kTargetCount);
  built[which][limits] = true;
  return out;
}

// A job on `chain` at the benchmark's cap and tolerance, solving `locals`.
template <typename Job>
Job MakeJob(const ChainCase& chain, std::vector<Transform>& locals,
            ChainWorkspace& workspace, SolveReport& report) {
  Job job;
  job.parent_model = chain.parent_model;
  job.locals = absl::MakeSpan(locals);
  job.constraints = chain.constraints;
  job.max_iterations = kMaxIterations;
  job.tolerance = kTolerance;
  job.workspace = &workspace;
  job.report = &report;
  return job;
}

template <typename Job>
void BM_ChainJob(benchmark::State& state) {
  const ChainCase& chain =
      Case(static_cast<int>(state.range(0)), state.range(1) != 0);
  std::vector<Transform> locals = chain.rest_locals;
  ChainWorkspace workspace;
  SolveReport report;
  Job job = MakeJob<Job>(chain, locals, workspace, report);
  int next = 0;
  double iterations = 0.0;
  for (auto _ : state) {
    std::copy(chain.rest_locals.begin(), chain.rest_locals.end(),
              locals.begin());
    job.target_model = chain.targets[next];
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

// Warm: each solve starts from the previous answer and the target moves on
// along the path, as per-tick corrections of an animated character do.
template <typename Job>
void BM_ChainJobWarm(benchmark::State& state) {
  const ChainCase& chain =
      Case(static_cast<int>(state.range(0)), state.range(1) != 0);
  std::vector<Transform> locals = chain.rest_locals;
  ChainWorkspace workspace;
  SolveReport report;
  Job job = MakeJob<Job>(chain, locals, workspace, report);
  // Settle on the path's start first.
  job.target_model = chain.path.back();
  if (!job.Run().ok()) std::abort();
  int next = 0;
  double iterations = 0.0;
  for (auto _ : state) {
    job.target_model = chain.path[next];
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

void ChainArguments(benchmark::internal::Benchmark* benchmark) {
  benchmark->ArgNames({"joints", "limits"});
  for (const int joints : {3, 12}) {
    for (const int limits : {0, 1}) benchmark->Args({joints, limits});
  }
}

BENCHMARK_TEMPLATE(BM_ChainJob, FabrikJob)->Apply(ChainArguments);
BENCHMARK_TEMPLATE(BM_ChainJob, CcdJob)->Apply(ChainArguments);
BENCHMARK_TEMPLATE(BM_ChainJobWarm, FabrikJob)->Apply(ChainArguments);
BENCHMARK_TEMPLATE(BM_ChainJobWarm, CcdJob)->Apply(ChainArguments);

}  // namespace
}  // namespace ik
