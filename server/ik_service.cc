#include "server/ik_service.h"

#include <chrono>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"
#include "google/rpc/error_details.pb.h"
#include "google/rpc/status.pb.h"
#include "ik/base/field_error.h"

namespace ik::server {
namespace {

// Why a call taken from the pool should not run (cancelled, or past its
// deadline); OK when it should.
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

CallScope ScopeOf(grpc::CallbackServerContext* context, SolverPool& pool) {
  CallScope scope;
  scope.pool = &pool;
  scope.client = context->peer();
  scope.stopped = [context] { return !Stopped(*context).ok(); };
  return scope;
}

// The role a unary method needs: registrations and deletions change what
// every client sees, so they take an admin token.
template <typename Request>
constexpr Role NeededRole() {
  if constexpr (std::is_same_v<Request, v1::RegisterRigRequest> ||
                std::is_same_v<Request, v1::DeleteRigRequest> ||
                std::is_same_v<Request, v1::RegisterTerrainRequest> ||
                std::is_same_v<Request, v1::DeleteTerrainRequest>) {
    return Role::kAdmin;
  }
  return Role::kRead;
}

// The method's name, from its request type's ("RegisterRigRequest").
template <typename Request>
absl::string_view MethodName() {
  absl::string_view name = Request::descriptor()->name();
  absl::ConsumeSuffix(&name, "Request");
  return name;
}

// The answer when the pool's queue is full.
absl::Status Busy() {
  return absl::ResourceExhaustedError(
      "ikd is busy: its solver queue is full (ikd --max_queued_calls); retry "
      "later");
}

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
  // when it is not OK.
  // `observers`: each tick answered is reported to them as one call.
  TickStreamReactor(grpc::CallbackServerContext* context, IkHandlers& handlers,
                    SolverPool& pool, TickStreams& streams,
                    const absl::Status& allowed,
                    const std::vector<CallObserver*>& observers,
                    bool observers_want_peer)
      : handlers_(handlers),
        streams_(streams),
        scope_(ScopeOf(context, pool)),
        observers_(observers),
        arena_(CallArenaOptions()) {
    record_.method = "TickStream";
    if (observers_want_peer) record_.peer = scope_.client;
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
    record_.request_bytes = static_cast<std::int64_t>(request_bytes_.Length());
    // A message that is not a TickRequest is answered like a failed tick.
    if (absl::Status parsed = ParseRequest(request_bytes_, request_);
        !parsed.ok()) {
      Answer(parsed);
      return;
    }
    const bool posted = scope_.pool->Post(scope_.client, [this] {
      Answer(handlers_.Tick(*request_, *response_, scope_));
    });
    if (!posted) Answer(Busy());
  }

  void OnWriteDone(bool ok) override {
    absl::MutexLock lock(&mutex_);
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

  // Each tick's request and answer on the stream's arena, emptied first:
  // its blocks are reused tick after tick.
  void ReadNext() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) {
    arena_.Reset();
    request_ = google::protobuf::Arena::CreateMessage<v1::TickRequest>(&arena_);
    response_ =
        google::protobuf::Arena::CreateMessage<v1::TickResponse>(&arena_);
    reading_ = true;
    request_bytes_.Clear();
    StartRead(&request_bytes_);
  }

  // Writes the tick's answer, or only `status` when the tick failed as a
  // whole.
  void Answer(const absl::Status& status) {
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
    Report(static_cast<absl::StatusCode>(response_->status().code()));
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
  const CallScope scope_;
  const std::vector<CallObserver*>& observers_;
  // The tick in progress, as the observers see it.
  CallRecord record_;
  google::protobuf::Arena arena_;
  v1::TickRequest* request_ = nullptr;
  v1::TickResponse* response_ = nullptr;
  grpc::ByteBuffer request_bytes_;
  grpc::ByteBuffer response_bytes_;
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

absl::Status IkService::Authorize(grpc::CallbackServerContext* context,
                                  Role needed, absl::string_view method) const {
  if (tokens_ == nullptr) return absl::OkStatus();
  const auto& metadata = context->client_metadata();
  auto found = metadata.find("authorization");
  return tokens_->Check(
      found == metadata.end()
          ? absl::string_view()
          : absl::string_view(found->second.data(), found->second.size()),
      needed, method);
}

bool IkService::observers_want_peer() const {
  for (const CallObserver* observer : observers_) {
    if (observer->wants_peer()) return true;
  }
  return false;
}

template <typename Request, typename Response>
bool IkService::Admit(grpc::CallbackServerContext* context,
                      const grpc::ByteBuffer* request,
                      UnaryCall<Request, Response>* call) {
  if (!observers_.empty()) {
    call->Observe(observers_,
                  CallRecord{MethodName<Request>(), absl::Now(),
                             observers_want_peer() ? context->peer() : "",
                             static_cast<std::int64_t>(request->Length())});
  }
  if (!gate_.Enter()) {
    call->Answer(CallGate::ShuttingDown());
    return false;
  }
  if (absl::Status allowed =
          Authorize(context, NeededRole<Request>(), MethodName<Request>());
      !allowed.ok()) {
    call->Answer(std::move(allowed));
    gate_.Leave();
    return false;
  }
  if (!call->Parse(request)) {
    gate_.Leave();
    return false;
  }
  return true;
}

template <typename Request, typename Response, typename Handler>
grpc::ServerUnaryReactor* IkService::Inline(
    grpc::CallbackServerContext* context, const grpc::ByteBuffer* request,
    grpc::ByteBuffer* response, Handler handler) {
  auto* call = new UnaryCall<Request, Response>(response);
  if (!Admit(context, request, call)) return call;
  call->Answer(handler(call->request(), call->response()));
  gate_.Leave();
  return call;
}

template <typename Request, typename Response, typename Handler>
grpc::ServerUnaryReactor* IkService::OnPool(
    grpc::CallbackServerContext* context, const grpc::ByteBuffer* request,
    grpc::ByteBuffer* response, Handler handler) {
  auto* call = new UnaryCall<Request, Response>(response);
  if (!Admit(context, request, call)) return call;
  const bool posted = pool_.Post(
      context->peer(), [this, context, call, handler = std::move(handler)] {
        absl::Status stopped = Stopped(*context);
        call->Answer(stopped.ok() ? handler(call->request(), call->response())
                                  : stopped);
        gate_.Leave();
      });
  if (!posted) {
    call->Answer(Busy());
    gate_.Leave();
  }
  return call;
}

template <typename Request, typename Response>
grpc::ServerUnaryReactor* IkService::Inline(
    grpc::CallbackServerContext* context, const grpc::ByteBuffer* request,
    grpc::ByteBuffer* response, Method<Request, Response> method) {
  return Inline<Request, Response>(
      context, request, response,
      [this, method](const Request& in, Response& out) {
        return (handlers_.*method)(in, out);
      });
}

template <typename Request, typename Response>
grpc::ServerUnaryReactor* IkService::OnPool(
    grpc::CallbackServerContext* context, const grpc::ByteBuffer* request,
    grpc::ByteBuffer* response, Method<Request, Response> method) {
  return OnPool<Request, Response>(
      context, request, response,
      [this, method](const Request& in, Response& out) {
        return (handlers_.*method)(in, out);
      });
}

void IkService::Drain() {
  gate_.Close();
  streams_.Drain();
}

IkService::IkService(RigRegistry& rigs, TerrainRegistry& terrains,
                     const ServiceLimits& limits, SolverPool& pool,
                     const StateStore* store, const AccessTokens* tokens)
    : handlers_(rigs, terrains, limits, store),
      pool_(pool),
      tokens_(tokens),
      streams_(gate_) {}

namespace {

// At most this many bytes of a message go into the trailers: clients refuse
// trailers over 8 KiB (gRPC's default), and a refused trailer turns the
// answer into RESOURCE_EXHAUSTED. User strings are cut shorter (Quoted);
// this is the backstop.
constexpr size_t kMaxMessageBytes = 1024;

// `text` cut to kMaxMessageBytes at a UTF-8 character boundary, with "..."
// when cut.
std::string ForTrailer(absl::string_view text) {
  if (text.size() <= kMaxMessageBytes) return std::string(text);
  size_t end = kMaxMessageBytes - 3;
  while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) {
    --end;  // not inside a multi-byte character
  }
  return absl::StrCat(text.substr(0, end), "...");
}

}  // namespace

grpc::Status ToGrpcStatus(const absl::Status& status) {
  if (status.ok()) return grpc::Status::OK;
  const auto code = static_cast<grpc::StatusCode>(status.code());
  std::string message = ForTrailer(status.message());
  std::optional<std::string> field = FieldPathOf(status);
  if (!field.has_value()) return grpc::Status(code, std::move(message));
  google::rpc::BadRequest bad_request;
  google::rpc::BadRequest::FieldViolation* violation =
      bad_request.add_field_violations();
  violation->set_field(*std::move(field));
  violation->set_description(ForTrailer(FieldDescriptionOf(status)));
  google::rpc::Status details;
  details.set_code(static_cast<int>(code));
  details.set_message(message);
  details.add_details()->PackFrom(bad_request);
  return grpc::Status(code, std::move(message), details.SerializeAsString());
}

grpc::ServerUnaryReactor* IkService::RegisterRig(
    grpc::CallbackServerContext* context, const grpc::ByteBuffer* request,
    grpc::ByteBuffer* response) {
  return Inline(context, request, response, &IkHandlers::RegisterRig);
}

grpc::ServerUnaryReactor* IkService::GetRig(
    grpc::CallbackServerContext* context, const grpc::ByteBuffer* request,
    grpc::ByteBuffer* response) {
  return Inline(context, request, response, &IkHandlers::GetRig);
}

grpc::ServerUnaryReactor* IkService::ListRigs(
    grpc::CallbackServerContext* context, const grpc::ByteBuffer* request,
    grpc::ByteBuffer* response) {
  return Inline(context, request, response, &IkHandlers::ListRigs);
}

grpc::ServerUnaryReactor* IkService::DeleteRig(
    grpc::CallbackServerContext* context, const grpc::ByteBuffer* request,
    grpc::ByteBuffer* response) {
  return Inline(context, request, response, &IkHandlers::DeleteRig);
}

grpc::ServerUnaryReactor* IkService::SolveChain(
    grpc::CallbackServerContext* context, const grpc::ByteBuffer* request,
    grpc::ByteBuffer* response) {
  return OnPool<v1::SolveChainRequest, v1::SolveChainResponse>(
      context, request, response,
      [this, context](const v1::SolveChainRequest& in,
                      v1::SolveChainResponse& out) {
        const CallScope scope = ScopeOf(context, pool_);
        return handlers_.SolveChain(in, out, &scope);
      });
}

grpc::ServerUnaryReactor* IkService::StepDynamics(
    grpc::CallbackServerContext* context, const grpc::ByteBuffer* request,
    grpc::ByteBuffer* response) {
  return OnPool(context, request, response, &IkHandlers::StepDynamics);
}

grpc::ServerUnaryReactor* IkService::GroundFeet(
    grpc::CallbackServerContext* context, const grpc::ByteBuffer* request,
    grpc::ByteBuffer* response) {
  return OnPool(context, request, response, &IkHandlers::GroundFeet);
}

grpc::ServerUnaryReactor* IkService::RegisterTerrain(
    grpc::CallbackServerContext* context, const grpc::ByteBuffer* request,
    grpc::ByteBuffer* response) {
  return Inline(context, request, response, &IkHandlers::RegisterTerrain);
}

grpc::ServerUnaryReactor* IkService::ListTerrains(
    grpc::CallbackServerContext* context, const grpc::ByteBuffer* request,
    grpc::ByteBuffer* response) {
  return Inline(context, request, response, &IkHandlers::ListTerrains);
}

grpc::ServerUnaryReactor* IkService::DeleteTerrain(
    grpc::CallbackServerContext* context, const grpc::ByteBuffer* request,
    grpc::ByteBuffer* response) {
  return Inline(context, request, response, &IkHandlers::DeleteTerrain);
}

grpc::ServerUnaryReactor* IkService::Tick(grpc::CallbackServerContext* context,
                                          const grpc::ByteBuffer* request,
                                          grpc::ByteBuffer* response) {
  return OnPool<v1::TickRequest, v1::TickResponse>(
      context, request, response,
      [this, context](const v1::TickRequest& in, v1::TickResponse& out) {
        return handlers_.Tick(in, out, ScopeOf(context, pool_));
      });
}

grpc::ServerBidiReactor<grpc::ByteBuffer, grpc::ByteBuffer>*
IkService::TickStream(grpc::CallbackServerContext* context) {
  return new TickStreamReactor(context, handlers_, pool_, streams_,
                               Authorize(context, Role::kRead, "TickStream"),
                               observers_, observers_want_peer());
}

}  // namespace ik::server
