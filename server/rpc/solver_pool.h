// The fixed pool of threads that runs ikd's solving, off gRPC's callback
// threads: every solving RPC but the tiny ones (work.h, kInlineWork) is
// posted here as one task, and a tick spreads its characters over the pool
// with ParallelFor.
//
// Fair and bounded: each task belongs to a client (the caller: its token,
// else its address; rpc/callers.h). The workers take the clients in turn, one
// task each (round robin), and each client's tasks in the order posted, so a
// client with many calls in flight gets no more of the pool than one with a
// single call. At most `max_queued` tasks wait at once; Post refuses more (the
// caller answers RESOURCE_EXHAUSTED at once).
//
// Answers do not depend on which thread ran what: each character's jobs run
// start to end on one thread, on data of their own.
//
//   SolverPool pool(4, 1024);
//   if (!pool.Post("ipv4:127.0.0.1:5000", [&] { ... })) ...;  // full
//   pool.ParallelFor("ipv4:127.0.0.1:5000", n, [&](int i) { ... });
#ifndef IK_SERVER_RPC_SOLVER_POOL_H_
#define IK_SERVER_RPC_SOLVER_POOL_H_

#include <atomic>
#include <cstdint>
#include <deque>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/functional/any_invocable.h"
#include "absl/functional/function_ref.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"

namespace ik::server {

class SolverPool {
 public:
  // `threads` >= 1 workers; `max_queued` >= 1 tasks waiting at most; the
  // workers run at nice value `nice` (0: the process's own); a client's
  // waiting tasks hold `max_client_bytes` of requests at most, and all
  // clients' together `max_bytes` (PostRequest).
  SolverPool(int threads, int max_queued, int nice = 0,
             std::int64_t max_client_bytes = INT64_MAX,
             std::int64_t max_bytes = INT64_MAX);
  // Runs the tasks already posted, then joins the workers.
  ~SolverPool();
  SolverPool(const SolverPool&) = delete;
  SolverPool& operator=(const SolverPool&) = delete;

  int threads() const { return thread_count_; }

  // Queues `task` for `client`; false (and `task` dropped) when `max_queued`
  // tasks are waiting already.
  bool Post(absl::string_view client, absl::AnyInvocable<void() &&> task);

  // Why PostRequest did not queue a task.
  enum class Refused { kNone, kQueueFull, kClientFull, kBytesFull };
  // What a refused task's caller answers, told why.
  using Refusal = absl::AnyInvocable<void(Refused) &&>;
  // Post for a task that holds a request of `bytes` while it waits: also
  // refused (kClientFull) when `client` has tasks waiting already and their
  // requests with this one would hold more than max_client_bytes (a
  // client's first waiting request is never refused for its own size), and
  // (kBytesFull) when other tasks wait and every waiting request with this
  // one would hold more than max_bytes (a request alone always waits).
  //
  // A refused task is dropped. With `refuse`, the refusal is paced: `refuse`
  // runs on a worker once the pool has taken a task that made room for it
  // (the next of `client`'s for kClientFull, the next of anyone's
  // otherwise), so a client that sends again as soon as it is refused sends
  // at the pool's pace, not its own. Refusals wait only while tasks wait:
  // when the last is taken, every one left runs.
  Refused PostRequest(absl::string_view client, std::int64_t bytes,
                      absl::AnyInvocable<void() &&> task,
                      Refusal refuse = nullptr);

  // Refusals waiting for their turn to be answered (PostRequest's `refuse`).
  int refusals_waiting() const;

  // Calls fn(i) once for every i in [0, count), on the calling thread and on
  // workers that take the helper tasks it posts for `client` (in its turn,
  // like any of the client's tasks), yielding to other clients between two
  // calls; returns when every call returned. Safe to call from a worker:
  // the caller does the work nobody takes, so it never waits on itself (a
  // full queue only means fewer helpers).
  void ParallelFor(absl::string_view client, int count,
                   absl::FunctionRef<void(int)> fn);

  // Tasks waiting now.
  int queued() const;

  // From a task of `client` running on one of this pool's workers, at a
  // point where it may pause (between a call's goals, between a tick's
  // characters): runs one waiting task of the next other client in turn on
  // this thread, then returns. So a heavy call gives way piece by piece and
  // a light call waits for a piece of it, not for all of it. Does nothing
  // when no other client waits, off the pool's workers, or inside a task
  // that Yield itself runs (no nesting).
  void Yield(absl::string_view client);

 private:
  using Task = absl::AnyInvocable<void() &&>;
  // Refusals a taken task releases, answered outside the lock.
  struct Released {
    std::vector<std::pair<Refusal, Refused>> refusals;
    void Answer();
  };
  void Work();
  // Takes the first task of the client at turns_[turn]; that client goes to
  // the back of the line if it has more. Moves the refusals the taking
  // releases into `released`.
  Task TakeLocked(size_t turn, Released& released)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);

  const int thread_count_;
  const int max_queued_;
  const std::int64_t max_client_bytes_;
  const std::int64_t max_bytes_;
  mutable absl::Mutex mutex_;
  // Each client's waiting tasks, and the clients with waiting tasks in the
  // order they take their turns.
  struct Queue {
    std::deque<std::pair<Task, std::int64_t>> tasks;  // and their bytes
    std::int64_t bytes = 0;
    // Refusals for the client's own bound (kClientFull).
    std::deque<Refusal> refusals;
  };
  absl::flat_hash_map<std::string, Queue> queues_ ABSL_GUARDED_BY(mutex_);
  std::deque<std::string> turns_ ABSL_GUARDED_BY(mutex_);
  int queued_ ABSL_GUARDED_BY(mutex_) = 0;
  // Bytes of every waiting task's request.
  std::int64_t queued_bytes_ ABSL_GUARDED_BY(mutex_) = 0;
  // Refusals for the pool's own bounds (kQueueFull, kBytesFull), and why.
  std::deque<std::pair<Refusal, Refused>> refusals_ ABSL_GUARDED_BY(mutex_);
  int refusals_waiting_ ABSL_GUARDED_BY(mutex_) = 0;
  // queued_, readable without the lock (Yield's quick way out).
  std::atomic<int> waiting_{0};
  bool stopping_ ABSL_GUARDED_BY(mutex_) = false;
  std::vector<std::thread> workers_;
};

}  // namespace ik::server

#endif  // IK_SERVER_RPC_SOLVER_POOL_H_
