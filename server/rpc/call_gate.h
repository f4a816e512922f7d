// The door every IkService call passes, for the drain: calls enter while
// ikd serves and leave once answered; once Close() is called no call enters
// (the service answers UNAVAILABLE, which clients retry on another
// replica), and WaitIdle() waits for the calls inside to leave. gRPC's own
// Server::Shutdown cancels the calls it has not yet handed to the service
// (those whose request is still arriving), so ikd shuts gRPC down only once
// the gate is idle. Thread-safe.
#ifndef IK_SERVER_RPC_CALL_GATE_H_
#define IK_SERVER_RPC_CALL_GATE_H_

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace ik::server {

class CallGate {
 public:
  // True (and the call counted inside) while open; false once closed.
  bool Enter() ABSL_LOCKS_EXCLUDED(mutex_) {
    absl::MutexLock lock(&mutex_);
    if (closed_) return false;
    ++inside_;
    return true;
  }

  void Leave() ABSL_LOCKS_EXCLUDED(mutex_) {
    absl::MutexLock lock(&mutex_);
    --inside_;
  }

  void Close() ABSL_LOCKS_EXCLUDED(mutex_) {
    absl::MutexLock lock(&mutex_);
    closed_ = true;
  }

  bool closed() const ABSL_LOCKS_EXCLUDED(mutex_) {
    absl::MutexLock lock(&mutex_);
    return closed_;
  }

  // Waits until no call is inside or `deadline` passes; true when idle.
  bool WaitIdle(absl::Time deadline) ABSL_LOCKS_EXCLUDED(mutex_) {
    absl::MutexLock lock(&mutex_);
    auto idle = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) {
      return inside_ == 0;
    };
    return mutex_.AwaitWithDeadline(absl::Condition(&idle), deadline);
  }

  int inside() const ABSL_LOCKS_EXCLUDED(mutex_) {
    absl::MutexLock lock(&mutex_);
    return inside_;
  }

  // The answer to a call that finds the gate closed.
  static absl::Status ShuttingDown() {
    return absl::UnavailableError(
        "ikd is shutting down (draining); retry on another replica");
  }

 private:
  mutable absl::Mutex mutex_;
  int inside_ ABSL_GUARDED_BY(mutex_) = 0;
  bool closed_ ABSL_GUARDED_BY(mutex_) = false;
};

}  // namespace ik::server

#endif  // IK_SERVER_RPC_CALL_GATE_H_
