// Triangle-mesh ground with a BVH for ray queries.
//
// A mesh is a list of vertices (world space, metres, +Y up) and a flat list
// of vertex indices, three per triangle. Create validates everything, then
// builds a BVH (ik/geometry/bvh.h: binned SAH, deterministic); a query reads
// a leaf's triangles through their indices (a copy of each triangle's
// vertices in BVH order would save a little time per ray but cost 72 bytes
// per triangle more, over half of a registered mesh's memory). Triangles are
// two-sided and flat-shaded; winding does not matter.
//
//   ik::TriangleMeshDefinition def;
//   def.vertices = {{0, 0, 0}, {1, 0, 0}, {0, 0, 1}};
//   def.indices = {0, 1, 2};
//   absl::StatusOr<ik::TriangleMesh> mesh = ik::TriangleMesh::Create(def);
//   ik::RayHit hit = mesh->Raycast({0.2, 1.0, 0.2}, {0, -1, 0}, 2.0);
//
// Queries are answered with the watertight test (ik/geometry/ray_triangle.h): a
// ray through an edge or vertex shared by triangles (same vertex index, or same
// vertex values) is never lost. Of several triangles at exactly the same
// distance the lowest triangle index wins, so the answer does not depend on
// the search structure: it equals a brute-force loop over the triangles in
// order. Rays straight up or down (the grounding pass's) test the triangles
// that a grid over XZ lists for their quarter of a cell
// (ik/geometry/vertical_ray_grid.h; about 4 on a terrain mesh); other rays,
// and rays over a cell too crowded to list, walk the BVH.
//
// Immutable after Create; const methods are safe to call from many threads
// at once (share as std::shared_ptr<const TriangleMesh>). Queries allocate
// nothing. Memory (memory_bytes()): about 82 bytes per triangle of a grid
// mesh whose triangles share vertices (vertices 12, indices 12, BVH nodes
// and order about 36, the vertical-ray grid about 22), plus about 190 more
// while Create runs.
#ifndef IK_TRIANGLE_MESH_H_
#define IK_TRIANGLE_MESH_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "ik/base/math.h"
#include "ik/base/pacer.h"
#include "ik/geometry/bvh.h"
#include "ik/geometry/ray.h"
#include "ik/geometry/vertical_ray_grid.h"

namespace ik {

// Size limits the core itself enforces (the server may set lower ones).
inline constexpr int kMaxMeshVertices = 1 << 21;   // 2,097,152
inline constexpr int kMaxMeshTriangles = 1 << 21;  // 2,097,152

// A triangle is degenerate (zero area) when |(b - a) x (c - a)| is at most
// this fraction of its longest edge squared: its height over that edge is
// below ~1e-12 of the edge, i.e. collinear up to rounding.
inline constexpr double kDegenerateTriangleRatio = 1e-12;

// TriangleMesh::PrefetchVertical reads at most this many points.
inline constexpr size_t kMaxPrefetchPoints = 8;

struct TriangleMeshDefinition {
  // World space, metres; each within +-kMaxCoordinate.
  std::vector<Vec3> vertices;
  // Three per triangle, each in [0, vertices.size()).
  std::vector<std::uint32_t> indices;
};

class TriangleMesh {
 public:
  // Validates and builds. Field paths start with `path` (the caller's name
  // for the definition, e.g. "mesh" or "terrain.mesh"):
  //   INVALID_ARGUMENT: "mesh.vertices: empty", "mesh.vertices[3]: not
  //   finite", "mesh.vertices[3]: beyond 1e+09 m", "mesh.indices: empty",
  //   "mesh.indices: 7 values, not a multiple of 3", "mesh.indices[7]: 1200
  //   is out of range [0, 1000)", "mesh.indices[6]: triangle 2 is degenerate
  //   (zero area)";
  //   RESOURCE_EXHAUSTED: more than kMaxMeshVertices vertices or
  //   kMaxMeshTriangles triangles ("mesh.indices: 3000000 triangles, at most
  //   2097152").
  // Errors are checked in that order (sizes first), the first one reported.
  // `pause` is called between pieces of the validation and the build, each
  // of a bounded number of steps (ik/base/pacer.h); it changes nothing of
  // the mesh.
  static absl::StatusOr<TriangleMesh> Create(
      TriangleMeshDefinition definition, absl::string_view path = "mesh",
      absl::FunctionRef<void()> pause = NoPause);

  // The nearest hit within [0, max_distance] (see ik/geometry/ray.h for the
  // fields; kind kMesh, primitive = triangle index). A miss for a ray Ray::Make
  // refuses or an invalid max_distance. Allocates nothing.
  RayHit Raycast(const Vec3& origin, const Vec3& direction,
                 double max_distance) const;
  RayHit Raycast(const Ray& ray, double max_distance) const;

  // Hints that rays straight up or down through `points` (their x and z)
  // will follow: loads what they will read into the cache, a stage at a
  // time for all the points (grid cells, their lists, the triangles'
  // indices, their vertices), so that the waits overlap instead of adding
  // up ray after ray. No effect on any answer; allocates nothing. Up to
  // kMaxPrefetchPoints points (the rest are ignored).
  void PrefetchVertical(absl::Span<const Vec3> points) const;
  // Its first stage alone (the grid cells), which waits for nothing.
  void PrefetchCells(absl::Span<const Vec3> points) const {
    for (const Vec3& point : points) grid_.PrefetchCell(point.x, point.z);
  }

  int vertex_count() const { return static_cast<int>(vertices_.size()); }
  // The most triangles a ray straight down (or up) tests: the longest list
  // of the grid, or every triangle where some cell falls back to the BVH (a
  // bound: the hierarchy may test fewer). For budgeting work.
  int most_triangles_down() const { return most_triangles_down_; }
  int triangle_count() const { return static_cast<int>(indices_.size() / 3); }
  absl::Span<const Vec3> vertices() const { return vertices_; }
  absl::Span<const std::uint32_t> indices() const { return indices_; }
  const Bvh& bvh() const { return bvh_; }
  const VerticalRayGrid& grid() const { return grid_; }
  // The box around every vertex (not padded).
  const Aabb& bounds() const { return bounds_; }
  // Bytes held on the heap: vertices, indices, hierarchy and grid.
  size_t memory_bytes() const {
    return vertices_.capacity() * sizeof(Vec3) +
           indices_.capacity() * sizeof(std::uint32_t) + bvh_.memory_bytes() +
           grid_.memory_bytes();
  }

 private:
  TriangleMesh() = default;

  // Tests `candidates` (triangle indices) against the ray, keeping the
  // nearest hit (ties: the lowest index) in *best_distance, *best_triangle.
  // `axes`: the ray's watertight-test axes (ik/geometry/ray_triangle.h).
  // `quarter`: for grid entries, the ray's quarter bit (VerticalRayGrid::
  // Find); 0 for BVH slots.
  template <typename Axes>
  void TestTriangles(const Ray& ray, const Axes& axes,
                     const std::int32_t* candidates, int count,
                     std::int32_t quarter, double* best_distance,
                     int* best_triangle) const;

  std::vector<Vec3> vertices_;
  std::vector<std::uint32_t> indices_;
  Bvh bvh_;
  VerticalRayGrid grid_;
  int most_triangles_down_ = 0;
  Aabb bounds_;
};

}  // namespace ik

#endif  // IK_TRIANGLE_MESH_H_
