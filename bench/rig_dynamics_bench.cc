// The full StepDynamics work of one call through the core for the example
// humanoid's ponytail (7 joints, 6 simulated, 4 colliders): forward
// kinematics of the whole 28-joint pose in world space, the colliders
// placed, the step (two 1/120 s substeps for a 1/60 s frame), and the local
// rotations. The character walks forward at 1.5 m/s while its chest sways,
// so the ponytail keeps moving and touching its colliders.
//
//   build/bench/rig_dynamics_bench --benchmark_repetitions=5
//     --benchmark_report_aggregates_only=true
#include <cmath>
#include <cstdlib>
#include <vector>

#include "benchmark/benchmark.h"
#include "humanoid_rig.h"
#include "ik/dynamics/rig_dynamics.h"
#include "ik/rig/forward_kinematics.h"

namespace ik {
namespace {

void BM_RigDynamicsStep(benchmark::State& state) {
  absl::StatusOr<Character> humanoid = testing::HumanoidCharacter();
  if (!humanoid.ok()) std::abort();
  const Rig* rig = &humanoid->rig;
  const DynamicChainBinding* chain = humanoid->FindDynamicChain("ponytail");
  const int chest = rig->FindJoint("chest");
  std::vector<Transform> locals(rig->rest_pose().begin(),
                                rig->rest_pose().end());
  std::vector<Transform> world(locals.size());
  std::vector<Quat> rotations(chain->joints.size());
  DynamicState dynamic_state;
  DynamicsReport report;
  const double dt = 1.0 / 60.0;
  long frame = 0;
  for (auto _ : state) {
    const double time = dt * static_cast<double>(frame++ % 600);
    Transform root;
    root.translation = Vec3(0.0, 0.0, 1.5 * time);
    locals[chest].rotation =
        AngleAxis(0.3 * std::sin(6.0 * time), Vec3(0.0, 0.0, 1.0));
    LocalToModelJob fk;
    fk.parents = rig->parents();
    fk.locals = locals;
    fk.root = root;
    fk.models = absl::MakeSpan(world);
    if (!fk.Run().ok()) std::abort();
    RigDynamicsStep step;
    step.rig = rig;
    step.colliders = humanoid->colliders;
    step.chain = chain;
    step.models_world = world;
    step.locals = locals;
    step.delta_time = dt;
    step.state = &dynamic_state;
    step.rotations_local = absl::MakeSpan(rotations);
    step.report = &report;
    if (!step.Run().ok()) std::abort();
    benchmark::DoNotOptimize(rotations.data());
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_RigDynamicsStep);

}  // namespace
}  // namespace ik
