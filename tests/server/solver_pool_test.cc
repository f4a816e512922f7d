// SolverPool: clients take turns, the queue is bounded, ParallelFor runs
// every index once and never waits on itself. Ordering is observed with the
// workers held at a gate, so nothing here depends on timing.
#include "rpc/solver_pool.h"

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace ik::server {
namespace {

using ::testing::ElementsAre;

// Holds a one-thread pool's worker until Open().
class Gate {
 public:
  explicit Gate(SolverPool& pool) {
    EXPECT_TRUE(pool.Post("gate", [this] {
      started_.Notify();
      open_.WaitForNotification();
    }));
    started_.WaitForNotification();  // the worker is held; nothing queued
  }
  void Open() { open_.Notify(); }

 private:
  absl::Notification started_;
  absl::Notification open_;
};

class Log {
 public:
  void Add(std::string entry) {
    absl::MutexLock lock(&mutex_);
    entries_.push_back(std::move(entry));
  }
  std::vector<std::string> entries() {
    absl::MutexLock lock(&mutex_);
    return entries_;
  }

 private:
  absl::Mutex mutex_;
  std::vector<std::string> entries_;
};

TEST(SolverPoolTest, ClientsTakeTurnsWhateverTheyQueued) {
  Log log;
  absl::Notification done;
  {
    SolverPool pool(1, 64);
    Gate gate(pool);
    // A flood of five calls from one connection, then one call each from
    // two others: they run second and third, not after the flood.
    for (int i = 1; i <= 5; ++i) {
      ASSERT_TRUE(pool.Post(
          "flood", [&log, i] { log.Add("flood" + std::to_string(i)); }));
    }
    ASSERT_TRUE(pool.Post("victim", [&log] { log.Add("victim"); }));
    ASSERT_TRUE(pool.Post("health", [&log] { log.Add("health"); }));
    EXPECT_EQ(pool.queued(), 7);
    gate.Open();
  }  // the destructor runs what is queued, then joins
  EXPECT_THAT(log.entries(), ElementsAre("flood1", "victim", "health", "flood2",
                                         "flood3", "flood4", "flood5"));
}

// A heavy call yields between its pieces: another client's waiting call
// runs inside the pause, on the same worker; the heavy client's own next
// call does not (it waits its turn), nor does a task that Yield runs give
// way again, and a thread that is not a worker never runs anything.
TEST(SolverPoolTest, YieldRunsAnotherClientsCallBetweenPieces) {
  Log log;
  {
    SolverPool pool(1, 64);
    Gate gate(pool);
    ASSERT_TRUE(pool.Post("heavy", [&] {
      log.Add("heavy piece 1");
      pool.Yield("heavy");  // runs light
      log.Add("heavy piece 2");
      pool.Yield("heavy");  // runs other
      log.Add("heavy piece 3");
      pool.Yield("heavy");  // only heavy's own call waits: runs nothing
    }));
    ASSERT_TRUE(pool.Post("light", [&] {
      log.Add("light");
      pool.Yield("light");  // run by Yield: gives way to nobody
    }));
    ASSERT_TRUE(pool.Post("heavy", [&] { log.Add("heavy call 2"); }));
    ASSERT_TRUE(pool.Post("other", [&] { log.Add("other"); }));
    pool.Yield("test");  // not a worker: runs nothing here
    EXPECT_EQ(pool.queued(), 4);
    gate.Open();
  }
  // Without Yield: heavy 1-3, light, other, heavy call 2 (turn order).
  EXPECT_THAT(log.entries(),
              ElementsAre("heavy piece 1", "light", "heavy piece 2", "other",
                          "heavy piece 3", "heavy call 2"));
}

TEST(SolverPoolTest, AFullQueueRefusesAtOnceAndRunsWhatItTook) {
  std::atomic<int> ran{0};
  {
    SolverPool pool(1, 3);
    Gate gate(pool);
    for (int i = 0; i < 3; ++i) {
      EXPECT_TRUE(pool.Post("a", [&ran] { ++ran; }));
    }
    EXPECT_FALSE(pool.Post("a", [&ran] { ++ran; }));
    EXPECT_FALSE(pool.Post("b", [&ran] { ++ran; }));
    EXPECT_EQ(pool.queued(), 3);
    gate.Open();
  }
  EXPECT_EQ(ran.load(), 3);
}

TEST(SolverPoolTest, ParallelForRunsEveryIndexOnceFromAWorkerEvenWhenFull) {
  for (int threads : {1, 3}) {
    for (int max_queued : {1, 64}) {
      SolverPool pool(threads, max_queued);
      std::vector<std::atomic<int>> hits(500);
      absl::Notification done;
      // From a worker, as a tick runs: with one thread nobody else can help.
      ASSERT_TRUE(pool.Post("tick", [&] {
        pool.ParallelFor("tick", static_cast<int>(hits.size()),
                         [&](int i) { ++hits[i]; });
        done.Notify();
      }));
      done.WaitForNotification();
      for (size_t i = 0; i < hits.size(); ++i) {
        ASSERT_EQ(hits[i].load(), 1) << "index " << i << ", " << threads
                                     << " threads, queue " << max_queued;
      }
    }
  }
}

}  // namespace
}  // namespace ik::server
