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
// paths run once and must give the same bits.
//
//   build/bench/crowd_batch_bench --benchmark_repetitions=5
//     --benchmark_report_aggregates_only=true
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <list>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "benchmark/benchmark.h"
#include "convert/compact_pose.h"
#include "convert/dynamics.h"
#include "convert/ground.h"
#include "convert/solve.h"
#include "convert/values.h"
#include "crowd_fixture.h"
#include "handlers/request_ground.h"
#include "ik/character/tick_batch.h"
#include "single_character_jobs.h"

namespace ik::server {
namespace {

// One character's converted inputs, kept to restore before each iteration.
struct CharacterInput {
  DensePose pose;
  std::vector<double> weights;
  std::vector<Vec3> previous_offsets;
  std::optional<GroundSmoothing> smoothing;
  std::vector<ChainGoal> goals;
  std::vector<DynamicState> states;  // Character::dynamic_chains order
  double delta_time = 0.0;
};

// The crowd's fourth tick converted for the core, character by character.
struct CrowdFixture : CrowdTickFixture {
  CrowdFixture() {
    absl::StatusOr<std::shared_ptr<const RigEntry>> found =
        rigs.Get({.name = "humanoid", .name_path = "rig"});
    Expect(found.status());
    entry = *found;
    Expect(ground.Build(request.shared_ground(), terrains, limits,
                        "shared_ground"));
    const Character& character = entry->character;
    inputs.resize(request.characters_size());
    for (int k = 0; k < request.characters_size(); ++k) {
      Convert(request.characters(k), character, inputs[k]);
    }
  }

  void Convert(const v1::TickCharacter& in, const Character& character,
               CharacterInput& out) {
    Expect(in.has_compact_pose()
               ? CompactPoseFromProto(in.compact_pose(), character.rig,
                                      TransformCheck::kValidate, out.pose)
               : PoseFromProto(in.pose(), character.rig, out.pose));
    out.weights.assign(in.ground().weights().begin(),
                       in.ground().weights().end());
    if (out.weights.empty()) out.weights.assign(character.legs.size(), 1.0);
    out.smoothing = SmoothingFromProto(in.ground(), out.previous_offsets);
    for (int i = 0; i < in.goals_size(); ++i) {
      absl::StatusOr<ChainGoal> goal =
          GoalFromProto(in.goals(i), character.rig, i, ad_hoc_chains);
      Expect(goal.status());
      out.goals.push_back(*goal);
    }
    out.states.resize(character.dynamic_chains.size());
    for (const v1::DynamicChainState& state : in.dynamics().states()) {
      for (size_t c = 0; c < character.dynamic_chains.size(); ++c) {
        if (character.dynamic_chains[c].name == state.chain()) {
          out.states[c] = StateFromProto(state);
        }
      }
    }
    out.delta_time = in.dynamics().delta_time();
  }

  std::shared_ptr<const RigEntry> entry;
  RequestGround ground;
  std::list<Chain> ad_hoc_chains;
  std::vector<CharacterInput> inputs;
};

CrowdFixture& Fixture() {
  static CrowdFixture* fixture = new CrowdFixture();
  return *fixture;
}

// Which jobs run: 0 all, 1 grounding, 2 goals, 3 dynamics.
bool Grounds(int jobs) { return jobs == 0 || jobs == 1; }
bool Solves(int jobs) { return jobs == 0 || jobs == 2; }
bool Steps(int jobs) { return jobs == 0 || jobs == 3; }

// The crowd's working copies and outputs, shaped for the batch.
struct CrowdRun {
  CrowdRun(const CrowdFixture& fixture, int jobs) : jobs(jobs) {
    const Character& character = fixture.entry->character;
    const size_t count = fixture.inputs.size();
    locals.resize(count);
    states.resize(count);
    feet.assign(count, std::vector<FootResult>(character.legs.size()));
    reports.assign(
        count, std::vector<DynamicsReport>(character.dynamic_chains.size()));
    results.resize(count);
    ticks.resize(count);
    for (size_t k = 0; k < count; ++k) {
      const CharacterInput& in = fixture.inputs[k];
      results[k].resize(in.goals.size());
      CharacterTick& tick = ticks[k];
      tick.ground_feet = Grounds(jobs);
      tick.leg_weights = in.weights;
      tick.smoothing = in.smoothing;
      tick.feet = absl::MakeSpan(feet[k]);
      if (Solves(jobs)) {
        tick.goals = in.goals;
        tick.goal_results = absl::MakeSpan(results[k]);
      }
      tick.delta_time = in.delta_time;
    }
    Restore(fixture);
  }

  // Every pose and state as converted (what the next tick's request
  // brings).
  void Restore(const CrowdFixture& fixture) {
    for (size_t k = 0; k < ticks.size(); ++k) {
      const CharacterInput& in = fixture.inputs[k];
      locals[k] = in.pose.locals;
      states[k] = in.states;
      CharacterTick& tick = ticks[k];
      tick.root = in.pose.root;
      tick.locals = absl::MakeSpan(locals[k]);
      if (Steps(jobs)) {
        tick.dynamic_states = absl::MakeSpan(states[k]);
        tick.dynamic_reports = absl::MakeSpan(reports[k]);
      }
    }
  }

  int jobs;
  std::vector<std::vector<Transform>> locals;
  std::vector<std::vector<DynamicState>> states;
  std::vector<std::vector<FootResult>> feet;
  std::vector<std::vector<DynamicsReport>> reports;
  std::vector<std::vector<ChainSolveResult>> results;
  std::vector<CharacterTick> ticks;
};

void RunBatch(const CrowdFixture& fixture, CrowdRun& run,
              TickScratch& scratch) {
  TickBatchJob batch;
  batch.character = &fixture.entry->character;
  batch.ground = fixture.ground.view();
  batch.characters = absl::MakeSpan(run.ticks);
  batch.scratch = &scratch;
  Expect(batch.Run());
}

bool SameBits(const void* a, const void* b, size_t size) {
  return std::memcmp(a, b, size) == 0;
}

// Both paths once, from the same inputs: the same poses and states, bit for
// bit, or the benchmark stops.
void CheckSameAnswers(const CrowdFixture& fixture) {
  CrowdRun batch(fixture, 0);
  CrowdRun single(fixture, 0);
  TickScratch scratch;
  RunBatch(fixture, batch, scratch);
  for (CharacterTick& tick : single.ticks)
    Expect(testing::RunSingleCharacterJobs(fixture.entry->character,
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

template <typename Solve>
void MeasureCrowd(benchmark::State& state, CrowdRun& run, Solve&& solve) {
  const CrowdFixture& fixture = Fixture();
  for (auto _ : state) {
    state.PauseTiming();
    run.Restore(fixture);
    state.ResumeTiming();
    solve();
  }
  // Seconds per character (printed with an SI prefix: 1.8u is 1.8 us).
  state.counters["per_character"] = benchmark::Counter(
      static_cast<double>(state.iterations()) *
          static_cast<double>(run.ticks.size()),
      benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

void BM_CrowdBatch(benchmark::State& state) {
  static const bool checked = (CheckSameAnswers(Fixture()), true);
  benchmark::DoNotOptimize(checked);
  CrowdRun run(Fixture(), static_cast<int>(state.range(0)));
  TickScratch scratch;
  MeasureCrowd(state, run, [&] { RunBatch(Fixture(), run, scratch); });
}
BENCHMARK(BM_CrowdBatch)
    ->ArgName("jobs")
    ->DenseRange(0, 3)
    ->Unit(benchmark::kMillisecond);

void BM_CrowdSingleJobs(benchmark::State& state) {
  CrowdRun run(Fixture(), static_cast<int>(state.range(0)));
  MeasureCrowd(state, run, [&] {
    for (CharacterTick& tick : run.ticks) {
      Expect(testing::RunSingleCharacterJobs(Fixture().entry->character,
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
