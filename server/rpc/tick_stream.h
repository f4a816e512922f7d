// TickStream, ik.v1.IkService's bidirectional stream of ticks: one reactor
// per stream reads a tick, runs it on the solver pool (IkHandlers::Tick),
// writes its answer and reads the next. The open streams are counted in the
// service's call gate and end after the tick in progress on a drain.
#ifndef IK_SERVER_RPC_TICK_STREAM_H_
#define IK_SERVER_RPC_TICK_STREAM_H_

#include <grpcpp/grpcpp.h>

#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "handlers/handlers.h"
#include "ops/call_record.h"
#include "ops/recorder.h"
#include "rpc/call_gate.h"
#include "rpc/solver_pool.h"
#include "rpc/unread_answers.h"

namespace ik::server {

// The open TickStreams, each counted in the call gate while open; on a
// drain each answers the tick it has, then ends. Thread-safe.
class TickStreams {
 public:
  class Stream {
   public:
    // Ends the stream after the tick in progress (at once when idle).
    virtual void Drain() = 0;

   protected:
    ~Stream() = default;
  };

  explicit TickStreams(CallGate& gate) : gate_(gate) {}
  // False (nothing added) when the gate is closed.
  bool Add(Stream* stream) ABSL_LOCKS_EXCLUDED(mutex_);
  void Remove(Stream* stream) ABSL_LOCKS_EXCLUDED(mutex_);
  // Drains every open stream; a stream's Drain runs under this lock, which
  // Remove takes, so a stream is not destroyed while it is being drained.
  void Drain() ABSL_LOCKS_EXCLUDED(mutex_);

 private:
  CallGate& gate_;
  absl::Mutex mutex_;
  absl::flat_hash_set<Stream*> streams_ ABSL_GUARDED_BY(mutex_);
};

// Starts one TickStream call of `caller` (callers.h). `allowed` is the
// caller's token check: the stream ends at once with it when it is not OK.
// Each tick's answer is held in `unread` as the caller's until written, and
// a tick read while the caller holds its bound there is answered with
// RESOURCE_EXHAUSTED without running. Each
// tick answered is reported to `observers` as one call of method "TickStream"
// (with the peer when `observers_want_peer`), and to `recorder` when it is
// not null and samples the stream. Everything passed must outlive the
// stream; the reactor deletes itself when the call is done.
grpc::ServerBidiReactor<grpc::ByteBuffer, grpc::ByteBuffer>* StartTickStream(
    grpc::CallbackServerContext* context, IkHandlers& handlers,
    SolverPool& pool, TickStreams& streams, const absl::Status& allowed,
    std::string caller, UnreadAnswers& unread,
    const std::vector<CallObserver*>& observers, bool observers_want_peer,
    Recorder* recorder);

}  // namespace ik::server

#endif  // IK_SERVER_RPC_TICK_STREAM_H_
