// The ground a request stands on: planes, heightfields and triangle meshes,
// queried together by ray (nearest hit wins). This is what the grounding
// pass casts its leg and toe rays against.
//
// The three kinds (each in its own header, each validated by its own
// Create):
//   - ik::GroundPlane (ik/ground/ground_plane.h): infinite or bounded planes,
//     sent inline with a request;
//   - ik::Heightfield (ik/ground/heightfield.h): a grid of heights, two
//   triangles
//     per cell;
//   - ik::TriangleMesh (ik/ground/triangle_mesh.h): triangles with a BVH.
// Heightfields and meshes are built once and shared between request
// handlers as std::shared_ptr<const ...>; a Ground is a non-owning view of
// whatever one request uses:
//
//   std::shared_ptr<const ik::TriangleMesh> stairs = registry.Find(...);
//   const ik::TriangleMesh* meshes[] = {stairs.get()};
//   ik::Ground ground;
//   ground.planes = request_planes;  // std::vector<ik::GroundPlane>
//   ground.meshes = meshes;
//   if (absl::Status status = ground.Validate(); !status.ok()) return status;
//   ik::RayHit hit = ground.Raycast(hip_world, {0, -1, 0}, leg_ray_length);
//
// Units: metres; right-handed, +Y up. The caller keeps everything the view
// points at alive and unchanged while it is used. Cheap to copy (three
// spans); every query is const, allocation-free and safe from many threads
// at once. Deterministic: the same ground and ray give the same bits.
#ifndef IK_TERRAIN_H_
#define IK_TERRAIN_H_

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "ik/base/math.h"
#include "ik/geometry/ray.h"
#include "ik/ground/ground_plane.h"
#include "ik/ground/heightfield.h"
#include "ik/ground/triangle_mesh.h"

namespace ik {

struct Ground {
  // Each may be empty; an empty Ground has no ground (every ray misses).
  absl::Span<const GroundPlane> planes;
  // Non-null.
  absl::Span<const Heightfield* const> heightfields;
  // Non-null.
  absl::Span<const TriangleMesh* const> meshes;

  // INVALID_ARGUMENT for a null heightfield or mesh ("heightfields[1]:
  // null", "meshes[0]: null"; "<path>.meshes[0]: null" when the ground sits
  // at `path` in the caller's input).
  absl::Status Validate(absl::string_view path = "") const;

  // The nearest hit within [0, max_distance] over every plane, heightfield
  // and mesh, with RayHit::kind and RayHit::source saying which. Of hits at
  // exactly the same distance the first wins, in the order planes,
  // heightfields, meshes, each by index. A miss for a ray Ray::Make refuses
  // or an invalid max_distance (ValidateRay names the field). The ground
  // must be valid (Validate); null pointers are skipped, not dereferenced.
  RayHit Raycast(const Vec3& origin, const Vec3& direction,
                 double max_distance) const;
  RayHit Raycast(const Ray& ray, double max_distance) const;

  // Hints that rays straight up or down through `points` (their x and z)
  // will follow, in two calls with the same points: PrefetchVerticalFirst
  // starts the loads that wait for nothing (the heightfields' heights, the
  // meshes' grid cells); PrefetchVerticalRest, after whatever work the
  // caller has meanwhile, asks for what the cells list (each mesh's
  // TriangleMesh::PrefetchVertical), for all the points at once, so that
  // the waits overlap instead of adding up ray after ray. No effect on any
  // answer; allocate nothing.
  void PrefetchVerticalFirst(absl::Span<const Vec3> points) const;
  void PrefetchVerticalRest(absl::Span<const Vec3> points) const;
};

}  // namespace ik

#endif  // IK_TERRAIN_H_
