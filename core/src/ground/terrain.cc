#include "ik/ground/terrain.h"

#include <optional>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "ik/base/field_error.h"

namespace ik {
namespace {

// Keeps `candidate` (found from `source`) when it is strictly nearer than
// `*best`; the searches pass best->distance as their maximum, so a
// candidate is never farther.
void KeepNearer(RayHit candidate, int source, RayHit* best) {
  if (!candidate.hit) return;
  if (best->hit && !(candidate.distance < best->distance)) return;
  candidate.source = source;
  *best = candidate;
}

}  // namespace

absl::Status Ground::Validate(absl::string_view path) const {
  for (size_t i = 0; i < heightfields.size(); ++i) {
    if (heightfields[i] == nullptr) {
      return InvalidField(
          FieldPath(path, absl::StrCat("heightfields[", i, "]")), "null");
    }
  }
  for (size_t i = 0; i < meshes.size(); ++i) {
    if (meshes[i] == nullptr) {
      return InvalidField(FieldPath(path, absl::StrCat("meshes[", i, "]")),
                          "null");
    }
  }
  return absl::OkStatus();
}

void Ground::PrefetchVerticalFirst(absl::Span<const Vec3> points) const {
  for (const Heightfield* heightfield : heightfields) {
    if (heightfield != nullptr) heightfield->PrefetchVertical(points);
  }
  for (const TriangleMesh* mesh : meshes) {
    if (mesh != nullptr) mesh->PrefetchCells(points);
  }
}

void Ground::PrefetchVerticalRest(absl::Span<const Vec3> points) const {
  for (const TriangleMesh* mesh : meshes) {
    if (mesh != nullptr) mesh->PrefetchVertical(points);
  }
}

RayHit Ground::Raycast(const Vec3& origin, const Vec3& direction,
                       double max_distance) const {
  const std::optional<Ray> ray = Ray::Make(origin, direction);
  if (!ray.has_value()) return RayHit();
  return Raycast(*ray, max_distance);
}

RayHit Ground::Raycast(const Ray& ray, double max_distance) const {
  RayHit best;
  if (!IsValidMaxDistance(max_distance)) return best;
  // Each search is bounded by the nearest hit so far: a plane under the
  // feet prunes most of a mesh's tree.
  const auto limit = [&] { return best.hit ? best.distance : max_distance; };
  for (size_t i = 0; i < planes.size(); ++i) {
    KeepNearer(planes[i].Raycast(ray, limit()), static_cast<int>(i), &best);
  }
  for (size_t i = 0; i < heightfields.size(); ++i) {
    if (heightfields[i] == nullptr) continue;
    KeepNearer(heightfields[i]->Raycast(ray, limit()), static_cast<int>(i),
               &best);
  }
  for (size_t i = 0; i < meshes.size(); ++i) {
    if (meshes[i] == nullptr) continue;
    KeepNearer(meshes[i]->Raycast(ray, limit()), static_cast<int>(i), &best);
  }
  return best;
}

}  // namespace ik
