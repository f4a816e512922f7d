#include "rpc/ik_service.h"

#include <memory>
#include <string>
#include <type_traits>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"
#include "absl/synchronization/notification.h"
#include "handlers/work.h"
#include "rpc/call_scope.h"
#include "rpc/raw_call.h"

namespace ik::server {
namespace {

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
  absl::string_view name = ApiDescriptor<Request>()->name();
  absl::ConsumeSuffix(&name, "Request");
  return name;
}

// Requests of at most this many bytes are parsed and have their work
// counted on the thread they arrived on (a few microseconds at this size);
// larger ones are parsed on the pool, in their caller's turn, and run
// there. Bytes only bound what gRPC's threads spend reading a request: a
// call runs inline only when its work is at most kInlineWork.
constexpr size_t kCountedRequestBytes = 4096;

}  // namespace

template <typename Request, typename Response>
CallScope IkService::ScopeOf(grpc::CallbackServerContext* context,
                             UnaryCall<Request, Response>& call) {
  CallScope scope = server::ScopeOf(context, pool_, call.caller());
  scope.uses = call.uses();
  return scope;
}

template <typename Request>
bool IkService::RunsInline(const Request& request) const {
  if constexpr (std::is_same_v<Request, v1::SolveChainRequest> ||
                std::is_same_v<Request, v1::GroundFeetRequest> ||
                std::is_same_v<Request, v1::StepDynamicsRequest>) {
    return handlers_.Work(request) <= kInlineWork;
  } else {
    return false;  // registrations and ticks always take the pool
  }
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
                      UnaryCall<Request, Response>* call, bool parse) {
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
  std::string caller = callers_.Of(*context);
  if (absl::Status admitted = unread_.Admit(caller); !admitted.ok()) {
    call->Answer(std::move(admitted));
    gate_.Leave();
    return false;
  }
  call->HoldAnswerIn(&unread_, std::move(caller));
  if (recorder_ != nullptr && recorder_->Records(MethodName<Request>()) &&
      recorder_->SampleCall()) {
    call->RecordTo(recorder_, MethodName<Request>(), request);
  }
  if (parse && !call->Parse(request)) {
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
  // A large request is parsed on the pool, in its caller's turn.
  const bool counted = request->Length() <= kCountedRequestBytes;
  if (!Admit(context, request, call, /*parse=*/counted)) return call;
  if (counted && RunsInline(call->request())) {
    inline_calls_.fetch_add(1, std::memory_order_relaxed);
    absl::Status answered =
        handler(call->request(), call->response(), ScopeOf(context, *call));
    call->Answer(std::move(answered));
    gate_.Leave();
    return call;
  }
  auto parked = std::make_shared<absl::Notification>();
  const SolverPool::Refused refused = pool_.PostRequest(
      call->caller(), static_cast<std::int64_t>(request->Length()),
      [this, context, request, counted, call, handler = std::move(handler)] {
        call->Started();
        if (!counted && !call->Parse(request)) {
          gate_.Leave();
          return;
        }
        // Its caller's unread answers are checked again as it starts, so
        // answers are built only while they are within their bounds.
        absl::Status runs = Stopped(*context);
        if (runs.ok()) runs = unread_.Admit(call->caller());
        call->Answer(runs.ok() ? handler(call->request(), call->response(),
                                         ScopeOf(context, *call))
                               : runs);
        gate_.Leave();
      },
      [this, call, parked](SolverPool::Refused refused) {
        parked->WaitForNotification();
        call->Answer(Busy(refused));
        gate_.Leave();
      });
  if (refused != SolverPool::Refused::kNone) {
    // Answered when the pool has made room (SolverPool::PostRequest), its
    // request freed meanwhile: gRPC only destroys it when the call ends. A
    // refusal for load is not recorded: it says nothing of the request.
    const_cast<grpc::ByteBuffer*>(request)->Clear();
    call->RecordTo(nullptr, {}, nullptr);
  }
  parked->Notify();  // the refusal may answer from here on
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
      [this, method](const Request& in, Response& out, const CallScope&) {
        return (handlers_.*method)(in, out);
      });
}

void IkService::Drain() {
  gate_.Close();
  streams_.Drain();
}

IkService::IkService(RigRegistry& rigs, TerrainRegistry& terrains,
                     const ServiceLimits& limits, SolverPool& pool,
                     const StateStore* store, const AccessTokens* tokens,
                     std::vector<std::string> trusted_proxies)
    : handlers_(rigs, terrains, limits, store),
      pool_(pool),
      tokens_(tokens),
      callers_(tokens, std::move(trusted_proxies)),
      unread_(limits.max_unread_answer_bytes_per_caller,
              limits.max_unread_answer_bytes),
      streams_(gate_) {}

grpc::ServerUnaryReactor* IkService::RegisterRig(
    grpc::CallbackServerContext* context, const grpc::ByteBuffer* request,
    grpc::ByteBuffer* response) {
  return OnPool(context, request, response, &IkHandlers::RegisterRig);
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
      [this](const v1::SolveChainRequest& in, v1::SolveChainResponse& out,
             const CallScope& scope) {
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
  return OnPool<v1::RegisterTerrainRequest, v1::RegisterTerrainResponse>(
      context, request, response,
      [this](const v1::RegisterTerrainRequest& in,
             v1::RegisterTerrainResponse& out, const CallScope& scope) {
        return handlers_.RegisterTerrain(in, out, &scope);
      });
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
  return OnPool<wire::TickRequestBytes, wire::TickResponseBytes>(
      context, request, response,
      [this](const wire::TickRequestBytes& in, wire::TickResponseBytes& out,
             const CallScope& scope) {
        return handlers_.Tick(in, out, scope);
      });
}

grpc::ServerBidiReactor<grpc::ByteBuffer, grpc::ByteBuffer>*
IkService::TickStream(grpc::CallbackServerContext* context) {
  return StartTickStream(context, handlers_, pool_, streams_,
                         Authorize(context, Role::kRead, "TickStream"),
                         callers_.Of(*context), unread_, observers_,
                         observers_want_peer(), recorder_);
}

}  // namespace ik::server
