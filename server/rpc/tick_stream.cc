#include "rpc/tick_stream.h"

#include <chrono>
#include <cstdint>
#include <memory>
#include <utility>

#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "convert/tick.h"
#include "handlers/tick_baselines.h"
#include "rpc/call_scope.h"
#include "rpc/raw_call.h"

namespace ik::server {
namespace {

// One TickStream: read a tick, run it on the pool, write its answer, read
// the next. At most one operation is outstanding, so Finish (after the
// client's half-close or a failed write) never races a tick in flight.
// Counted in the service's call gate from start to OnDone; on a drain it
// answers the tick in progress, then ends with UNAVAILABLE (at once when it
// is waiting for the next tick).
//
// Reactions are never run inline from StartRead, StartWrite or Finish
// (gRPC's server_callback_handlers.h: their tags are not inlineable), so
// they are called under the reactor's mutex.
class TickStreamReactor final
    : public grpc::ServerBidiReactor<grpc::ByteBuffer, grpc::ByteBuffer>,
      public TickStreams::Stream {
 public:
  // `allowed`: the caller's token check; the stream ends at once with it
  // when it is not OK. `caller`: whose turns on the pool its ticks take.
  // `observers`: each tick answered is reported to them as one call.
  TickStreamReactor(grpc::CallbackServerContext* context, IkHandlers& handlers,
                    SolverPool& pool, TickStreams& streams,
                    const absl::Status& allowed, std::string caller,
                    UnreadAnswers& unread,
                    const std::vector<CallObserver*>& observers,
                    bool observers_want_peer, Recorder* recorder)
      : handlers_(handlers),
        streams_(streams),
        unread_(unread),
        scope_(ScopeOf(context, pool, std::move(caller))),
        observers_(observers),
        request_arena_(CallArenaOptions()),
        response_arena_(CallArenaOptions()) {
    record_.method = "TickStream";
    if (recorder != nullptr && allowed.ok() &&
        recorder->Records(record_.method)) {
      recorded_stream_ = recorder->SampleStream();
      if (recorded_stream_ != 0) {
        recorder_ = recorder;
        scope_.uses = &uses_;
      }
    }
    if (observers_want_peer) record_.peer = context->peer();
    const bool added = streams_.Add(this);  // not under mutex_: Drain's order
    absl::MutexLock lock(&mutex_);
    added_ = added;
    if (!added || draining_) {
      FinishLocked(ToGrpcStatus(CallGate::ShuttingDown()));
      return;
    }
    if (!allowed.ok()) {
      record_.start = absl::Now();
      Report(allowed.code());
      FinishLocked(ToGrpcStatus(allowed));
      return;
    }
    ReadNext();
  }

  void OnReadDone(bool ok) override {
    absl::MutexLock lock(&mutex_);
    if (finished_) return;
    if (!ok) {  // the client closed its side (or the call ended)
      FinishLocked(grpc::Status::OK);
      return;
    }
    reading_ = false;
    record_.start = absl::Now();
    received_ = std::chrono::steady_clock::now();
    started_.reset();
    record_.request_bytes = static_cast<std::int64_t>(request_bytes_.Length());
    // What a tick refused here echoes; the pool parses the rest.
    request_->set_sequence(TickSequence(request_bytes_));
    if (absl::Status admitted = unread_.Admit(scope_.client); !admitted.ok()) {
      Answer(admitted);
      return;
    }
    // Parsed on the pool, in the caller's turn: while it waits, the tick
    // holds its bytes only.
    auto parked = std::make_shared<absl::Notification>();
    const SolverPool::Refused refused = scope_.pool->PostRequest(
        scope_.client, static_cast<std::int64_t>(request_bytes_.Length()),
        [this] {
          started_ = std::chrono::steady_clock::now();
          // A message that is not a TickRequest is answered like a failed
          // tick.
          absl::Status runs = ParseRequest(request_bytes_, request_);
          if (runs.ok()) runs = unread_.Admit(scope_.client);
          Answer(runs.ok() ? handlers_.Tick(*request_, *response_, scope_,
                                            &baselines_)
                           : runs);
        },
        // Answered when the pool has made room: the stream sends its next
        // tick at the pool's pace. Not recorded: a refusal for load says
        // nothing of the tick.
        [this, parked](SolverPool::Refused why) {
          parked->WaitForNotification();
          Answer(Busy(why), /*record=*/false);
        });
    // A refused tick's bytes are freed while its refusal waits.
    if (refused != SolverPool::Refused::kNone) request_bytes_.Clear();
    parked->Notify();  // the refusal may answer from here on
  }

  void OnWriteDone(bool ok) override {
    absl::MutexLock lock(&mutex_);
    unread_.Release(scope_.client, held_bytes_);
    held_bytes_ = 0;
    if (!ok) {
      FinishLocked(grpc::Status(grpc::StatusCode::CANCELLED,
                                "the answer could not be written"));
      return;
    }
    if (draining_) {
      FinishLocked(ToGrpcStatus(CallGate::ShuttingDown()));
      return;
    }
    ReadNext();
  }

  void OnDone() override {
    bool added;
    {
      absl::MutexLock lock(&mutex_);
      added = added_;
    }
    if (added) streams_.Remove(this);
    delete this;
  }

  // The service drains: no tick is read after the one in progress. Called
  // under the TickStreams' lock, which OnDone takes too: the reactor outlives
  // the call.
  void Drain() override ABSL_LOCKS_EXCLUDED(mutex_) {
    absl::MutexLock lock(&mutex_);
    draining_ = true;
    if (reading_) FinishLocked(ToGrpcStatus(CallGate::ShuttingDown()));
  }

 private:
  void FinishLocked(grpc::Status status) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) {
    if (finished_) return;
    finished_ = true;
    reading_ = false;
    Finish(std::move(status));
  }

  // Each tick's request and answer on the stream's arenas, emptied first:
  // their blocks are reused tick after tick.
  void ReadNext() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) {
    request_arena_.Reset();
    response_arena_.Reset();
    request_ = google::protobuf::Arena::CreateMessage<wire::TickRequestBytes>(
        &request_arena_);
    response_ = google::protobuf::Arena::CreateMessage<wire::TickResponseBytes>(
        &response_arena_);
    reading_ = true;
    request_bytes_.Clear();
    StartRead(&request_bytes_);
  }

  // Writes the tick's answer, or only `status` when the tick failed as a
  // whole.
  void Answer(const absl::Status& status, bool record = true) {
    if (!status.ok()) {
      response_->Clear();
      response_->set_sequence(request_->sequence());
      StatusToProto(status, *response_->mutable_status());
    }
    response_bytes_.Clear();
    if (!SerializeAnswer(*response_, &response_bytes_).ok()) {
      response_->Clear();
      StatusToProto(absl::InternalError("the answer could not be serialised"),
                    *response_->mutable_status());
      SerializeAnswer(*response_, &response_bytes_).IgnoreError();
    }
    const auto code = static_cast<absl::StatusCode>(response_->status().code());
    Report(code);
    if (recorder_ != nullptr && record) {
      recorder_->Record(record_.method, recorded_stream_, recorded_ticks_++,
                        request_bytes_, &response_bytes_,
                        absl::Status(code, response_->status().message()),
                        &uses_, Timing(received_, started_));
      uses_ = CallUses();
    }
    // While the answer waits for its client, the stream holds nothing else:
    // the request is freed (its sequence is in the answer).
    request_bytes_.Clear();
    request_arena_.Reset();
    request_ = nullptr;
    held_bytes_ = static_cast<std::int64_t>(response_bytes_.Length());
    unread_.Hold(scope_.client, held_bytes_);
    StartWrite(&response_bytes_);
  }

  void Report(absl::StatusCode code) {
    const absl::Time end = absl::Now();
    for (CallObserver* observer : observers_) {
      observer->CallEnded(record_, code, end);
    }
  }

  IkHandlers& handlers_;
  TickStreams& streams_;
  UnreadAnswers& unread_;
  // The bytes of the answer being written, held in unread_.
  std::int64_t held_bytes_ = 0;
  CallScope scope_;  // uses_ added when recorded
  CallUses uses_;
  const std::vector<CallObserver*>& observers_;
  // The tick in progress, as the observers see it.
  CallRecord record_;
  google::protobuf::Arena request_arena_;
  google::protobuf::Arena response_arena_;
  wire::TickRequestBytes* request_ = nullptr;
  wire::TickResponseBytes* response_ = nullptr;
  grpc::ByteBuffer request_bytes_;
  grpc::ByteBuffer response_bytes_;
  // The recorder and the stream's number in it, when it records the stream;
  // the ticks recorded so far.
  Recorder* recorder_ = nullptr;
  std::uint64_t recorded_stream_ = 0;
  std::uint64_t recorded_ticks_ = 0;
  // The tick in hand: read, and started on the pool (CallTiming).
  std::chrono::steady_clock::time_point received_;
  std::optional<std::chrono::steady_clock::time_point> started_;
  // What the stream's ticks build on (one tick at a time).
  TickBaselines baselines_;
  absl::Mutex mutex_;
  bool reading_ ABSL_GUARDED_BY(mutex_) = false;
  bool draining_ ABSL_GUARDED_BY(mutex_) = false;
  bool finished_ ABSL_GUARDED_BY(mutex_) = false;
  // In the service's TickStreams (false when refused at the start).
  bool added_ ABSL_GUARDED_BY(mutex_) = false;
};

}  // namespace

bool TickStreams::Add(Stream* stream) {
  absl::MutexLock lock(&mutex_);
  if (!gate_.Enter()) return false;
  streams_.insert(stream);
  return true;
}

void TickStreams::Remove(Stream* stream) {
  absl::MutexLock lock(&mutex_);
  streams_.erase(stream);
  gate_.Leave();
}

void TickStreams::Drain() {
  absl::MutexLock lock(&mutex_);
  for (Stream* stream : streams_) stream->Drain();
}

grpc::ServerBidiReactor<grpc::ByteBuffer, grpc::ByteBuffer>* StartTickStream(
    grpc::CallbackServerContext* context, IkHandlers& handlers,
    SolverPool& pool, TickStreams& streams, const absl::Status& allowed,
    std::string caller, UnreadAnswers& unread,
    const std::vector<CallObserver*>& observers, bool observers_want_peer,
    Recorder* recorder) {
  return new TickStreamReactor(context, handlers, pool, streams, allowed,
                               std::move(caller), unread, observers,
                               observers_want_peer, recorder);
}

}  // namespace ik::server
