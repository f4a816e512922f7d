// Loading the rig directory at start-up: every *.json file in it (protobuf's
// JSON mapping of ik.v1.Rig), in file-name order.
#ifndef IK_SERVER_RIG_LOADER_H_
#define IK_SERVER_RIG_LOADER_H_

#include <string>

#include "absl/status/statusor.h"
#include "server/rig_registry.h"
#include "server/service_limits.h"

namespace ik::server {

// Registers every rig file in `directory`. Every file is parsed and
// validated before any is registered; the first bad file fails the load with
// a message that starts with the file's path and names the field. Two files
// defining the same rig name are an error (ALREADY_EXISTS). Returns the number
// of rigs registered.
absl::StatusOr<int> LoadRigDirectory(const std::string& directory,
                                     const ServiceLimits& limits,
                                     RigRegistry& registry);

}  // namespace ik::server

#endif  // IK_SERVER_RIG_LOADER_H_
