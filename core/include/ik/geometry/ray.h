// Rays for ground queries, and what a query answers.
//
// A Ray is an origin and a unit direction plus the per-ray constants the
// watertight triangle test (ik/geometry/ray_triangle.h) and the slab test
// (ik/geometry/aabb.h) need. It is computed once per ray and shared by every
// terrain the ray is tested against, which is also what makes triangles of
// different terrains (and the two triangles of a heightfield cell) agree on
// shared edges: they are all tested against the same constants.
//
//   std::optional<ik::Ray> ray = ik::Ray::Make(hip_world, {0.0, -1.0, 0.0});
//   if (ray.has_value()) {
//     ik::RayHit hit = ground.Raycast(*ray, /*max_distance=*/1.5);
//   }
//
// Units: metres. Right-handed, +Y up. Distances are measured along the unit
// direction, so they are metres too.
#ifndef IK_RAY_H_
#define IK_RAY_H_

#include <optional>

#include "absl/status/status.h"
#include "ik/base/math.h"

namespace ik {

// Directions shorter than this (before normalisation) make no ray.
inline constexpr double kMinRayDirectionLength = 1e-12;

// Which kind of ground a hit is on.
enum class GroundKind { kNone, kPlane, kHeightfield, kMesh };

// The answer to a ray query. A miss is `hit == false` with every other field
// at its default.
struct RayHit {
  bool hit = false;
  // Metres from the ray's origin along its (unit) direction, in
  // [0, max_distance].
  double distance = 0.0;
  // origin + distance * direction.
  Vec3 point{0.0};
  // Unit geometric normal of the surface at `point`, facing the side the ray
  // comes from (dot(normal, direction) <= 0): "up" for a downward ray on
  // anything that is not a vertical wall. Triangles are flat-shaded.
  Vec3 normal{0.0};
  GroundKind kind = GroundKind::kNone;
  // Which triangle: for a mesh the index into its triangle list (indices
  // [3 * primitive, 3 * primitive + 3)); for a heightfield
  // 2 * (row * (columns - 1) + column) + half, see ik/ground/heightfield.h;
  // -1 for a plane.
  int primitive = -1;
  // Set by Ground::Raycast (ik/ground/terrain.h): the index of the plane,
  // heightfield or mesh in the Ground's span of that kind. -1 otherwise.
  int source = -1;
};

// A validated ray with the constants of the watertight ray/triangle test of
// Woop, Benthin and Wald, "Watertight Ray/Triangle Intersection" (JCGT 2013)
// and of the slab test. Immutable; cheap to copy.
class Ray {
 public:
  // nullopt unless `origin` is within +-kMaxCoordinate (finite) and
  // `direction` is finite and at least kMinRayDirectionLength long.
  // `direction` need not be unit length: it is normalised here.
  static std::optional<Ray> Make(const Vec3& origin, const Vec3& direction);

  // The ray Make(origin, d) gives for the `d` this one was made with, bit
  // for bit, without recomputing the direction's constants: for many rays
  // of one direction (the grounding pass casts every ray straight down).
  // nullopt unless `origin` is within +-kMaxCoordinate (finite).
  std::optional<Ray> WithOrigin(const Vec3& origin) const {
    if (!IsWithinRange(origin)) return std::nullopt;
    Ray ray = *this;
    ray.origin_ = origin;
    return ray;
  }

  const Vec3& origin() const { return origin_; }
  // Unit length.
  const Vec3& direction() const { return direction_; }
  // 1 / direction per component; a zero component gives a huge finite value
  // of the same sign instead of infinity, so slab tests never compute
  // 0 * infinity (see ik/geometry/aabb.h).
  const Vec3& inverse_direction() const { return inverse_direction_; }
  Vec3 PointAt(double distance) const {
    return origin_ + direction_ * distance;
  }

  // The watertight test's frame: `axis_z` is the direction's dominant axis
  // (lowest index on ties); `axis_x` and `axis_y` are the other two, swapped
  // when the direction's dominant component is negative so the triangle's
  // winding is preserved. The shear maps the direction onto (0, 0, 1).
  int axis_x() const { return axis_x_; }
  int axis_y() const { return axis_y_; }
  int axis_z() const { return axis_z_; }
  double shear_x() const { return shear_x_; }
  double shear_y() const { return shear_y_; }
  double shear_z() const { return shear_z_; }

 private:
  Ray() = default;

  Vec3 origin_{0.0};
  Vec3 direction_{0.0};
  Vec3 inverse_direction_{0.0};
  int axis_x_ = 0;
  int axis_y_ = 0;
  int axis_z_ = 0;
  double shear_x_ = 0.0;
  double shear_y_ = 0.0;
  double shear_z_ = 0.0;
};

// A valid maximum distance is >= 0 (and not NaN); +infinity is allowed.
inline bool IsValidMaxDistance(double max_distance) {
  return max_distance >= 0.0;
}

// INVALID_ARGUMENT naming the field ("origin", "direction",
// "max_distance") when Ray::Make would refuse the ray or the maximum distance
// is not valid. Queries themselves do not fail: they answer a miss.
absl::Status ValidateRay(const Vec3& origin, const Vec3& direction,
                         double max_distance);

}  // namespace ik

#endif  // IK_RAY_H_
