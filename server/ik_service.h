// IkService on gRPC's callback API: each method runs its handler inline on
// the callback thread (solves are short and never block) and finishes the
// default reactor with the handler's status.
#ifndef IK_SERVER_IK_SERVICE_H_
#define IK_SERVER_IK_SERVICE_H_

#include <grpcpp/grpcpp.h>

#include "absl/status/status.h"
#include "ik/v1/ik.grpc.pb.h"
#include "server/handlers.h"

namespace ik::server {

// absl::Status -> grpc::Status; the codes share their numbering. A status
// that names its field (ik/base/field_error.h) also carries, in the status
// details (gRPC's richer error model, the `grpc-status-details-bin` trailer), a
// google.rpc.Status with the same code and message whose details hold one
// google.rpc.BadRequest with a field violation {field: the path,
// description: the message without the path}.
grpc::Status ToGrpcStatus(const absl::Status& status);

class IkService final : public v1::IkService::CallbackService {
 public:
  // The registries must outlive the service.
  IkService(RigRegistry& rigs, TerrainRegistry& terrains,
            const ServiceLimits& limits)
      : handlers_(rigs, terrains, limits) {}

  grpc::ServerUnaryReactor* RegisterRig(
      grpc::CallbackServerContext* context,
      const v1::RegisterRigRequest* request,
      v1::RegisterRigResponse* response) override;
  grpc::ServerUnaryReactor* GetRig(grpc::CallbackServerContext* context,
                                   const v1::GetRigRequest* request,
                                   v1::GetRigResponse* response) override;
  grpc::ServerUnaryReactor* ListRigs(grpc::CallbackServerContext* context,
                                     const v1::ListRigsRequest* request,
                                     v1::ListRigsResponse* response) override;
  grpc::ServerUnaryReactor* DeleteRig(grpc::CallbackServerContext* context,
                                      const v1::DeleteRigRequest* request,
                                      v1::DeleteRigResponse* response) override;
  grpc::ServerUnaryReactor* SolveChain(
      grpc::CallbackServerContext* context,
      const v1::SolveChainRequest* request,
      v1::SolveChainResponse* response) override;
  grpc::ServerUnaryReactor* StepDynamics(
      grpc::CallbackServerContext* context,
      const v1::StepDynamicsRequest* request,
      v1::StepDynamicsResponse* response) override;
  grpc::ServerUnaryReactor* GroundFeet(
      grpc::CallbackServerContext* context,
      const v1::GroundFeetRequest* request,
      v1::GroundFeetResponse* response) override;
  grpc::ServerUnaryReactor* RegisterTerrain(
      grpc::CallbackServerContext* context,
      const v1::RegisterTerrainRequest* request,
      v1::RegisterTerrainResponse* response) override;
  grpc::ServerUnaryReactor* ListTerrains(
      grpc::CallbackServerContext* context,
      const v1::ListTerrainsRequest* request,
      v1::ListTerrainsResponse* response) override;
  grpc::ServerUnaryReactor* DeleteTerrain(
      grpc::CallbackServerContext* context,
      const v1::DeleteTerrainRequest* request,
      v1::DeleteTerrainResponse* response) override;

 private:
  IkHandlers handlers_;
};

}  // namespace ik::server

#endif  // IK_SERVER_IK_SERVICE_H_
