// A tick in process, without gRPC: the crowd of client/crowd/crowd.h (the
// example humanoid walking over the bundled stairs, all 28 joints animated,
// both legs grounded, two hand goals, the ponytail stepped with the states of
// the tick before) through IkHandlers::Tick, as ikd runs it on a pool of one
// worker (the calling thread takes part, as a gRPC call's does).
//
// Each benchmark reports, per character: `cpu_us` (process CPU time, every
// thread), `core_us` (time inside the core's jobs: GroundFeetJob,
// SolveChainJob, forward kinematics and RigDynamicsStep, see
// server/rpc/core_time.h) and their ratio `cpu/core`:
//   BM_TickHandler   the handler alone: converting, solving, answering;
//   BM_TickWithWire  also parsing the request's bytes and serialising the
//                    answer, as gRPC has protobuf do for ikd.
// Each runs with the full answer (/0) and with TICK_DETAIL_POSE (/1: the
// final poses, statuses and dynamics states only).
// ikd's own CPU per character over a real channel comes from
// `ikd_loadgen --rpc=tick --ikd_pid=...`; hold it against `core_us` here.
//
//   build/bench/tick_bench --benchmark_repetitions=5
//     --benchmark_report_aggregates_only=true
#include <time.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "absl/status/status.h"
#include "benchmark/benchmark.h"
#include "crowd_fixture.h"
#include "google/protobuf/arena.h"
#include "handlers/handlers.h"
#include "rpc/core_time.h"

namespace ik::server {
namespace {

constexpr int kCharacters = kCrowdCharacters;

double ProcessCpuSeconds() {
  timespec now{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) +
         1e-9 * static_cast<double>(now.tv_nsec);
}

// The crowd's fourth tick as it comes, and with TICK_DETAIL_POSE, each also
// as bytes.
struct TickFixture : CrowdTickFixture {
  TickFixture() {
    request_bytes = request.SerializeAsString();
    pose_only_request = request;
    pose_only_request.set_detail(v1::TICK_DETAIL_POSE);
    pose_only_bytes = pose_only_request.SerializeAsString();
  }

  std::string request_bytes;
  v1::TickRequest pose_only_request;
  std::string pose_only_bytes;

  const v1::TickRequest& Request(const benchmark::State& state) const {
    return state.range(0) == 1 ? pose_only_request : request;
  }
  const std::string& RequestBytes(const benchmark::State& state) const {
    return state.range(0) == 1 ? pose_only_bytes : request_bytes;
  }
};

TickFixture& Fixture() {
  static TickFixture* fixture = new TickFixture();
  return *fixture;
}

// Runs `tick` once per iteration and reports the per-character figures.
template <typename Tick>
void MeasureTicks(benchmark::State& state, Tick&& tick) {
  CoreTime::Enable(true);
  CoreTime::Reset();
  const double cpu_start = ProcessCpuSeconds();
  for (auto _ : state) tick();
  const double cpu = ProcessCpuSeconds() - cpu_start;
  const double core = 1e-9 * static_cast<double>(CoreTime::Nanos());
  CoreTime::Enable(false);
  const double characters =
      static_cast<double>(state.iterations()) * kCharacters;
  state.counters["cpu_us"] = 1e6 * cpu / characters;
  state.counters["core_us"] = 1e6 * core / characters;
  state.counters["cpu/core"] = core > 0.0 ? cpu / core : 0.0;
}

void BM_TickHandler(benchmark::State& state) {
  TickFixture& fixture = Fixture();
  google::protobuf::Arena arena;
  MeasureTicks(state, [&] {
    auto* response =
        google::protobuf::Arena::CreateMessage<v1::TickResponse>(&arena);
    Expect(fixture.handlers.Tick(fixture.Request(state), *response,
                                 fixture.scope));
    benchmark::DoNotOptimize(response);
    arena.Reset();
  });
}
BENCHMARK(BM_TickHandler)
    ->Arg(0)
    ->Arg(1)
    ->Unit(benchmark::kMillisecond)
    ->MeasureProcessCPUTime();

void BM_TickWithWire(benchmark::State& state) {
  TickFixture& fixture = Fixture();
  google::protobuf::Arena arena;
  std::string answer;
  MeasureTicks(state, [&] {
    auto* request =
        google::protobuf::Arena::CreateMessage<v1::TickRequest>(&arena);
    Expect(request->ParseFromString(fixture.RequestBytes(state)), "parse");
    auto* response =
        google::protobuf::Arena::CreateMessage<v1::TickResponse>(&arena);
    Expect(fixture.handlers.Tick(*request, *response, fixture.scope));
    answer.clear();
    Expect(response->SerializeToString(&answer), "serialise");
    benchmark::DoNotOptimize(answer.data());
    arena.Reset();
  });
}
BENCHMARK(BM_TickWithWire)
    ->Arg(0)
    ->Arg(1)
    ->Unit(benchmark::kMillisecond)
    ->MeasureProcessCPUTime();

}  // namespace
}  // namespace ik::server
