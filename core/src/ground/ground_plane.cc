#include "ik/ground/ground_plane.h"

#include <cmath>
#include <optional>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "ik/base/validate.h"

namespace ik {
namespace {

constexpr double kMinNormalLength = 1e-12;

absl::Status ValidateRectangle(const RectangleXZ& rectangle,
                               absl::string_view path) {
  if (!IsFinite(rectangle.min_x) || !IsFinite(rectangle.max_x) ||
      !IsFinite(rectangle.min_z) || !IsFinite(rectangle.max_z)) {
    return InvalidField(path, "rectangle_xz", "not finite");
  }
  if (rectangle.min_x > rectangle.max_x) {
    return InvalidField(
        path, "rectangle_xz",
        absl::StrCat("min_x ", rectangle.min_x, " is greater than max_x ",
                     rectangle.max_x));
  }
  if (rectangle.min_z > rectangle.max_z) {
    return InvalidField(
        path, "rectangle_xz",
        absl::StrCat("min_z ", rectangle.min_z, " is greater than max_z ",
                     rectangle.max_z));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<GroundPlane> GroundPlane::Create(
    const GroundPlaneDefinition& definition, absl::string_view path) {
  if (!IsFinite(definition.point)) {
    return InvalidField(path, "point", "not finite");
  }
  if (!IsWithinRange(definition.point)) {
    return InvalidField(path, "point",
                        absl::StrCat("beyond ", kMaxCoordinate, " m"));
  }
  if (!IsFinite(definition.normal)) {
    return InvalidField(path, "normal", "not finite");
  }
  // Scaled first so that huge normals do not overflow the length.
  const Vec3& normal = definition.normal;
  const double largest = std::max(
      std::abs(normal.x), std::max(std::abs(normal.y), std::abs(normal.z)));
  const Vec3 scaled = largest > 0.0 ? normal / largest : Vec3(0.0);
  const double scaled_length = glm::length(scaled);
  if (!(largest * scaled_length >= kMinNormalLength)) {
    return InvalidField(path, "normal", "zero length");
  }
  if (definition.rectangle_xz.has_value()) {
    if (absl::Status status = ValidateRectangle(*definition.rectangle_xz, path);
        !status.ok()) {
      return status;
    }
  }
  if (definition.radius.has_value()) {
    const double radius = *definition.radius;
    if (!(radius > 0.0 && IsFinite(radius))) {
      return InvalidField(path, "radius",
                          absl::StrCat("must be finite and > 0, got ", radius));
    }
  }
  GroundPlane plane;
  plane.point_ = definition.point;
  plane.normal_ = scaled / scaled_length;
  plane.rectangle_xz_ = definition.rectangle_xz;
  plane.radius_ = definition.radius;
  return plane;
}

RayHit GroundPlane::Raycast(const Vec3& origin, const Vec3& direction,
                            double max_distance) const {
  const std::optional<Ray> ray = Ray::Make(origin, direction);
  if (!ray.has_value()) return RayHit();
  return Raycast(*ray, max_distance);
}

RayHit GroundPlane::Raycast(const Ray& ray, double max_distance) const {
  if (!IsValidMaxDistance(max_distance)) return RayHit();
  const double cosine = glm::dot(normal_, ray.direction());
  if (!(std::abs(cosine) > kParallelCosine)) return RayHit();
  // Both dot products are bounded (coordinates within kMaxCoordinate, unit
  // vectors), and |cosine| > 1e-12, so the distance is finite.
  const double distance = glm::dot(normal_, point_ - ray.origin()) / cosine;
  if (!(distance >= 0.0 && distance <= max_distance)) return RayHit();
  const Vec3 point = ray.PointAt(distance);
  if (rectangle_xz_.has_value()) {
    const RectangleXZ& rectangle = *rectangle_xz_;
    if (!(point.x >= rectangle.min_x && point.x <= rectangle.max_x &&
          point.z >= rectangle.min_z && point.z <= rectangle.max_z)) {
      return RayHit();
    }
  }
  if (radius_.has_value()) {
    const Vec3 offset = point - point_;
    if (!(glm::dot(offset, offset) <= *radius_ * *radius_)) return RayHit();
  }
  RayHit hit;
  hit.hit = true;
  hit.distance = distance;
  hit.point = point;
  hit.normal = cosine > 0.0 ? -normal_ : normal_;
  hit.kind = GroundKind::kPlane;
  return hit;
}

}  // namespace ik
