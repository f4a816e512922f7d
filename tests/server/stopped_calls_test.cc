// Calls that stop while they wait stop using the pool: over a real channel,
// with the pool's only worker held, SolveChain and Tick calls queue; once
// their deadline passes (or the client cancels them) and the worker is
// free, they are answered without running a single core job -- observed
// through CoreTime, the time spent in the core's jobs. The server learns of
// a stop asynchronously (the call's cancellation reaches its reactor through
// gRPC's callback executor, not in the order of the connection's frames), so
// the tests wait until ikd_calls_cancelled_total counts both calls before
// freeing the worker. A tick that stops part-way answers the characters it
// had not started with CANCELLED and their path. The tests wait for states,
// never for times.
#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "gtest/gtest.h"
#include "handlers/handlers.h"
#include "ik/base/field_error.h"
#include "metrics_scrape.h"
#include "pool_fixture.h"
#include "rpc/core_time.h"
#include "rpc/solver_pool.h"
#include "service_fixture.h"

namespace ik::server {
namespace {

using ::ik::testing::Drain;
using ::ik::testing::HeldWorker;
using ::ik::testing::LightReach;
using ::ik::testing::OneWorkerServer;
using ::ik::testing::PooledReach;
using ::ik::testing::WaitForQueued;
using ::ik::testing::WaitForSample;

v1::TickRequest Reaching(int characters) {
  v1::TickRequest request;
  for (int k = 0; k < characters; ++k) {
    v1::TickCharacter* character = request.add_characters();
    character->set_id(absl::StrCat("npc-", k));
    character->set_rig("humanoid");
    *character->add_goals() = LightReach().goals(0);
  }
  return request;
}

// The handler-level tests: a one-worker server whose handlers they call.
class StoppedHandlersTest : public IkServiceTest {
 protected:
  void SetUp() override {
    StartServer(Options());
    CoreTime::Enable(true);
    CoreTime::Reset();
  }
  void TearDown() override { CoreTime::Enable(false); }
  virtual ServerOptions Options() const { return OneWorkerServer(); }

  // The test server's handlers, called directly with a scope on `pool`
  // whose `stopped` the test decides.
  IkHandlers Handlers() {
    return IkHandlers(server_->registry(), server_->terrains(),
                      ServiceLimits());
  }
  static CallScope ScopeOn(SolverPool& pool,
                           std::function<absl::Status()> stopped) {
    CallScope scope;
    scope.pool = &pool;
    scope.client = "one";
    scope.stopped = std::move(stopped);
    return scope;
  }
  // What a scope answers: stopped with `code` once `stop` holds.
  static absl::Status StopWhen(bool stop, absl::StatusCode code) {
    return stop ? absl::Status(code, "stopped by the test") : absl::OkStatus();
  }
  // A call abandoned, and a call past its deadline.
  static constexpr absl::StatusCode kStops[] = {
      absl::StatusCode::kCancelled, absl::StatusCode::kDeadlineExceeded};
};

// The channel tests: the server also serves its metrics, whose
// ikd_calls_cancelled_total shows when it knows a call stopped.
class StoppedCallsTest : public StoppedHandlersTest {
 protected:
  ServerOptions Options() const override {
    ServerOptions options = OneWorkerServer();
    options.metrics_listen = "127.0.0.1:0";
    return options;
  }

  struct Pending {
    grpc::ClientContext context;
    grpc::Status status;
    absl::Notification done;
    v1::SolveChainResponse solved;
    v1::TickResponse ticked;
  };

  // Sends a SolveChain and a 50-character Tick (`timeout`: their deadline,
  // if any) and returns once both wait in the pool behind the held worker.
  void QueueBoth(Pending& solve, Pending& tick,
                 std::optional<std::chrono::seconds> timeout) {
    if (timeout.has_value()) {
      for (Pending* call : {&solve, &tick}) {
        call->context.set_deadline(std::chrono::system_clock::now() + *timeout);
      }
    }
    stub_->async()->SolveChain(&solve.context, &solve_request_, &solve.solved,
                               [&solve](grpc::Status status) {
                                 solve.status = std::move(status);
                                 solve.done.Notify();
                               });
    stub_->async()->Tick(&tick.context, &tick_request_, &tick.ticked,
                         [&tick](grpc::Status status) {
                           tick.status = std::move(status);
                           tick.done.Notify();
                         });
    WaitForQueued(server_->solver_pool(), 2);
  }

  // Waits until the server knows both queued calls stopped, frees the
  // worker, lets it run what waited, and expects no core job ran.
  void ExpectNoCoreJobOnceFree(HeldWorker& worker) {
    for (const char* method : {"SolveChain", "Tick"}) {
      WaitForSample(
          server_->metrics_port(),
          absl::StrCat("ikd_calls_cancelled_total{method=\"", method, "\"}"),
          1);
    }
    worker.Release();
    Drain(server_->solver_pool());
    EXPECT_EQ(server_->solver_pool().queued(), 0);
    EXPECT_EQ(CoreTime::Nanos(), 0) << "a stopped call ran core jobs";
  }

  const v1::SolveChainRequest solve_request_ = PooledReach();
  const v1::TickRequest tick_request_ = Reaching(50);
};

TEST_F(StoppedCallsTest, CallsPastTheirDeadlineRunNoCoreJob) {
  HeldWorker worker(server_->solver_pool());
  Pending solve;
  Pending tick;
  QueueBoth(solve, tick, std::chrono::seconds(2));
  solve.done.WaitForNotification();
  tick.done.WaitForNotification();
  EXPECT_EQ(solve.status.error_code(), grpc::DEADLINE_EXCEEDED);
  EXPECT_EQ(tick.status.error_code(), grpc::DEADLINE_EXCEEDED);
  ExpectNoCoreJobOnceFree(worker);

  // The measure sees a call that does run.
  v1::SolveChainResponse response;
  ASSERT_TRUE(
      stub_->SolveChain(Context().get(), solve_request_, &response).ok());
  EXPECT_GT(CoreTime::Nanos(), 0);
}

TEST_F(StoppedCallsTest, CallsTheClientCancelledRunNoCoreJob) {
  HeldWorker worker(server_->solver_pool());
  Pending solve;
  Pending tick;
  QueueBoth(solve, tick, std::nullopt);
  solve.context.TryCancel();
  tick.context.TryCancel();
  solve.done.WaitForNotification();
  tick.done.WaitForNotification();
  EXPECT_EQ(solve.status.error_code(), grpc::CANCELLED);
  EXPECT_EQ(tick.status.error_code(), grpc::CANCELLED);
  ExpectNoCoreJobOnceFree(worker);

  // The server goes on serving the same client connection.
  v1::TickResponse ticked;
  ASSERT_TRUE(stub_->Tick(Context().get(), tick_request_, &ticked).ok());
  EXPECT_EQ(ticked.characters_size(), 50);
  EXPECT_GT(CoreTime::Nanos(), 0);
}

// The handler level: a tick whose call stops after its fifth character
// answers the characters not yet started with the stop's code (CANCELLED,
// or DEADLINE_EXCEEDED past the deadline) and their path, and runs none of
// their jobs.
TEST_F(StoppedHandlersTest,
       ATickStoppingPartWayCancelsTheCharactersNotStarted) {
  IkHandlers handlers = Handlers();
  SolverPool pool(1, 16);
  for (const absl::StatusCode code : kStops) {
    int asked = 0;
    // Asked once per character, before it runs; one worker plus the caller
    // may ask concurrently, so count under the scope's own ordering: a
    // character runs only when asked before the stop.
    absl::Mutex mutex;
    CallScope scope = ScopeOn(pool, [&] {
      absl::MutexLock lock(&mutex);
      return StopWhen(++asked > 5, code);
    });
    v1::TickRequest request = Reaching(20);
    v1::TickResponse response;
    ASSERT_TRUE(handlers.Tick(request, response, scope).ok());
    ASSERT_EQ(response.characters_size(), 20);
    int ran = 0;
    int stopped = 0;
    for (int k = 0; k < 20; ++k) {
      const v1::TickCharacterResult& out = response.characters(k);
      EXPECT_EQ(out.id(), absl::StrCat("npc-", k));
      if (out.status().code() != 0) {
        ++stopped;
        EXPECT_EQ(out.status().code(), static_cast<int>(code));
        EXPECT_EQ(out.status().field(), absl::StrCat("characters[", k, "]"));
        EXPECT_EQ(out.goals_size(), 0);
        EXPECT_EQ(out.joints_size(), 0);
      } else {
        ++ran;
        EXPECT_EQ(out.goals_size(), 1);
      }
    }
    EXPECT_EQ(ran, 5);
    EXPECT_EQ(stopped, 15);
  }
}

// A SolveChain whose call stops while it runs solves no goal after the
// stop: it asks between goals and ends with the stop's code (CANCELLED, or
// DEADLINE_EXCEEDED past the deadline) at the first goal not solved.
TEST_F(StoppedHandlersTest, ASolveStoppingPartWaySolvesNoFurtherGoal) {
  IkHandlers handlers = Handlers();
  SolverPool pool(1, 16);
  for (const absl::StatusCode code : kStops) {
    int asked = 0;
    const CallScope scope =
        ScopeOn(pool, [&] { return StopWhen(++asked >= 3, code); });
    v1::SolveChainRequest request = LightReach();
    for (int i = 0; i < 9; ++i) *request.add_goals() = request.goals(0);
    v1::SolveChainResponse response;
    const absl::Status status = handlers.SolveChain(request, response, &scope);
    EXPECT_EQ(status.code(), code) << status;
    EXPECT_EQ(FieldPathOf(status), "goals[3]");
    EXPECT_EQ(asked, 3);
    EXPECT_EQ(response.results_size(), 3);
  }
}

}  // namespace
}  // namespace ik::server
