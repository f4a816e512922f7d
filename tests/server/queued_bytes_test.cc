// The bytes of requests waiting for the solver pool, bounded per caller and
// in all, over a real channel with the pool's only worker held: a call
// beyond a bound is refused, its RESOURCE_EXHAUSTED answered once the pool
// makes room, while other callers' calls still queue; a caller's first
// waiting call, and a call that would wait alone, are never refused for
// their size. On the pool itself: refusals are answered as the refused
// client's tasks are taken. The test waits for states, never for times.
#include <string>
#include <vector>

#include "absl/synchronization/notification.h"
#include "gtest/gtest.h"
#include "pool_fixture.h"
#include "service_fixture.h"

namespace ik::server {
namespace {

using ::ik::testing::HeldWorker;
using ::ik::testing::OneWorkerServer;
using ::ik::testing::PendingSolve;
using ::ik::testing::PooledReach;
using ::ik::testing::SendSolve;
using ::ik::testing::WaitForQueued;
using ::ik::testing::WaitForRefusals;

// One worker, callers told apart by x-forwarded-for, and small bounds on
// the bytes waiting calls hold: 256 per caller, 768 in all.
class QueuedBytesTest : public IkServiceTest {
 protected:
  void SetUp() override {
    ServerOptions options = OneWorkerServer();
    options.trusted_proxies = {"127.0.0.1"};
    options.max_queued_bytes_per_caller = 256;
    options.max_queued_bytes = 768;
    StartServer(options);
  }

  // More than a caller's bound alone.
  static v1::SolveChainRequest Large() {
    v1::SolveChainRequest large = PooledReach();
    for (int g = 1; g < 8; ++g) *large.add_goals() = large.goals(0);
    return large;
  }

  // A refused call, answered RESOURCE_EXHAUSTED naming `flag`.
  static void ExpectRefused(PendingSolve& call, const std::string& flag) {
    call.done.WaitForNotification();
    EXPECT_EQ(call.status.error_code(), grpc::RESOURCE_EXHAUSTED);
    EXPECT_NE(call.status.error_message().find(flag + ")"), std::string::npos)
        << call.status.error_message();
  }
};

TEST_F(QueuedBytesTest, ACallerBeyondItsQueuedBytesIsRefusedInItsTurn) {
  HeldWorker worker(server_->solver_pool());
  const v1::SolveChainRequest large = Large();
  ASSERT_GT(large.ByteSizeLong(), 256u);
  // Queued, as its caller's first.
  PendingSolve first, again, other;
  SendSolve(*stub_, first, large, "10.0.0.1");
  WaitForQueued(server_->solver_pool(), 1);
  // The same caller again: refused once its first call is taken.
  const v1::SolveChainRequest small = PooledReach();
  SendSolve(*stub_, again, small, "10.0.0.1");
  WaitForRefusals(server_->solver_pool(), 1);
  // Another caller: queued.
  SendSolve(*stub_, other, small, "10.0.0.2");
  WaitForQueued(server_->solver_pool(), 2);
  EXPECT_FALSE(again.done.HasBeenNotified());
  worker.Release();
  ExpectRefused(again, "--max_queued_bytes_per_caller");
  first.done.WaitForNotification();
  other.done.WaitForNotification();
  EXPECT_TRUE(first.status.ok()) << first.status.error_message();
  EXPECT_TRUE(other.status.ok()) << other.status.error_message();
}

TEST_F(QueuedBytesTest, CallsBeyondEveryCallersQueuedBytesAreRefusedInTurn) {
  HeldWorker worker(server_->solver_pool());
  const v1::SolveChainRequest large = Large();
  const size_t bytes = large.ByteSizeLong();
  ASSERT_GT(bytes, 256u);
  ASSERT_LE(2 * bytes, 768u);
  ASSERT_GT(3 * bytes, 768u);
  // Two callers' first calls fit together; a third caller's does not, and
  // is refused although it has nothing waiting.
  PendingSolve first, second, third;
  SendSolve(*stub_, first, large, "10.0.0.1");
  SendSolve(*stub_, second, large, "10.0.0.2");
  WaitForQueued(server_->solver_pool(), 2);
  SendSolve(*stub_, third, large, "10.0.0.3");
  WaitForRefusals(server_->solver_pool(), 1);
  EXPECT_EQ(server_->solver_pool().queued(), 2);
  worker.Release();
  ExpectRefused(third, "--max_queued_bytes");
  first.done.WaitForNotification();
  second.done.WaitForNotification();
  EXPECT_TRUE(first.status.ok()) << first.status.error_message();
  EXPECT_TRUE(second.status.ok()) << second.status.error_message();
  // Once they are answered, the same call waits and is answered.
  HeldWorker again(server_->solver_pool());
  PendingSolve fourth;
  SendSolve(*stub_, fourth, large, "10.0.0.3");
  WaitForQueued(server_->solver_pool(), 1);
  again.Release();
  fourth.done.WaitForNotification();
  EXPECT_TRUE(fourth.status.ok()) << fourth.status.error_message();
}

TEST(SolverPoolBytesTest, ACallThatWouldWaitAloneIsNeverRefusedForItsSize) {
  SolverPool pool(1, 16, 0, /*max_client_bytes=*/10, /*max_bytes=*/10);
  HeldWorker worker(pool);
  absl::Notification ran;
  EXPECT_EQ(pool.PostRequest("a", 1000, [&ran] { ran.Notify(); }),
            SolverPool::Refused::kNone);
  EXPECT_EQ(pool.PostRequest("b", 1, [] {}), SolverPool::Refused::kBytesFull);
  worker.Release();
  ran.WaitForNotification();
}

// A refused client's refusals are answered one per task of its taken, and
// all once none of its tasks waits: on the worker, before the task runs.
TEST(SolverPoolBytesTest, RefusalsAreAnsweredAsTheClientsTasksAreTaken) {
  SolverPool pool(1, 16, 0, /*max_client_bytes=*/20);
  HeldWorker worker(pool);
  std::vector<int> answered_before;  // at each of a's tasks
  int answered = 0;
  absl::Notification a_done;  // a's second task ran
  for (int t = 0; t < 2; ++t) {
    EXPECT_EQ(pool.PostRequest("a", 8,
                               [&, t] {
                                 answered_before.push_back(answered);
                                 if (t == 1) a_done.Notify();
                               }),
              SolverPool::Refused::kNone);
  }
  for (int r = 0; r < 3; ++r) {
    EXPECT_EQ(pool.PostRequest(
                  "a", 8, [] {},
                  [&](SolverPool::Refused why) {
                    EXPECT_EQ(why, SolverPool::Refused::kClientFull);
                    ++answered;
                  }),
              SolverPool::Refused::kClientFull);
  }
  EXPECT_EQ(pool.refusals_waiting(), 3);
  EXPECT_EQ(answered, 0);
  absl::Notification done;
  ASSERT_TRUE(pool.Post("b", [&done] { done.Notify(); }));
  worker.Release();
  // The pool takes its clients in turn: b's task may run between a's two.
  done.WaitForNotification();
  a_done.WaitForNotification();
  EXPECT_EQ(answered_before, (std::vector<int>{1, 3}));
  EXPECT_EQ(pool.refusals_waiting(), 0);
}

}  // namespace
}  // namespace ik::server
