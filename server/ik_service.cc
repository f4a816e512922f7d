#include "server/ik_service.h"

#include <chrono>
#include <optional>
#include <string>
#include <utility>

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

// The answer when the pool's queue is full.
absl::Status Busy() {
  return absl::ResourceExhaustedError(
      "ikd is busy: its solver queue is full (ikd --max_queued_calls); retry "
      "later");
}

grpc::ServerUnaryReactor* FinishWith(grpc::CallbackServerContext* context,
                                     const absl::Status& status) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  reactor->Finish(ToGrpcStatus(status));
  return reactor;
}

// One TickStream: read a tick, run it on the pool, write its answer, read
// the next. At most one operation is outstanding, so Finish (after the
// client's half-close or a failed write) never races a tick in flight.
class TickStreamReactor final
    : public grpc::ServerBidiReactor<v1::TickRequest, v1::TickResponse> {
 public:
  TickStreamReactor(grpc::CallbackServerContext* context, IkHandlers& handlers,
                    SolverPool& pool)
      : handlers_(handlers),
        scope_(ScopeOf(context, pool)),
        arena_(CallArenaOptions()) {
    ReadNext();
  }

  void OnReadDone(bool ok) override {
    if (!ok) {  // the client closed its side (or the call ended)
      Finish(grpc::Status::OK);
      return;
    }
    const bool posted = scope_.pool->Post(scope_.client, [this] {
      Answer(handlers_.Tick(*request_, *response_, scope_));
    });
    if (!posted) Answer(Busy());
  }

  void OnWriteDone(bool ok) override {
    if (!ok) {
      Finish(grpc::Status(grpc::StatusCode::CANCELLED,
                          "the answer could not be written"));
      return;
    }
    ReadNext();
  }

  void OnDone() override { delete this; }

 private:
  // Each tick's request and answer on the stream's arena, emptied first:
  // its blocks are reused tick after tick.
  void ReadNext() {
    arena_.Reset();
    request_ = google::protobuf::Arena::CreateMessage<v1::TickRequest>(&arena_);
    response_ =
        google::protobuf::Arena::CreateMessage<v1::TickResponse>(&arena_);
    StartRead(request_);
  }

  // Writes the tick's answer, or only `status` when the tick failed as a
  // whole.
  void Answer(const absl::Status& status) {
    if (!status.ok()) {
      response_->Clear();
      response_->set_sequence(request_->sequence());
      StatusToProto(status, *response_->mutable_status());
    }
    StartWrite(response_);
  }

  IkHandlers& handlers_;
  const CallScope scope_;
  google::protobuf::Arena arena_;
  v1::TickRequest* request_ = nullptr;
  v1::TickResponse* response_ = nullptr;
};

}  // namespace

template <typename Handler>
grpc::ServerUnaryReactor* IkService::OnPool(
    grpc::CallbackServerContext* context, Handler handler) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  const bool posted = pool_.Post(
      context->peer(),
      [context, reactor, handler = std::move(handler)]() mutable {
        absl::Status stopped = Stopped(*context);
        reactor->Finish(ToGrpcStatus(stopped.ok() ? handler() : stopped));
      });
  if (!posted) reactor->Finish(ToGrpcStatus(Busy()));
  return reactor;
}

IkService::IkService(RigRegistry& rigs, TerrainRegistry& terrains,
                     const ServiceLimits& limits, SolverPool& pool)
    : handlers_(rigs, terrains, limits), pool_(pool) {
  SetMessageAllocatorFor_SolveChain(&solve_chain_allocator_);
  SetMessageAllocatorFor_GroundFeet(&ground_feet_allocator_);
  SetMessageAllocatorFor_StepDynamics(&step_dynamics_allocator_);
  SetMessageAllocatorFor_Tick(&tick_allocator_);
}

grpc::Status ToGrpcStatus(const absl::Status& status) {
  if (status.ok()) return grpc::Status::OK;
  const auto code = static_cast<grpc::StatusCode>(status.code());
  std::string message(status.message());
  std::optional<std::string> field = FieldPathOf(status);
  if (!field.has_value()) return grpc::Status(code, std::move(message));
  google::rpc::BadRequest bad_request;
  google::rpc::BadRequest::FieldViolation* violation =
      bad_request.add_field_violations();
  violation->set_field(*std::move(field));
  violation->set_description(std::string(FieldDescriptionOf(status)));
  google::rpc::Status details;
  details.set_code(static_cast<int>(code));
  details.set_message(message);
  details.add_details()->PackFrom(bad_request);
  return grpc::Status(code, std::move(message), details.SerializeAsString());
}

grpc::ServerUnaryReactor* IkService::RegisterRig(
    grpc::CallbackServerContext* context, const v1::RegisterRigRequest* request,
    v1::RegisterRigResponse* response) {
  return FinishWith(context, handlers_.RegisterRig(*request, *response));
}

grpc::ServerUnaryReactor* IkService::GetRig(
    grpc::CallbackServerContext* context, const v1::GetRigRequest* request,
    v1::GetRigResponse* response) {
  return FinishWith(context, handlers_.GetRig(*request, *response));
}

grpc::ServerUnaryReactor* IkService::ListRigs(
    grpc::CallbackServerContext* context, const v1::ListRigsRequest* request,
    v1::ListRigsResponse* response) {
  return FinishWith(context, handlers_.ListRigs(*request, *response));
}

grpc::ServerUnaryReactor* IkService::DeleteRig(
    grpc::CallbackServerContext* context, const v1::DeleteRigRequest* request,
    v1::DeleteRigResponse* response) {
  return FinishWith(context, handlers_.DeleteRig(*request, *response));
}

grpc::ServerUnaryReactor* IkService::SolveChain(
    grpc::CallbackServerContext* context, const v1::SolveChainRequest* request,
    v1::SolveChainResponse* response) {
  return OnPool(context, [this, context, request, response] {
    const CallScope scope = ScopeOf(context, pool_);
    return handlers_.SolveChain(*request, *response, &scope);
  });
}

grpc::ServerUnaryReactor* IkService::StepDynamics(
    grpc::CallbackServerContext* context,
    const v1::StepDynamicsRequest* request,
    v1::StepDynamicsResponse* response) {
  return OnPool(context, [this, request, response] {
    return handlers_.StepDynamics(*request, *response);
  });
}

grpc::ServerUnaryReactor* IkService::GroundFeet(
    grpc::CallbackServerContext* context, const v1::GroundFeetRequest* request,
    v1::GroundFeetResponse* response) {
  return OnPool(context, [this, request, response] {
    return handlers_.GroundFeet(*request, *response);
  });
}

grpc::ServerUnaryReactor* IkService::RegisterTerrain(
    grpc::CallbackServerContext* context,
    const v1::RegisterTerrainRequest* request,
    v1::RegisterTerrainResponse* response) {
  return FinishWith(context, handlers_.RegisterTerrain(*request, *response));
}

grpc::ServerUnaryReactor* IkService::ListTerrains(
    grpc::CallbackServerContext* context,
    const v1::ListTerrainsRequest* request,
    v1::ListTerrainsResponse* response) {
  return FinishWith(context, handlers_.ListTerrains(*request, *response));
}

grpc::ServerUnaryReactor* IkService::DeleteTerrain(
    grpc::CallbackServerContext* context,
    const v1::DeleteTerrainRequest* request,
    v1::DeleteTerrainResponse* response) {
  return FinishWith(context, handlers_.DeleteTerrain(*request, *response));
}

grpc::ServerUnaryReactor* IkService::Tick(grpc::CallbackServerContext* context,
                                          const v1::TickRequest* request,
                                          v1::TickResponse* response) {
  return OnPool(context, [this, context, request, response] {
    return handlers_.Tick(*request, *response, ScopeOf(context, pool_));
  });
}

grpc::ServerBidiReactor<v1::TickRequest, v1::TickResponse>*
IkService::TickStream(grpc::CallbackServerContext* context) {
  return new TickStreamReactor(context, handlers_, pool_);
}

}  // namespace ik::server
