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

namespace ik::server {

class IkHandlers {
 public:
  // `registry` must outlive the handlers.
  IkHandlers(RigRegistry& registry, const ServiceLimits& limits)
      : registry_(registry), limits_(limits) {}

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

 private:
  RigRegistry& registry_;
  const ServiceLimits limits_;
};

}  // namespace ik::server

#endif  // IK_SERVER_HANDLERS_H_
