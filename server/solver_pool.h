// The fixed pool of threads that runs ikd's solving, off gRPC's callback
// threads: every solving RPC is posted here as one task, and a tick spreads
// its characters over the pool with ParallelFor. Tasks run in the order
// posted. Answers do not depend on which thread ran what: each character's
// jobs run start to end on one thread, on data of their own.
//
//   SolverPool pool(4);
//   pool.Post([&] { ... });
//   pool.ParallelFor(n, [&](int i) { ... });  // returns when all n are done
#ifndef IK_SERVER_SOLVER_POOL_H_
#define IK_SERVER_SOLVER_POOL_H_

#include <deque>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/functional/any_invocable.h"
#include "absl/functional/function_ref.h"
#include "absl/synchronization/mutex.h"

namespace ik::server {

class SolverPool {
 public:
  // `threads` >= 1 workers.
  explicit SolverPool(int threads);
  // Runs the tasks already posted, then joins the workers.
  ~SolverPool();
  SolverPool(const SolverPool&) = delete;
  SolverPool& operator=(const SolverPool&) = delete;

  int threads() const { return static_cast<int>(workers_.size()); }

  // Queues `task` to run on a worker.
  void Post(absl::AnyInvocable<void() &&> task);

  // Calls fn(i) once for every i in [0, count), on the calling thread and on
  // any workers that are free meanwhile; returns when every call returned.
  // Safe to call from a worker (the caller does the work nobody takes), so
  // it never waits on itself.
  void ParallelFor(int count, absl::FunctionRef<void(int)> fn);

 private:
  void Work();

  absl::Mutex mutex_;
  std::deque<absl::AnyInvocable<void() &&>> tasks_ ABSL_GUARDED_BY(mutex_);
  bool stopping_ ABSL_GUARDED_BY(mutex_) = false;
  std::vector<std::thread> workers_;
};

}  // namespace ik::server

#endif  // IK_SERVER_SOLVER_POOL_H_
