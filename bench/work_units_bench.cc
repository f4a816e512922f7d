// What a unit of work (server/handlers/work.h) costs, kind by kind, so that
// the work budgets' defaults can be stated in time: the 1,000 humanoids of
// the example crowd (crowd_fixture.h) through the core's TickBatchJob, one
// kind of job at a time, their time divided by the units the server counts
// for the same jobs.
//
//   BM_WorkUnits/<kind>  0  grounding on the stairs mesh (both legs)
//                        1  dynamics (the ponytail, its colliders)
//                        2  the crowd's two hand goals (two-bone)
//                        3-5  one goal on a 7-joint chain (pelvis ->
//                             left_wrist) at the crowd's left-hand target,
//                             FABRIK, CCD, torque: 64 iterations at most,
//                             tolerance 1e-9 m
//                        6-8  the same, the target 1 m further from the
//                             pelvis (out of reach)
//                        9  dynamics a second ahead: every chain at its
//                           most substeps
//                        10-12  kinds 3-5 with one iteration at most: the
//                               goal's fixed part (the continuity pass,
//                               the retries)
// Counters: per_unit, CPU seconds per unit of work; units, per character.
//
//   build/bench/work_units_bench --benchmark_repetitions=3
//     --benchmark_report_aggregates_only=true
#include <cmath>
#include <cstdint>
#include <memory>
#include <numeric>
#include <vector>

#include "benchmark/benchmark.h"
#include "crowd_core.h"
#include "crowd_fixture.h"
#include "handlers/work.h"

namespace ik::server {
namespace {

constexpr int kKinds = 13;

// The crowd's fourth tick with every character's goals replaced by one of
// `solver` on pelvis -> left_wrist (`far`: 1 m further from the pelvis), of
// at most `iterations`.
v1::TickRequest OneLongGoal(const CrowdTickFixture& fixture, v1::Solver solver,
                            bool far, int iterations) {
  v1::TickRequest request = fixture.request;
  for (v1::TickCharacter& character : *request.mutable_characters()) {
    v1::ChainGoal goal = character.goals(0);
    character.clear_goals();
    goal.mutable_ad_hoc_chain()->set_root("pelvis");
    goal.mutable_ad_hoc_chain()->set_tip("left_wrist");
    goal.set_solver(solver);
    goal.set_max_iterations(iterations);
    goal.set_tolerance(1e-9);
    goal.clear_pole();
    if (far) {
      const v1::Vec3& pelvis = character.pose().root().translation();
      v1::Vec3& target = *goal.mutable_target();
      const double dx = target.x() - pelvis.x(), dy = target.y() - pelvis.y(),
                   dz = target.z() - pelvis.z();
      const double length = std::sqrt(dx * dx + dy * dy + dz * dz);
      target.set_x(target.x() + dx / length);
      target.set_y(target.y() + dy / length);
      target.set_z(target.z() + dz / length);
    }
    *character.add_goals() = goal;
  }
  return request;
}

// Kind `kind`'s crowd converted for the core, and the jobs it runs.
struct KindInputs {
  CrowdCoreInputs core;
  int jobs = kAllCrowdJobs;
};

const KindInputs& Inputs(int kind) {
  static CrowdTickFixture* fixture = new CrowdTickFixture();
  static std::unique_ptr<KindInputs> made[kKinds];
  if (made[kind] != nullptr) return *made[kind];
  made[kind] = std::make_unique<KindInputs>();
  KindInputs& out = *made[kind];
  v1::TickRequest request = fixture->request;
  if (kind == 0) out.jobs = 1;
  if (kind == 1) out.jobs = 3;
  if (kind >= 2 && kind != 9) out.jobs = 2;
  if (kind == 9) {
    out.jobs = 3;
    for (v1::TickCharacter& character : *request.mutable_characters()) {
      character.mutable_dynamics()->set_delta_time(1.0);
    }
  } else if (kind >= 3) {
    constexpr v1::Solver kSolvers[] = {v1::SOLVER_FABRIK, v1::SOLVER_CCD,
                                       v1::SOLVER_TORQUE};
    request = OneLongGoal(*fixture, kSolvers[(kind - 3) % 3],
                          kind >= 6 && kind <= 8, kind >= 10 ? 1 : 64);
  }
  Expect(out.core.Convert(request, fixture->rigs, fixture->terrains,
                          fixture->limits));
  return out;
}

// The units the server counts for the jobs `jobs` of every character.
std::int64_t Units(const CrowdCoreInputs& crowd, int jobs) {
  const Character& character = crowd.character();
  std::vector<int> chains(character.dynamic_chains.size());
  std::iota(chains.begin(), chains.end(), 0);
  std::int64_t units = 0;
  for (const CrowdCharacterInput& in : crowd.inputs) {
    if (CrowdGrounds(jobs) && in.grounds) {
      units += GroundingWork(character, crowd.ground.view());
    }
    if (CrowdSolves(jobs)) {
      for (const ChainGoal& goal : in.goals) units += GoalWork(goal);
    }
    if (CrowdSteps(jobs) && in.steps) units += DynamicsWork(character, chains);
  }
  return units;
}

void BM_WorkUnits(benchmark::State& state) {
  const KindInputs& inputs = Inputs(static_cast<int>(state.range(0)));
  CrowdRun run(inputs.core, inputs.jobs);
  TickScratch scratch;
  MeasureCrowd(state, inputs.core, run,
               [&] { Expect(RunBatch(inputs.core, run, scratch)); });
  const std::int64_t units = Units(inputs.core, inputs.jobs);
  state.counters["per_unit"] = benchmark::Counter(
      static_cast<double>(state.iterations()) * static_cast<double>(units),
      benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  state.counters["units"] = static_cast<double>(units) /
                            static_cast<double>(inputs.core.inputs.size());
}
BENCHMARK(BM_WorkUnits)
    ->ArgName("kind")
    ->DenseRange(0, kKinds - 1)
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace ik::server
