// The solver queue over a real channel: with the pool's only worker held
// and the queue full, solving calls are refused with RESOURCE_EXHAUSTED once
// the pool makes room (a TickStream's tick in its answer, the stream staying
// open), the registry and health still answer, and the queued calls complete
// once the worker is free; callers (not connections) take turns, and a heavy
// call (many goals, a tick's characters) gives way between its pieces. The
// test waits for states, never for times.
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "gtest/gtest.h"
#include "pool_fixture.h"
#include "service_fixture.h"

namespace ik::server {
namespace {

using ::ik::testing::HeldWorker;
using ::ik::testing::LightReach;
using ::ik::testing::OneWorkerServer;
using ::ik::testing::PendingSolve;
using ::ik::testing::PooledReach;
using ::ik::testing::SendSolve;
using ::ik::testing::Vec;
using ::ik::testing::WaitForQueued;
using ::ik::testing::WaitForRefusals;

class SolverQueueTest : public IkServiceTest {
 protected:
  void SetUp() override {
    ServerOptions options = OneWorkerServer();
    options.max_queued_calls = 2;
    StartServer(options);
  }
};

TEST_F(SolverQueueTest, AFullQueueRefusesWhenItMakesRoomAndServesWhatItHolds) {
  HeldWorker worker(server_->solver_pool());

  // Two calls fill the queue.
  const v1::SolveChainRequest request = PooledReach();
  PendingSolve pending[2];
  for (PendingSolve& call : pending) SendSolve(*stub_, call, request);
  WaitForQueued(server_->solver_pool(), 2);

  // A third call, a tick and a stream's tick are refused, each answered
  // only once the pool makes room, so a client that sends again at once is
  // paced by the pool; the registry and health are not queued.
  PendingSolve third;
  SendSolve(*stub_, third, request);
  v1::TickRequest tick;
  v1::TickCharacter* character = tick.add_characters();
  character->set_rig("humanoid");
  *character->mutable_goals() = request.goals();
  v1::TickResponse ticked;
  grpc::ClientContext tick_context;
  tick_context.set_deadline(std::chrono::system_clock::now() +
                            std::chrono::seconds(30));
  absl::Notification tick_done;
  grpc::Status tick_status;
  stub_->async()->Tick(&tick_context, &tick, &ticked, [&](grpc::Status status) {
    tick_status = std::move(status);
    tick_done.Notify();
  });
  grpc::ClientContext stream_context;
  auto stream = stub_->TickStream(&stream_context);
  v1::TickRequest streamed = tick;
  streamed.set_sequence(7);
  ASSERT_TRUE(stream->Write(streamed));
  WaitForRefusals(server_->solver_pool(), 3);
  EXPECT_FALSE(third.done.HasBeenNotified());
  EXPECT_FALSE(tick_done.HasBeenNotified());
  v1::ListRigsResponse rigs;
  EXPECT_TRUE(
      stub_->ListRigs(Context().get(), v1::ListRigsRequest(), &rigs).ok());

  // Freed, the worker answers the refusals and the queued calls, and the
  // stream goes on.
  worker.Release();
  third.done.WaitForNotification();
  EXPECT_EQ(third.status.error_code(), grpc::RESOURCE_EXHAUSTED);
  EXPECT_EQ(third.status.error_message().rfind("ikd is busy: ", 0), 0u)
      << third.status.error_message();
  tick_done.WaitForNotification();
  EXPECT_EQ(tick_status.error_code(), grpc::RESOURCE_EXHAUSTED);
  v1::TickResponse refused_tick;
  ASSERT_TRUE(stream->Read(&refused_tick));
  EXPECT_EQ(refused_tick.sequence(), 7u);
  EXPECT_EQ(refused_tick.status().code(), grpc::RESOURCE_EXHAUSTED);
  EXPECT_EQ(refused_tick.characters_size(), 0);
  EXPECT_EQ(server_->solver_pool().refusals_waiting(), 0);
  for (PendingSolve& call : pending) {
    call.done.WaitForNotification();
    EXPECT_TRUE(call.status.ok()) << call.status.error_message();
    ASSERT_EQ(call.response.results_size(), 1);
    EXPECT_TRUE(call.response.results(0).reached());
  }
  streamed.set_sequence(8);
  ASSERT_TRUE(stream->Write(streamed));
  ASSERT_TRUE(stream->Read(&ticked));
  EXPECT_EQ(ticked.sequence(), 8u);
  EXPECT_EQ(ticked.status().code(), 0);
  ASSERT_EQ(ticked.characters_size(), 1);
  EXPECT_TRUE(ticked.characters(0).goals(0).reached());
  stream->WritesDone();
  EXPECT_TRUE(stream->Finish().ok());
}

// A channel on a connection of its own (channels to one address share one
// unless told not to).
std::shared_ptr<grpc::Channel> OwnChannel(int port) {
  grpc::ChannelArguments arguments;
  arguments.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
  return grpc::CreateCustomChannel(absl::StrCat("127.0.0.1:", port),
                                   grpc::InsecureChannelCredentials(),
                                   arguments);
}

std::unique_ptr<v1::IkService::Stub> OwnConnection(int port) {
  return v1::IkService::NewStub(OwnChannel(port));
}

// The pool's turns go to callers: here every connection comes from
// 127.0.0.1, listed as a trusted proxy, so a call's x-forwarded-for names
// its caller (a call without one is the caller "addr 127.0.0.1").
class FairQueueTest : public SolverQueueTest {
 protected:
  void SetUp() override {
    ServerOptions options = OneWorkerServer();
    options.trusted_proxies = {"127.0.0.1"};
    StartServer(options);
  }

  // Heavy calls (64 FABRIK goals on the tail), call i on floods[i] as
  // `flood_caller`, queued first, then one light call from caller
  // "10.0.0.2" on a connection of its own, then a probe as a third caller:
  // how many tasks still wait when the probe's turn comes. Every call must
  // succeed.
  int WaitingAtProbe(
      const std::vector<std::unique_ptr<v1::IkService::Stub>>& floods,
      const char* flood_caller) {
    HeldWorker worker(server_->solver_pool());
    auto victim = OwnConnection(server_->port());
    v1::SolveChainRequest heavy;
    heavy.set_rig("tail");
    for (int g = 0; g < 64; ++g) {
      v1::ChainGoal* goal = heavy.add_goals();
      goal->set_chain("tail");
      goal->set_solver(v1::SOLVER_FABRIK);
      *goal->mutable_target() = Vec(0.2 + 0.001 * g, 0.6, -0.9);
    }
    const v1::SolveChainRequest light = PooledReach();
    struct Call {
      grpc::ClientContext context;
      v1::SolveChainResponse response;
      grpc::Status status;
    };
    const int flood = static_cast<int>(floods.size());
    std::vector<Call> calls(flood + 1);
    absl::Mutex mutex;
    int finished = 0;
    const auto send = [&](v1::IkService::Stub& stub, int i,
                          const v1::SolveChainRequest& request,
                          const char* caller) {
      calls[i].context.set_deadline(std::chrono::system_clock::now() +
                                    std::chrono::seconds(60));
      if (caller != nullptr) {
        calls[i].context.AddMetadata("x-forwarded-for", caller);
      }
      stub.async()->SolveChain(&calls[i].context, &request, &calls[i].response,
                               [&, i](grpc::Status status) {
                                 absl::MutexLock lock(&mutex);
                                 calls[i].status = std::move(status);
                                 ++finished;
                               });
    };
    for (int i = 0; i < flood; ++i) {
      send(*floods[i], i, heavy, flood_caller);
      WaitForQueued(server_->solver_pool(), i + 1);  // in this order
    }
    send(*victim, flood, light, "10.0.0.2");
    WaitForQueued(server_->solver_pool(), flood + 1);
    int waiting_at_probe = -1;
    absl::Notification probed;
    EXPECT_TRUE(server_->solver_pool().Post("probe", [&] {
      waiting_at_probe = server_->solver_pool().queued();
      probed.Notify();
    }));
    worker.Release();
    probed.WaitForNotification();
    struct Done {
      int* finished;
      int wanted;
    } done{&finished, flood + 1};
    {
      absl::MutexLock lock(&mutex);
      mutex.Await(absl::Condition(
          +[](Done* d) { return *d->finished == d->wanted; }, &done));
    }
    for (const Call& call : calls) {
      EXPECT_TRUE(call.status.ok()) << call.status.error_message();
    }
    return waiting_at_probe;
  }
};

TEST_F(FairQueueTest, AVictimIsServedInItsTurnNotAfterTheFlood) {
  std::vector<std::unique_ptr<v1::IkService::Stub>> floods;
  const std::shared_ptr<grpc::Channel> flood = OwnChannel(server_->port());
  for (int i = 0; i < 6; ++i) {
    floods.push_back(v1::IkService::NewStub(flood));
  }
  // Callers take turns, one task each: the flood's first call, the
  // victim's call, the probe -- which then finds the flood's other five
  // waiting. First in, first out, it would find none.
  EXPECT_EQ(WaitingAtProbe(floods, "10.0.0.1"), 5);
}

// A caller that opens eight connections gets the share of a caller with
// one: its calls take one turn between them, not one per connection.
TEST_F(FairQueueTest, ACallerWithEightConnectionsGetsTheShareOfOne) {
  for (const char* caller : {"10.0.0.1", static_cast<const char*>(nullptr)}) {
    SCOPED_TRACE(caller == nullptr ? "by peer address" : "by x-forwarded-for");
    std::vector<std::unique_ptr<v1::IkService::Stub>> floods;
    for (int i = 0; i < 8; ++i) {
      floods.push_back(OwnConnection(server_->port()));
    }
    // The flood's first call, the victim's, the probe: seven of the
    // flood's wait. Had each connection taken turns of its own, the probe
    // would find none.
    EXPECT_EQ(WaitingAtProbe(floods, caller), 7);
  }
}

// A flood of ticks from one caller: a tick gives way to other callers
// between its characters, so the victim's light call waits for one
// character of the flood's tick, not for the tick (nor for the flood).
// The flood: `kTicks` ticks of caller 10.0.0.1, as unary Ticks or as one
// tick on each of as many TickStreams; then a victim and a probe.
class TickFloodTest : public FairQueueTest,
                      public ::testing::WithParamInterface<bool> {};

TEST_P(TickFloodTest, AVictimWaitsForACharacterOfATickNotForTheTick) {
  const bool streams = GetParam();
  HeldWorker worker(server_->solver_pool());
  auto flood = OwnConnection(server_->port());
  auto victim = OwnConnection(server_->port());

  // Ticks of humanoids, each with one two-bone goal for its left arm.
  constexpr int kCharacters = 40;
  constexpr int kTicks = 2;
  v1::TickRequest tick;
  for (int k = 0; k < kCharacters; ++k) {
    v1::TickCharacter* character = tick.add_characters();
    character->set_id(absl::StrCat("c", k));
    character->set_rig("humanoid");
    *character->add_goals() = LightReach().goals(0);
  }
  // The victim's call: one FABRIK goal on the tail, so the solvers'
  // counters tell its goal from the ticks'.
  v1::SolveChainRequest light;
  light.set_rig("tail");
  v1::ChainGoal* goal = light.add_goals();
  goal->set_chain("tail");
  goal->set_solver(v1::SOLVER_FABRIK);
  *goal->mutable_target() = Vec(0.2, 0.6, -0.9);

  struct Tick {
    grpc::ClientContext context;
    v1::TickResponse response;
    grpc::Status status;
  };
  Tick ticks[kTicks];
  std::unique_ptr<grpc::ClientReaderWriter<v1::TickRequest, v1::TickResponse>>
      opened[kTicks];
  grpc::ClientContext victim_context;
  v1::SolveChainResponse victim_response;
  grpc::Status victim_status;
  absl::Mutex mutex;
  int finished = 0;
  const auto deadline =
      std::chrono::system_clock::now() + std::chrono::seconds(60);
  for (int t = 0; t < kTicks; ++t) {
    ticks[t].context.set_deadline(deadline);
    ticks[t].context.AddMetadata("x-forwarded-for", "10.0.0.1");
    if (streams) {
      opened[t] = flood->TickStream(&ticks[t].context);
      ASSERT_TRUE(opened[t]->Write(tick));
    } else {
      flood->async()->Tick(&ticks[t].context, &tick, &ticks[t].response,
                           [&, t](grpc::Status status) {
                             absl::MutexLock lock(&mutex);
                             ticks[t].status = std::move(status);
                             ++finished;
                           });
    }
    WaitForQueued(server_->solver_pool(), t + 1);
  }
  victim_context.set_deadline(deadline);
  victim_context.AddMetadata("x-forwarded-for", "10.0.0.2");
  victim->async()->SolveChain(&victim_context, &light, &victim_response,
                              [&](grpc::Status status) {
                                absl::MutexLock lock(&mutex);
                                victim_status = std::move(status);
                                ++finished;
                              });
  WaitForQueued(server_->solver_pool(), kTicks + 1);
  // A probe from a third client, queued last, notes what the solvers have
  // done when its turn comes.
  SolveCounters::PerSolver two_bone_at_probe;
  SolveCounters::PerSolver fabrik_at_probe;
  absl::Notification probed;
  ASSERT_TRUE(server_->solver_pool().Post("probe", [&] {
    two_bone_at_probe = server_->solve_counters().solver(SolverKind::kTwoBone);
    fabrik_at_probe = server_->solve_counters().solver(SolverKind::kFabrik);
    probed.Notify();
  }));
  worker.Release();
  probed.WaitForNotification();
  for (int t = 0; streams && t < kTicks; ++t) {
    ASSERT_TRUE(opened[t]->Read(&ticks[t].response));
    opened[t]->WritesDone();
    ticks[t].status = opened[t]->Finish();
  }
  struct Done {
    int* finished;
    int wanted;
  } done{&finished, streams ? 1 : kTicks + 1};
  {
    absl::MutexLock lock(&mutex);
    mutex.Await(absl::Condition(
        +[](Done* d) { return *d->finished == d->wanted; }, &done));
  }
  EXPECT_TRUE(victim_status.ok()) << victim_status.error_message();
  for (const Tick& t : ticks) {
    ASSERT_TRUE(t.status.ok()) << t.status.error_message();
    ASSERT_EQ(t.response.characters_size(), kCharacters);
    for (const v1::TickCharacterResult& character : t.response.characters()) {
      EXPECT_FALSE(character.has_status()) << character.status().message();
    }
  }
  // Turns: the flood's first tick, the victim, the probe. The tick gives
  // way after each character: after its first the victim's call runs, after
  // its second the probe -- which finds the victim served and two of the
  // flood's 80 characters solved. Had the tick run whole before giving way,
  // it would find 40.
  EXPECT_EQ(fabrik_at_probe.goals, 1);
  EXPECT_LE(two_bone_at_probe.goals, 2);
  EXPECT_EQ(server_->solve_counters().solver(SolverKind::kTwoBone).goals,
            kTicks * kCharacters);
}

INSTANTIATE_TEST_SUITE_P(UnaryAndStreams, TickFloodTest, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& info) {
                           return info.param ? "TickStreams" : "Ticks";
                         });

}  // namespace
}  // namespace ik::server
