// The logic of each IkService method, free of gRPC: convert the request
// (validating, with field paths), call the core, convert the answer. The
// callback service in ik_service.h only wires these to reactors.
//
// Thread-safe: any number of calls may run at once.
#ifndef IK_SERVER_HANDLERS_H_
#define IK_SERVER_HANDLERS_H_

#include "absl/status/status.h"
#include "ik/v1/ik.pb.h"
#include "server/rig_registry.h"
#include "server/service_limits.h"
#include "server/terrain_registry.h"

namespace ik::server {

class IkHandlers {
 public:
  // The registries must outlive the handlers.
  IkHandlers(RigRegistry& registry, TerrainRegistry& terrains,
             const ServiceLimits& limits)
      : registry_(registry), terrains_(terrains), limits_(limits) {}

  absl::Status RegisterRig(const v1::RegisterRigRequest& request,
                           v1::RegisterRigResponse& response);
  absl::Status GetRig(const v1::GetRigRequest& request,
                      v1::GetRigResponse& response);
  absl::Status ListRigs(const v1::ListRigsRequest& request,
                        v1::ListRigsResponse& response);
  absl::Status DeleteRig(const v1::DeleteRigRequest& request,
                         v1::DeleteRigResponse& response);
  absl::Status SolveChain(const v1::SolveChainRequest& request,
                          v1::SolveChainResponse& response);
  // In dynamics_handler.cc.
  absl::Status StepDynamics(const v1::StepDynamicsRequest& request,
                            v1::StepDynamicsResponse& response);
  absl::Status RegisterTerrain(const v1::RegisterTerrainRequest& request,
                               v1::RegisterTerrainResponse& response);
  absl::Status ListTerrains(const v1::ListTerrainsRequest& request,
                            v1::ListTerrainsResponse& response);
  absl::Status DeleteTerrain(const v1::DeleteTerrainRequest& request,
                             v1::DeleteTerrainResponse& response);
  // In ground_handler.cc.
  absl::Status GroundFeet(const v1::GroundFeetRequest& request,
                          v1::GroundFeetResponse& response);

 private:
  // The rig a solve names (`rig` required), pinned to `revision` if set.
  absl::StatusOr<std::shared_ptr<const RigEntry>> PinnedRig(
      absl::string_view name, absl::string_view revision) const;

  RigRegistry& registry_;
  TerrainRegistry& terrains_;
  const ServiceLimits limits_;
};

}  // namespace ik::server

#endif  // IK_SERVER_HANDLERS_H_
