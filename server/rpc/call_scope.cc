#include "rpc/call_scope.h"

#include <chrono>
#include <utility>

namespace ik::server {

absl::Status Stopped(grpc::CallbackServerContext& context) {
  // The deadline first: a call past it is cancelled too (IsCancelled), and
  // its caller is owed DEADLINE_EXCEEDED, whichever status reaches it first.
  if (context.deadline() <= std::chrono::system_clock::now()) {
    return absl::DeadlineExceededError(
        "the call's deadline passed while it waited for a solver thread");
  }
  if (context.IsCancelled()) {
    return absl::CancelledError("the call was cancelled before it ran");
  }
  return absl::OkStatus();
}

CallScope ScopeOf(grpc::CallbackServerContext* context, SolverPool& pool,
                  std::string caller) {
  CallScope scope;
  scope.pool = &pool;
  scope.client = std::move(caller);
  scope.stopped = [context] { return Stopped(*context); };
  return scope;
}

absl::Status Busy(SolverPool::Refused refused) {
  switch (refused) {
    case SolverPool::Refused::kClientFull:
      return absl::ResourceExhaustedError(
          "ikd is busy: this caller's requests waiting for a solver thread "
          "hold the most one caller's may (ikd --max_queued_bytes_per_caller); "
          "retry once they are answered");
    case SolverPool::Refused::kBytesFull:
      return absl::ResourceExhaustedError(
          "ikd is busy: the requests waiting for a solver thread hold the "
          "most ikd holds (ikd --max_queued_bytes); retry later");
    default:
      return Busy();
  }
}

absl::Status Busy() {
  return absl::ResourceExhaustedError(
      "ikd is busy: its solver queue is full (ikd --max_queued_calls); retry "
      "later");
}

}  // namespace ik::server
