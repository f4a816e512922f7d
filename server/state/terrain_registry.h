// The terrain registry: named, immutable heightfields and triangle meshes
// (with their BVH) that GroundFeet requests name, shared like the rigs
// (server/state/registry.h). Thread-safe.
#ifndef IK_SERVER_STATE_TERRAIN_REGISTRY_H_
#define IK_SERVER_STATE_TERRAIN_REGISTRY_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "ik/base/pacer.h"
#include "ik/geometry/aabb.h"
#include "ik/ground/heightfield.h"
#include "ik/ground/triangle_mesh.h"
#include "ik/v1/ik.pb.h"
#include "service_limits.h"
#include "state/registry.h"

namespace ik::server {

// One registered terrain: exactly one of `heightfield` and `mesh` is set.
// The definition is kept only for a server that records (a recording stores
// the terrains its calls used; a large mesh is then held twice).
struct TerrainEntry {
  std::string terrain_name;
  std::string revision;
  std::optional<Heightfield> heightfield;
  std::optional<TriangleMesh> mesh;
  std::shared_ptr<const v1::Terrain> definition;  // with keep_definitions
  // Memory held: the heights, or the mesh with its hierarchy.
  std::int64_t bytes = 0;

  const std::string& name() const { return terrain_name; }
  v1::TerrainKind kind() const;
  int vertex_count() const;
  int triangle_count() const;
  const Aabb& bounds() const;
};

// Validates `terrain` (name, shape, size limits) and builds it, BVH
// included, outside any lock. Errors name "<path>.<field>" (`path`:
// "terrain" in a request, "" for a file). A mesh's validation and build
// call `pause` between pieces of bounded work (ik/base/pacer.h).
absl::StatusOr<std::shared_ptr<const TerrainEntry>> BuildTerrainEntry(
    const v1::Terrain& terrain, const ServiceLimits& limits,
    absl::string_view path, absl::FunctionRef<void()> pause = NoPause);

// BuildTerrainEntry's size limits alone (--max_mesh_triangles,
// --max_heightfield_samples), checked before anything is estimated or
// built: a terrain over its limit is refused for that limit, with its own
// field path, whatever else it would also exceed.
absl::Status TerrainSizeWithin(const v1::Terrain& terrain,
                               const ServiceLimits& limits,
                               absl::string_view path);

class TerrainRegistry : public Registry<TerrainEntry> {
 public:
  explicit TerrainRegistry(int max_terrains, RegistryBudget* budget = nullptr)
      : Registry("terrain", max_terrains, budget) {}
};

}  // namespace ik::server

#endif  // IK_SERVER_STATE_TERRAIN_REGISTRY_H_
