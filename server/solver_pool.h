// The fixed pool of threads that runs ikd's solving, off gRPC's callback
// threads: every solving RPC is posted here as one task, and a tick spreads
// its characters over the pool with ParallelFor.
//
// Fair and bounded: each task belongs to a client (the caller's connection,
// gRPC's peer string). The workers take the clients in turn, one task each
// (round robin), and each client's tasks in the order posted, so a client
// with many calls in flight gets no more of the pool than one with a single
// call. At most `max_queued` tasks wait at once; Post refuses more (the
// caller answers RESOURCE_EXHAUSTED at once).
//
// Answers do not depend on which thread ran what: each character's jobs run
// start to end on one thread, on data of their own.
//
//   SolverPool pool(4, 1024);
//   if (!pool.Post("ipv4:127.0.0.1:5000", [&] { ... })) ...;  // full
//   pool.ParallelFor("ipv4:127.0.0.1:5000", n, [&](int i) { ... });
#ifndef IK_SERVER_SOLVER_POOL_H_
#define IK_SERVER_SOLVER_POOL_H_

#include <deque>
#include <string>
#include <thread>
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
  // `threads` >= 1 workers; `max_queued` >= 1 tasks waiting at most.
  SolverPool(int threads, int max_queued);
  // Runs the tasks already posted, then joins the workers.
  ~SolverPool();
  SolverPool(const SolverPool&) = delete;
  SolverPool& operator=(const SolverPool&) = delete;

  int threads() const { return static_cast<int>(workers_.size()); }

  // Queues `task` for `client`; false (and `task` dropped) when `max_queued`
  // tasks are waiting already.
  bool Post(absl::string_view client, absl::AnyInvocable<void() &&> task);

  // Calls fn(i) once for every i in [0, count), on the calling thread and on
  // workers that take the helper tasks it posts for `client` (in its turn,
  // like any of the client's tasks); returns when every call returned. Safe
  // to call from a worker: the caller does the work nobody takes, so it
  // never waits on itself (a full queue only means fewer helpers).
  void ParallelFor(absl::string_view client, int count,
                   absl::FunctionRef<void(int)> fn);

  // Tasks waiting now.
  int queued() const;

 private:
  using Task = absl::AnyInvocable<void() &&>;
  void Work();

  const int max_queued_;
  mutable absl::Mutex mutex_;
  // Each client's waiting tasks, and the clients with waiting tasks in the
  // order they take their turns.
  absl::flat_hash_map<std::string, std::deque<Task>> queues_
      ABSL_GUARDED_BY(mutex_);
  std::deque<std::string> turns_ ABSL_GUARDED_BY(mutex_);
  int queued_ ABSL_GUARDED_BY(mutex_) = 0;
  bool stopping_ ABSL_GUARDED_BY(mutex_) = false;
  std::vector<std::thread> workers_;
};

}  // namespace ik::server

#endif  // IK_SERVER_SOLVER_POOL_H_
