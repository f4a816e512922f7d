// Loading the rig and terrain directories at start-up: every *.json file in
// them (protobuf's JSON mapping of ik.v1.Rig / ik.v1.Terrain), in file-name
// order. Every file is parsed and validated before any is registered; the
// first bad file fails the load with a message that starts with the file's
// path and names the field. Two files defining the same name are an error
// (ALREADY_EXISTS). Each returns the number of entries registered.
#ifndef IK_SERVER_STATE_DIRECTORY_LOADER_H_
#define IK_SERVER_STATE_DIRECTORY_LOADER_H_

#include <string>

#include "absl/status/statusor.h"
#include "service_limits.h"
#include "state/rig_registry.h"
#include "state/terrain_registry.h"

namespace ik::server {

absl::StatusOr<int> LoadRigDirectory(const std::string& directory,
                                     const ServiceLimits& limits,
                                     RigRegistry& registry);

absl::StatusOr<int> LoadTerrainDirectory(const std::string& directory,
                                         const ServiceLimits& limits,
                                         TerrainRegistry& registry);

}  // namespace ik::server

#endif  // IK_SERVER_STATE_DIRECTORY_LOADER_H_
