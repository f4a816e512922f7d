#include "ik/geometry/ray.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace ik {
namespace {

// Stands in for 1 / 0 in the inverse direction: large enough that any
// non-zero offset times it leaves every box (or overflows to infinity, which
// is harmless), finite so that 0 * it is 0 and never NaN.
constexpr double kHugeInverse = 1e300;

double SafeInverse(double component) {
  if (component == 0.0) {
    return std::signbit(component) ? -kHugeInverse : kHugeInverse;
  }
  return 1.0 / component;
}

double LargestMagnitude(const Vec3& v) {
  return std::max(std::abs(v.x), std::max(std::abs(v.y), std::abs(v.z)));
}

// `direction` scaled to unit length, or nullopt. Scaled by its largest
// component first so that neither huge nor tiny directions overflow or
// underflow on the way.
std::optional<Vec3> UnitDirection(const Vec3& direction) {
  if (!IsFinite(direction)) return std::nullopt;
  const double largest = LargestMagnitude(direction);
  if (!(largest > 0.0)) return std::nullopt;
  const Vec3 scaled = direction / largest;
  const double scaled_length = glm::length(scaled);  // in [1, sqrt(3)]
  if (!(largest * scaled_length >= kMinRayDirectionLength)) {
    return std::nullopt;
  }
  return scaled / scaled_length;
}

}  // namespace

std::optional<Ray> Ray::Make(const Vec3& origin, const Vec3& direction) {
  const std::optional<Vec3> unit_direction = UnitDirection(direction);
  if (!IsWithinRange(origin) || !unit_direction.has_value()) {
    return std::nullopt;
  }
  Ray ray;
  ray.origin_ = origin;
  ray.direction_ = *unit_direction;
  const Vec3& d = ray.direction_;
  ray.inverse_direction_ =
      Vec3(SafeInverse(d.x), SafeInverse(d.y), SafeInverse(d.z));

  // Woop, Benthin and Wald, section 3: permute so the dominant axis is z,
  // keep the winding, shear the direction onto +z. (A plain array: indexing
  // glm vectors at run time goes through a switch.)
  const double components[3] = {d.x, d.y, d.z};
  int axis_z = 0;
  if (std::abs(components[1]) > std::abs(components[axis_z])) axis_z = 1;
  if (std::abs(components[2]) > std::abs(components[axis_z])) axis_z = 2;
  int axis_x = (axis_z + 1) % 3;
  int axis_y = (axis_x + 1) % 3;
  if (components[axis_z] < 0.0) std::swap(axis_x, axis_y);
  ray.axis_x_ = axis_x;
  ray.axis_y_ = axis_y;
  ray.axis_z_ = axis_z;
  ray.shear_z_ = 1.0 / components[axis_z];
  ray.shear_x_ = components[axis_x] * ray.shear_z_;
  ray.shear_y_ = components[axis_y] * ray.shear_z_;
  return ray;
}

absl::Status ValidateRay(const Vec3& origin, const Vec3& direction,
                         double max_distance) {
  if (!IsFinite(origin)) {
    return absl::InvalidArgumentError("origin: not finite");
  }
  if (!IsWithinRange(origin)) {
    return absl::InvalidArgumentError(
        absl::StrCat("origin: beyond ", kMaxCoordinate, " m"));
  }
  if (!IsFinite(direction)) {
    return absl::InvalidArgumentError("direction: not finite");
  }
  if (!UnitDirection(direction).has_value()) {
    return absl::InvalidArgumentError(
        absl::StrCat("direction: shorter than ", kMinRayDirectionLength));
  }
  if (!IsValidMaxDistance(max_distance)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "max_distance: must be >= 0 (or infinite), got ", max_distance));
  }
  return absl::OkStatus();
}

}  // namespace ik
