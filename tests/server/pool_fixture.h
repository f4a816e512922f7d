// The solver pool of a test server, held and watched: its worker held at a
// gate so what queues behind it is observed, never timed; waiting for calls
// that arrive over the channel to be queued; draining the queue.
#ifndef IK_TESTS_SERVER_POOL_FIXTURE_H_
#define IK_TESTS_SERVER_POOL_FIXTURE_H_

#include <grpcpp/grpcpp.h>

#include <chrono>
#include <string>
#include <thread>
#include <utility>

#include "absl/synchronization/notification.h"
#include "gtest/gtest.h"
#include "ik/v1/ik.grpc.pb.h"
#include "ik/v1/ik.pb.h"
#include "rpc/solver_pool.h"
#include "server.h"

namespace ik::testing {

// A light call for the pool's tests: one two-bone goal for the example
// humanoid's left arm.
inline v1::SolveChainRequest LightReach() {
  v1::SolveChainRequest request;
  request.set_rig("humanoid");
  v1::ChainGoal* goal = request.add_goals();
  goal->set_chain("left_arm");
  v1::Vec3* target = goal->mutable_target();
  target->set_x(0.45);
  target->set_y(1.2);
  target->set_z(0.15);
  return request;
}

// The same goal by FABRIK: still light, but iterative, so the call takes
// the pool (a one-goal two-bone call is tiny and runs where it arrives).
inline v1::SolveChainRequest PooledReach() {
  v1::SolveChainRequest request = LightReach();
  request.mutable_goals(0)->set_solver(v1::SOLVER_FABRIK);
  return request;
}

// A server for the pool's tests: the example rigs and one solver thread, so
// holding its worker holds all solving.
inline server::ServerOptions OneWorkerServer() {
  server::ServerOptions options;
  options.rig_dir = std::string(IK_EXAMPLES_DIR) + "/rigs";
  options.solver_threads = 1;
  return options;
}

// Holds one of the pool's workers (a task of client "holder") from
// construction until Release() or destruction.
class HeldWorker {
 public:
  explicit HeldWorker(server::SolverPool& pool) {
    EXPECT_TRUE(pool.Post("holder", [this] {
      held_.Notify();
      open_.WaitForNotification();
    }));
    held_.WaitForNotification();
  }
  ~HeldWorker() { Release(); }
  HeldWorker(const HeldWorker&) = delete;
  HeldWorker& operator=(const HeldWorker&) = delete;

  void Release() {
    if (!open_.HasBeenNotified()) open_.Notify();
  }

 private:
  absl::Notification held_;
  absl::Notification open_;
};

// A SolveChain sent without waiting for its answer (SendSolve).
struct PendingSolve {
  grpc::ClientContext context;
  v1::SolveChainResponse response;
  grpc::Status status;
  absl::Notification done;
};

// Sends `request` on `stub` as `call`, within 30 s, from `caller` (its
// x-forwarded-for) when given.
inline void SendSolve(v1::IkService::Stub& stub, PendingSolve& call,
                      const v1::SolveChainRequest& request,
                      const char* caller = nullptr) {
  call.context.set_deadline(std::chrono::system_clock::now() +
                            std::chrono::seconds(30));
  if (caller != nullptr) call.context.AddMetadata("x-forwarded-for", caller);
  stub.async()->SolveChain(&call.context, &request, &call.response,
                           [&call](grpc::Status status) {
                             call.status = std::move(status);
                             call.done.Notify();
                           });
}

// Waits until `count` tasks are queued (calls arrive over the channel).
inline void WaitForQueued(server::SolverPool& pool, int count) {
  while (pool.queued() < count) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

// Waits until `count` refusals wait for the pool to make room.
inline void WaitForRefusals(server::SolverPool& pool, int count) {
  while (pool.refusals_waiting() < count) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

// Returns once every queued task has run, on a one-worker pool: the worker
// runs a probe that finds nothing else waiting (clients take turns, so one
// probe may run before a client's second task; then another follows it).
inline void Drain(server::SolverPool& pool) {
  for (;;) {
    absl::Notification ran;
    int waiting = -1;
    ASSERT_TRUE(pool.Post("probe", [&] {
      waiting = pool.queued();
      ran.Notify();
    }));
    ran.WaitForNotification();
    if (waiting == 0) return;
  }
}

}  // namespace ik::testing

#endif  // IK_TESTS_SERVER_POOL_FIXTURE_H_
