// How a tick's wall time falls with the solver threads: the example crowd's
// 1,000-character tick (client/crowd/crowd.h: the humanoid walking over the
// bundled stairs, all 28 joints animated, both legs grounded, two hand goals,
// the ponytail stepped from the states of the tick before) sent as one unary
// Tick to an ikd in this process, over a real loopback channel, with 1 and
// with 2 solver threads (--solver_threads). Everything a tick costs is in
// the time: the request's parse, the characters on the pool, the answer's
// serialisation, gRPC both ways.
//
// Two clients: BM_TickOverChannel through the generated stub (it builds the
// request message's bytes and parses the answer, work of its own on the
// same cores), and BM_TickBytesOverChannel, which sends the request's bytes
// made once and keeps the answer's bytes unparsed -- ikd's own work and
// gRPC's alone, the figure ikd's scaling is judged by.
//
// After the benchmarks it prints, for each, the wall time with 2 solver
// threads / with 1 (1.0: no gain; 0.5: linear).
//
//   build/bench/tick_scaling_bench --benchmark_min_time=2
#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>

#include <chrono>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "benchmark/benchmark.h"
#include "crowd.h"
#include "crowd_fixture.h"
#include "example_ikd.h"
#include "ik/v1/ik.grpc.pb.h"
#include "server.h"

namespace ik::server {
namespace {

// An ikd in process with `threads` solver threads (example_ikd.h, as
// ikd_loadgen --solver_threads starts it), a channel to it, and the
// crowd's fourth tick (three ticks absorbed over the channel first, so
// dynamics has states).
struct ServedCrowd {
  explicit ServedCrowd(int threads) {
    absl::StatusOr<std::unique_ptr<IkServer>> started =
        StartExampleIkd(IK_EXAMPLES_DIR, threads);
    Expect(started.status());
    server = *std::move(started);
    grpc::ChannelArguments arguments;
    arguments.SetMaxReceiveMessageSize(64 << 20);
    channel = grpc::CreateCustomChannel(ExampleIkdTarget(*server),
                                        grpc::InsecureChannelCredentials(),
                                        arguments);
    stub = v1::IkService::NewStub(channel);
    crowd = ExampleCrowd();
    for (int t = 0; t < 3; ++t) {
      v1::TickResponse response;
      Expect(Tick(crowd->NextTick(), response), "a set-up tick failed");
      crowd->Absorb(response);
    }
    request = crowd->NextTick();
    generic = std::make_unique<grpc::GenericStub>(channel);
    const std::string bytes = request.SerializeAsString();
    grpc::Slice slice(bytes);
    request_bytes = grpc::ByteBuffer(&slice, 1);
  }

  // The tick as bytes, its answer's bytes unparsed.
  bool TickBytes(grpc::ByteBuffer& answer) {
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() +
                         std::chrono::seconds(60));
    absl::Notification done;
    grpc::Status status;
    generic->UnaryCall(&context, "/ik.v1.IkService/Tick", {}, &request_bytes,
                       &answer, [&](grpc::Status s) {
                         status = std::move(s);
                         done.Notify();
                       });
    done.WaitForNotification();
    return status.ok();
  }

  bool Tick(const v1::TickRequest& tick, v1::TickResponse& response) {
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() +
                         std::chrono::seconds(60));
    return stub->Tick(&context, tick, &response).ok() && !response.has_status();
  }

  std::unique_ptr<IkServer> server;
  std::shared_ptr<grpc::Channel> channel;
  std::unique_ptr<v1::IkService::Stub> stub;
  std::unique_ptr<grpc::GenericStub> generic;
  grpc::ByteBuffer request_bytes;
  std::unique_ptr<SyntheticCrowd> crowd;
  v1::TickRequest request;
};

// The crowd's size, and the wall time per character (in seconds, printed
// with an SI prefix).
void PerCharacter(benchmark::State& state) {
  state.counters["characters"] = kCrowdCharacters;
  state.counters["per_character"] = benchmark::Counter(
      kCrowdCharacters, benchmark::Counter::kIsIterationInvariantRate |
                            benchmark::Counter::kInvert);
}

void BM_TickOverChannel(benchmark::State& state) {
  ServedCrowd served(static_cast<int>(state.range(0)));
  v1::TickResponse response;
  for (auto _ : state) {
    response.Clear();
    if (!served.Tick(served.request, response)) {
      state.SkipWithError("the tick failed");
      return;
    }
  }
  PerCharacter(state);
}
BENCHMARK(BM_TickOverChannel)
    ->ArgName("solver_threads")
    ->Arg(1)
    ->Arg(2)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

void BM_TickBytesOverChannel(benchmark::State& state) {
  ServedCrowd served(static_cast<int>(state.range(0)));
  grpc::ByteBuffer answer;
  for (auto _ : state) {
    answer.Clear();
    if (!served.TickBytes(answer)) {
      state.SkipWithError("the tick failed");
      return;
    }
  }
  v1::TickResponse parsed;
  if (!grpc::SerializationTraits<v1::TickResponse>::Deserialize(&answer,
                                                                &parsed)
           .ok() ||
      parsed.characters_size() != kCrowdCharacters) {
    state.SkipWithError("the answer is not the tick's");
    return;
  }
  PerCharacter(state);
}
BENCHMARK(BM_TickBytesOverChannel)
    ->ArgName("solver_threads")
    ->Arg(1)
    ->Arg(2)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

// The console's report, keeping each run's wall time per iteration by name.
class KeepingReporter : public benchmark::ConsoleReporter {
 public:
  KeepingReporter() : ConsoleReporter(OO_Tabular) {}
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& run : runs) {
      if (run.iterations > 0 && run.run_type == Run::RT_Iteration) {
        wall[run.benchmark_name()] =
            run.real_accumulated_time / static_cast<double>(run.iterations);
      }
    }
    ConsoleReporter::ReportRuns(runs);
  }
  std::map<std::string, double> wall;
};

}  // namespace
}  // namespace ik::server

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  ik::server::KeepingReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  for (const char* name : {"BM_TickOverChannel", "BM_TickBytesOverChannel"}) {
    const auto one =
        reporter.wall.find(absl::StrCat(name, "/solver_threads:1/real_time"));
    const auto two =
        reporter.wall.find(absl::StrCat(name, "/solver_threads:2/real_time"));
    if (one != reporter.wall.end() && two != reporter.wall.end()) {
      std::printf("%s: tick wall time, 2 solver threads / 1: %.3f\n", name,
                  two->second / one->second);
    }
  }
  benchmark::Shutdown();
  return 0;
}
