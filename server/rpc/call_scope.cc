#include "rpc/call_scope.h"

#include <chrono>
#include <utility>

namespace ik::server {

absl::Status Stopped(grpc::CallbackServerContext& context) {
  if (context.IsCancelled()) {
    return absl::CancelledError("the call was cancelled before it ran");
  }
  if (context.deadline() <= std::chrono::system_clock::now()) {
    return absl::DeadlineExceededError(
        "the call's deadline passed while it waited for a solver thread");
  }
  return absl::OkStatus();
}

CallScope ScopeOf(grpc::CallbackServerContext* context, SolverPool& pool,
                  std::string caller) {
  CallScope scope;
  scope.pool = &pool;
  scope.client = std::move(caller);
  scope.stopped = [context] { return !Stopped(*context).ok(); };
  return scope;
}

absl::Status Busy() {
  return absl::ResourceExhaustedError(
      "ikd is busy: its solver queue is full (ikd --max_queued_calls); retry "
      "later");
}

}  // namespace ik::server
