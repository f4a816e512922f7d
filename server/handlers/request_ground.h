// The ground of one request (GroundFeet's `ground`, a tick's shared ground or
// a tick character's own), converted and owned for the call.
#ifndef IK_SERVER_HANDLERS_REQUEST_GROUND_H_
#define IK_SERVER_HANDLERS_REQUEST_GROUND_H_

#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "ik/ground/grounding.h"
#include "ik/v1/ik.pb.h"
#include "service_limits.h"
#include "state/terrain_registry.h"

namespace ik::server {

// Inline planes and patches, and the registered terrains pinned (a terrain
// deleted or replaced meanwhile stays alive until the call ends).
class RequestGround {
 public:
  // Converts `ground`, which sits at `path` in the request ("ground",
  // "shared_ground"): errors name "<path>.planes[2]" and so on.
  absl::Status Build(const v1::Ground& ground, const TerrainRegistry& terrains,
                     const ServiceLimits& limits, absl::string_view path);

  Ground view() const {
    Ground ground;
    ground.planes = planes_;
    ground.heightfields = heightfields_;
    ground.meshes = meshes_;
    return ground;
  }

  const std::vector<std::shared_ptr<const TerrainEntry>>& terrains() const {
    return pinned_;
  }
  // The terrains, moved out: after the ground's last use.
  std::vector<std::shared_ptr<const TerrainEntry>> TakeTerrains() {
    return std::move(pinned_);
  }

 private:
  std::vector<GroundPlane> planes_;
  std::vector<Heightfield> patches_;
  std::vector<std::shared_ptr<const TerrainEntry>> pinned_;
  std::vector<const Heightfield*> heightfields_;
  std::vector<const TriangleMesh*> meshes_;
};

}  // namespace ik::server

#endif  // IK_SERVER_HANDLERS_REQUEST_GROUND_H_
