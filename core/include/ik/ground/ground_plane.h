// Plane ground: an infinite plane, or a bounded piece of one.
//
// A plane is a point on it and a normal (any non-zero length; normalised by
// Create). Optional bounds keep only part of it, checked on the hit point
// and inclusive:
//   - `rectangle_xz`: the hit's x and z within [min_x, max_x] x
//     [min_z, max_z] (world axes; the natural bound for a floor or a
//     ramp, seen from above);
//   - `radius`: the hit within `radius` metres of `point` (a disc on the
//     plane; for a sloped plane this is the distance in the plane).
// Both may be set; the hit must then satisfy both. A ray parallel to the
// plane (|dot(normal, direction)| <= kParallelCosine) misses, including a
// ray lying in the plane.
//
//   ik::GroundPlaneDefinition def;
//   def.point = {0.0, 0.1, 0.0};
//   def.normal = {0.0, 1.0, 0.2};
//   absl::StatusOr<ik::GroundPlane> plane = ik::GroundPlane::Create(def);
//   ik::RayHit hit = plane->Raycast({0, 1, 0}, {0, -1, 0}, 2.0);
//
// A small value type: immutable after Create, safe to share between threads
// and cheap to copy (planes come inline with each request).
#ifndef IK_GROUND_PLANE_H_
#define IK_GROUND_PLANE_H_

#include <optional>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "ik/base/math.h"
#include "ik/geometry/ray.h"

namespace ik {

// Rays this close to parallel to a plane (cosine between the direction and
// the plane's normal) miss it.
inline constexpr double kParallelCosine = 1e-12;

// Closed ranges of world x and z, metres. min <= max.
struct RectangleXZ {
  double min_x = 0.0;
  double max_x = 0.0;
  double min_z = 0.0;
  double max_z = 0.0;
};

struct GroundPlaneDefinition {
  // A point on the plane, world space, within +-kMaxCoordinate.
  Vec3 point{0.0};
  // Non-zero (at least 1e-12 long) and finite; need not be unit length.
  Vec3 normal{0.0, 1.0, 0.0};
  // Optional bounds, see above. Finite; min <= max.
  std::optional<RectangleXZ> rectangle_xz;
  // Optional, metres, finite and > 0.
  std::optional<double> radius;
};

class GroundPlane {
 public:
  // Validates and normalises. INVALID_ARGUMENT with field paths under `path`
  // (e.g. "plane.normal: zero length", "planes[2].rectangle_xz: min_x 3 is
  // greater than max_x 1", "plane.radius: must be finite and > 0, got 0").
  static absl::StatusOr<GroundPlane> Create(
      const GroundPlaneDefinition& definition,
      absl::string_view path = "plane");

  // The hit within [0, max_distance] (kind kPlane, primitive -1), or a miss
  // (also for a ray Ray::Make refuses or an invalid max_distance).
  RayHit Raycast(const Vec3& origin, const Vec3& direction,
                 double max_distance) const;
  RayHit Raycast(const Ray& ray, double max_distance) const;

  const Vec3& point() const { return point_; }
  // Unit length.
  const Vec3& normal() const { return normal_; }
  const std::optional<RectangleXZ>& rectangle_xz() const {
    return rectangle_xz_;
  }
  const std::optional<double>& radius() const { return radius_; }

 private:
  GroundPlane() = default;

  Vec3 point_{0.0};
  Vec3 normal_{0.0, 1.0, 0.0};
  std::optional<RectangleXZ> rectangle_xz_;
  std::optional<double> radius_;
};

}  // namespace ik

#endif  // IK_GROUND_PLANE_H_
