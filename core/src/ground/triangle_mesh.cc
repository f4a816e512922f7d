#include "ik/ground/triangle_mesh.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "ik/base/pacer.h"
#include "ik/base/validate.h"
#include "ik/geometry/aabb.h"
#include "ik/geometry/bvh.h"
#include "ik/geometry/ray_triangle.h"
#include "ik/geometry/vertical_ray_grid.h"

namespace ik {
namespace {

bool IsDegenerate(const Vec3& a, const Vec3& b, const Vec3& c) {
  const Vec3 ab = b - a;
  const Vec3 ac = c - a;
  const Vec3 bc = c - b;
  const double longest_squared =
      std::max(glm::dot(ab, ab), std::max(glm::dot(ac, ac), glm::dot(bc, bc)));
  const double double_area = glm::length(glm::cross(ab, ac));
  // `!(>)`: a zero-length longest edge (all three vertices equal) is
  // degenerate too.
  return !(double_area > kDegenerateTriangleRatio * longest_squared);
}

absl::Status Validate(const TriangleMeshDefinition& definition,
                      absl::string_view path, Pacer& pacer) {
  const std::vector<Vec3>& vertices = definition.vertices;
  const std::vector<std::uint32_t>& indices = definition.indices;
  if (vertices.empty()) return InvalidField(path, "vertices", "empty");
  if (vertices.size() > static_cast<size_t>(kMaxMeshVertices)) {
    return absl::ResourceExhaustedError(
        absl::StrCat(path, ".vertices: ", vertices.size(),
                     " vertices, at most ", kMaxMeshVertices));
  }
  if (indices.empty()) return InvalidField(path, "indices", "empty");
  if (indices.size() % 3 != 0) {
    return InvalidField(
        path, "indices",
        absl::StrCat(indices.size(), " values, not a multiple of 3"));
  }
  if (indices.size() / 3 > static_cast<size_t>(kMaxMeshTriangles)) {
    return absl::ResourceExhaustedError(
        absl::StrCat(path, ".indices: ", indices.size() / 3,
                     " triangles, at most ", kMaxMeshTriangles));
  }
  for (size_t i = 0; i < vertices.size(); ++i) {
    pacer.Step();
    if (IsWithinRange(vertices[i])) continue;
    return InvalidField(path, absl::StrCat("vertices[", i, "]"),
                        IsFinite(vertices[i])
                            ? absl::StrCat("beyond ", kMaxCoordinate, " m")
                            : std::string("not finite"));
  }
  for (size_t i = 0; i < indices.size(); ++i) {
    pacer.Step();
    if (indices[i] < vertices.size()) continue;
    return InvalidField(path, absl::StrCat("indices[", i, "]"),
                        absl::StrCat(indices[i], " is out of range [0, ",
                                     vertices.size(), ")"));
  }
  for (size_t i = 0; i < indices.size(); i += 3) {
    pacer.Step(3);
    if (!IsDegenerate(vertices[indices[i]], vertices[indices[i + 1]],
                      vertices[indices[i + 2]])) {
      continue;
    }
    return InvalidField(
        path, absl::StrCat("indices[", i, "]"),
        absl::StrCat("triangle ", i / 3, " (vertices ", indices[i], ", ",
                     indices[i + 1], ", ", indices[i + 2],
                     ") is degenerate (zero area)"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<TriangleMesh> TriangleMesh::Create(
    TriangleMeshDefinition definition, absl::string_view path,
    absl::FunctionRef<void()> pause) {
  Pacer pacer(pause);
  if (absl::Status status = Validate(definition, path, pacer); !status.ok()) {
    return status;
  }
  TriangleMesh mesh;
  mesh.vertices_ = std::move(definition.vertices);
  mesh.indices_ = std::move(definition.indices);
  for (const Vec3& vertex : mesh.vertices_) mesh.bounds_.Extend(vertex);

  const int triangle_count = mesh.triangle_count();
  std::vector<Aabb> boxes(triangle_count);
  for (int t = 0; t < triangle_count; ++t) {
    pacer.Step();
    for (int k = 0; k < 3; ++k) {
      boxes[t].Extend(mesh.vertices_[mesh.indices_[3 * t + k]]);
    }
  }
  mesh.bvh_ = Bvh::Build(boxes, pause);
  mesh.grid_ = VerticalRayGrid::Build(boxes, pause);
  const int longest = mesh.grid_.LongestList();
  mesh.most_triangles_down_ = longest >= 0 ? longest : mesh.triangle_count();
  return mesh;
}

RayHit TriangleMesh::Raycast(const Vec3& origin, const Vec3& direction,
                             double max_distance) const {
  const std::optional<Ray> ray = Ray::Make(origin, direction);
  if (!ray.has_value()) return RayHit();
  return Raycast(*ray, max_distance);
}

void TriangleMesh::PrefetchVertical(absl::Span<const Vec3> points) const {
  if (grid_.empty()) return;
  const size_t count = std::min(points.size(), kMaxPrefetchPoints);
  for (size_t i = 0; i < count; ++i) {
    grid_.PrefetchCell(points[i].x, points[i].z);
  }
  absl::Span<const std::int32_t> lists[kMaxPrefetchPoints];
  std::int32_t quarters[kMaxPrefetchPoints];
  for (size_t i = 0; i < count; ++i) {
    if (grid_.Find(points[i].x, points[i].z, &lists[i], &quarters[i]) !=
            VerticalRayGrid::Lookup::kListed ||
        lists[i].empty()) {
      lists[i] = {};
      continue;
    }
    __builtin_prefetch(lists[i].data());
    __builtin_prefetch(lists[i].data() + lists[i].size() - 1);
  }
  for (size_t i = 0; i < count; ++i) {
    for (const std::int32_t entry : lists[i]) {
      if ((entry & quarters[i]) == 0) continue;
      __builtin_prefetch(
          &indices_[3 * static_cast<size_t>(entry & kGridIndexMask)]);
    }
  }
  for (size_t i = 0; i < count; ++i) {
    for (const std::int32_t entry : lists[i]) {
      if ((entry & quarters[i]) == 0) continue;
      const std::uint32_t* corners =
          &indices_[3 * static_cast<size_t>(entry & kGridIndexMask)];
      __builtin_prefetch(&vertices_[corners[0]]);
      __builtin_prefetch(&vertices_[corners[1]]);
      __builtin_prefetch(&vertices_[corners[2]]);
    }
  }
}

template <typename Axes>
void TriangleMesh::TestTriangles(const Ray& ray, const Axes& axes,
                                 const std::int32_t* candidates, int count,
                                 std::int32_t quarter, double* best_distance,
                                 int* best_triangle) const {
  for (int i = 0; i < count; ++i) {
    // A grid entry carries quarter bits above the index (a BVH slot none):
    // entries without the ray's quarter cannot be hit.
    const std::int32_t entry = candidates[i];
    if (quarter != 0 && (entry & quarter) == 0) continue;
    const int index = entry & kGridIndexMask;
    const std::uint32_t* triangle = &indices_[3 * index];
    double distance;
    if (!IntersectTriangleWithAxes(
            ray, axes, vertices_[triangle[0]], vertices_[triangle[1]],
            vertices_[triangle[2]], *best_distance, &distance)) {
      continue;
    }
    // IntersectTriangle guarantees distance <= *best_distance.
    if (*best_triangle < 0 || distance < *best_distance ||
        (distance == *best_distance && index < *best_triangle)) {
      *best_distance = distance;
      *best_triangle = index;
    }
  }
}

RayHit TriangleMesh::Raycast(const Ray& ray, double max_distance) const {
  if (!IsValidMaxDistance(max_distance)) return RayHit();
  double best_distance = max_distance;
  int best_triangle = -1;
  // A vertical ray's candidates are the triangles its grid cell lists (a
  // superset of those whose padded box it passes through, which are all it
  // can hit): the same nearest hit as the BVH's, in one lookup.
  VerticalRayGrid::Lookup lookup = VerticalRayGrid::Lookup::kUnlisted;
  if (ray.direction().x == 0.0 && ray.direction().z == 0.0) {
    absl::Span<const std::int32_t> candidates;
    std::int32_t quarter = 0;
    lookup = grid_.Find(ray.origin().x, ray.origin().z, &candidates, &quarter);
    if (lookup == VerticalRayGrid::Lookup::kOutside) return RayHit();
    if (lookup == VerticalRayGrid::Lookup::kListed) {
      const int count = static_cast<int>(candidates.size());
      if (IsDownRayAxes(ray)) {
        TestTriangles(ray, DownRayAxes(), candidates.data(), count, quarter,
                      &best_distance, &best_triangle);
      } else {
        TestTriangles(ray, RayAxes(ray), candidates.data(), count, quarter,
                      &best_distance, &best_triangle);
      }
    }
  }
  if (lookup == VerticalRayGrid::Lookup::kUnlisted) {
    const std::int32_t* const order = bvh_.order().data();
    const RayAxes axes(ray);
    bvh_.Traverse(ray, &best_distance, [&](int first_slot, int count) {
      TestTriangles(ray, axes, order + first_slot, count, /*quarter=*/0,
                    &best_distance, &best_triangle);
    });
  }
  if (best_triangle < 0) return RayHit();
  const std::uint32_t* triangle = &indices_[3 * best_triangle];
  RayHit hit;
  hit.hit = true;
  hit.distance = best_distance;
  hit.point = ray.PointAt(best_distance);
  hit.normal = FacingNormal(vertices_[triangle[0]], vertices_[triangle[1]],
                            vertices_[triangle[2]], ray.direction());
  hit.kind = GroundKind::kMesh;
  hit.primitive = best_triangle;
  return hit;
}

}  // namespace ik
