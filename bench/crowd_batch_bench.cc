// The tick's crowd through the core alone: the 1,000 humanoids of
// client/crowd/crowd.h (every joint animated, both legs grounded on the bundled
// stairs mesh, two hand goals, the ponytail stepped from the states of the
// tick before), converted once from the crowd's fourth tick request (three
// ticks absorbed first, through IkHandlers::Tick, so dynamics has states).
// Nothing of gRPC or protobuf is timed.
//
//   BM_CrowdBatch/<jobs>        ik::TickBatchJob over the crowd, one call,
//                               one scratch (ik/character/tick_batch.h);
//   BM_CrowdSingleJobs/<jobs>   the same jobs one character at a time
//                               through the single job entries, each with
//                               the buffers a single call sets up
//                               (tests/core/single_character_jobs.h): the
//                               reference of the same run.
// <jobs>: 0 all three, 1 grounding only, 2 the two goals only, 3 dynamics
// only. Counter per_character: CPU time per character. Each iteration
// first restores every pose and state (not timed). Before timing, both
// paths run once and must give the same bits. The conversion, the runs'
// working copies and the timing loop are crowd_core.h's, which ikd_loadgen's
// core reference (--core_reference) runs too.
//
//   build/bench/crowd_batch_bench --benchmark_repetitions=5
//     --benchmark_report_aggregates_only=true
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "benchmark/benchmark.h"
#include "crowd_core.h"
#include "crowd_fixture.h"
#include "ik/character/tick_batch.h"
#include "single_character_jobs.h"

namespace ik::server {
namespace {

// The crowd's fourth tick converted for the core (crowd_core.h).
struct CrowdFixture : CrowdTickFixture {
  CrowdFixture() { Expect(core.Convert(request, rigs, terrains, limits)); }
  CrowdCoreInputs core;
};

const CrowdCoreInputs& Fixture() {
  static CrowdFixture* fixture = new CrowdFixture();
  return fixture->core;
}

bool SameBits(const void* a, const void* b, size_t size) {
  return std::memcmp(a, b, size) == 0;
}

// Both paths once, from the same inputs: the same poses and states, bit for
// bit, or the benchmark stops.
void CheckSameAnswers(const CrowdCoreInputs& fixture) {
  CrowdRun batch(fixture, kAllCrowdJobs);
  CrowdRun single(fixture, kAllCrowdJobs);
  TickScratch scratch;
  Expect(RunBatch(fixture, batch, scratch));
  for (CharacterTick& tick : single.ticks)
    Expect(testing::RunSingleCharacterJobs(fixture.character(),
                                           fixture.ground.view(), tick));
  for (size_t k = 0; k < batch.ticks.size(); ++k) {
    const CharacterTick& a = batch.ticks[k];
    const CharacterTick& b = single.ticks[k];
    Expect(a.ground_status);
    Expect(a.goals_status);
    Expect(a.dynamics_status);
    bool same = SameBits(&a.root, &b.root, sizeof(Transform)) &&
                SameBits(a.locals.data(), b.locals.data(),
                         a.locals.size() * sizeof(Transform));
    for (size_t c = 0; c < a.dynamic_states.size(); ++c) {
      const std::vector<Vec3>& pa = a.dynamic_states[c].positions;
      const std::vector<Vec3>& pb = b.dynamic_states[c].positions;
      same = same && pa.size() == pb.size() &&
             SameBits(pa.data(), pb.data(), pa.size() * sizeof(Vec3));
    }
    if (!same) {
      std::fprintf(stderr,
                   "crowd_batch_bench: character %zu differs between the "
                   "batch and the single jobs\n",
                   k);
      std::abort();
    }
  }
}

void BM_CrowdBatch(benchmark::State& state) {
  static const bool checked = (CheckSameAnswers(Fixture()), true);
  benchmark::DoNotOptimize(checked);
  CrowdRun run(Fixture(), static_cast<int>(state.range(0)));
  TickScratch scratch;
  MeasureCrowd(state, Fixture(), run,
               [&] { Expect(RunBatch(Fixture(), run, scratch)); });
}
BENCHMARK(BM_CrowdBatch)
    ->ArgName("jobs")
    ->DenseRange(0, 3)
    ->Unit(benchmark::kMillisecond);

void BM_CrowdSingleJobs(benchmark::State& state) {
  CrowdRun run(Fixture(), static_cast<int>(state.range(0)));
  MeasureCrowd(state, Fixture(), run, [&] {
    for (CharacterTick& tick : run.ticks) {
      Expect(testing::RunSingleCharacterJobs(Fixture().character(),
                                             Fixture().ground.view(), tick));
    }
  });
}
BENCHMARK(BM_CrowdSingleJobs)
    ->ArgName("jobs")
    ->DenseRange(0, 3)
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace ik::server
