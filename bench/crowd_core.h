// A crowd's tick through the solver core alone, shared by crowd_batch_bench
// and ikd_loadgen's core reference: a TickRequest converted once through the
// server's conversions (what ikd's Tick reads), then ik::TickBatchJob over
// every character (ik/character/tick_batch.h), each run from the converted
// poses and states again. Nothing of gRPC or protobuf is in the time.
//
//   CrowdCoreInputs inputs;
//   status = inputs.Convert(request, rigs, terrains, limits);
//   CrowdRun run(inputs, kAllCrowdJobs);
//   TickScratch scratch;
//   status = RunBatch(inputs, run, scratch);       // once
//   absl::StatusOr<CoreTiming> timing = TimeCrowdBatch(inputs, options);
#ifndef IK_BENCH_CROWD_CORE_H_
#define IK_BENCH_CROWD_CORE_H_

#include <cstdint>
#include <list>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "benchmark/benchmark.h"
#include "convert/values.h"
#include "handlers/request_ground.h"
#include "ik/character/tick_batch.h"
#include "ik/v1/ik.pb.h"
#include "service_limits.h"
#include "state/rig_registry.h"
#include "state/terrain_registry.h"

namespace ik::server {

// Registers the rigs of `examples_dir`/rigs and the terrains of
// `examples_dir`/terrains (the repository's examples/ holds the bundled
// ones); errors name the file.
absl::Status LoadExamples(const std::string& examples_dir,
                          const ServiceLimits& limits, RigRegistry& rigs,
                          TerrainRegistry& terrains);

// One character's converted inputs, kept to restore before each run.
struct CrowdCharacterInput {
  DensePose pose;
  // The jobs the character asks for (TickCharacter.ground, .goals,
  // .dynamics).
  bool grounds = false;
  bool steps = false;
  std::vector<double> weights;
  std::vector<Vec3> previous_offsets;
  std::optional<GroundSmoothing> smoothing;
  std::vector<ChainGoal> goals;
  std::vector<DynamicState> states;  // Character::dynamic_chains order
  double delta_time = 0.0;
};

// A tick request converted for the core, character by character. Not
// copyable or movable (the ground points into itself).
struct CrowdCoreInputs {
  CrowdCoreInputs() = default;
  CrowdCoreInputs(const CrowdCoreInputs&) = delete;
  CrowdCoreInputs& operator=(const CrowdCoreInputs&) = delete;

  // Converts every character of `request`: all of one registered rig, on
  // the request's shared ground (a character with a ground of its own is
  // refused: TickBatchJob has one ground per batch). Errors name the
  // request's field ("characters[3].compact_pose...").
  absl::Status Convert(const v1::TickRequest& request, const RigRegistry& rigs,
                       const TerrainRegistry& terrains,
                       const ServiceLimits& limits);

  const Character& character() const { return entry->character; }

  std::shared_ptr<const RigEntry> entry;
  RequestGround ground;
  std::list<Chain> ad_hoc_chains;
  std::vector<CrowdCharacterInput> inputs;
};

// Which jobs a run does: 0 all that each character asks for, 1 grounding
// only, 2 the goals only, 3 dynamics only (crowd_batch_bench's <jobs>).
inline constexpr int kAllCrowdJobs = 0;
inline bool CrowdGrounds(int jobs) { return jobs == 0 || jobs == 1; }
inline bool CrowdSolves(int jobs) { return jobs == 0 || jobs == 2; }
inline bool CrowdSteps(int jobs) { return jobs == 0 || jobs == 3; }

// The crowd's working copies and outputs, shaped for the batch.
struct CrowdRun {
  CrowdRun(const CrowdCoreInputs& inputs, int jobs);

  // Every pose and state as converted (what the next tick's request
  // brings).
  void Restore(const CrowdCoreInputs& inputs);

  int jobs;
  std::vector<std::vector<Transform>> locals;
  std::vector<std::vector<DynamicState>> states;
  std::vector<std::vector<FootResult>> feet;
  std::vector<std::vector<DynamicsReport>> reports;
  std::vector<std::vector<ChainSolveResult>> results;
  std::vector<CharacterTick> ticks;
};

// One TickBatchJob over the run's characters with `scratch`.
absl::Status RunBatch(const CrowdCoreInputs& inputs, CrowdRun& run,
                      TickScratch& scratch);

// Jobs that failed in the run's last batch (each character's ground, goals
// and dynamics statuses).
int FailedJobs(const CrowdRun& run);

// The benchmark loop of a crowd: every iteration restores the run's poses
// and states (not timed), then calls `solve`. Sets the counter
// per_character: CPU seconds per character.
template <typename Solve>
void MeasureCrowd(benchmark::State& state, const CrowdCoreInputs& inputs,
                  CrowdRun& run, Solve&& solve) {
  for (auto _ : state) {
    state.PauseTiming();
    run.Restore(inputs);
    state.ResumeTiming();
    solve();
  }
  // Seconds per character (printed with an SI prefix: 1.8u is 1.8 us).
  state.counters["per_character"] = benchmark::Counter(
      static_cast<double>(state.iterations()) *
          static_cast<double>(run.ticks.size()),
      benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

struct CoreTimingOptions {
  // Google Benchmark's minimum time per repetition, seconds.
  double min_time = 0.5;
  int repetitions = 3;
};

struct CoreTiming {
  // CPU seconds of one TickBatchJob per character: the median of the
  // repetitions.
  double seconds_per_character = 0.0;
  int repetitions = 0;
  // Batches timed, all repetitions together.
  std::int64_t batches = 0;
  // Jobs of the crowd that failed in the core (checked once, before
  // timing).
  int failed_jobs = 0;
};

// Times TickBatchJob over `inputs` (every job each character asks for, one
// scratch) with Google Benchmark's runner, in this thread, reporting to no
// console: registers one benchmark, runs it and unregisters every
// benchmark. For a program that has no benchmarks of its own.
absl::StatusOr<CoreTiming> TimeCrowdBatch(const CrowdCoreInputs& inputs,
                                          const CoreTimingOptions& options);

}  // namespace ik::server

#endif  // IK_BENCH_CROWD_CORE_H_
