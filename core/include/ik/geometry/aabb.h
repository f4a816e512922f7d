// Axis-aligned bounding boxes and the conservative ray/box (slab) test that
// the BVH and the heightfield use to skip what a ray cannot hit.
//
//   ik::Aabb box;
//   box.Extend(a); box.Extend(b); box.Extend(c);
//   const ik::Aabb padded = ik::PaddedForRays(box);
//   double entry, exit;
//   if (ik::ClipRayToAabb(ray, padded, max_distance, &entry, &exit)) { ... }
//
// "Conservative" means the test may say yes for a ray that just misses the
// box, never no for one that touches it. Two measures make it so:
//   - boxes are padded (PaddedForRays) so a ray lying exactly in a box's
//     face, with a zero direction component, is strictly inside that slab;
//     with Ray::inverse_direction()'s finite stand-in for 1/0 the slab
//     bounds are then -huge..+huge, never NaN;
//   - the exit distance is widened by 1 + 2 * gamma(3) (Ize, "Robust BVH Ray
//     Traversal", JCGT 2013), covering the rounding of the three operations
//     that compute each slab bound.
#ifndef IK_AABB_H_
#define IK_AABB_H_

#include <algorithm>
#include <cmath>
#include <limits>

#include "ik/base/math.h"
#include "ik/geometry/ray.h"

namespace ik {

// An empty box (min > max) until extended.
struct Aabb {
  Vec3 min{std::numeric_limits<double>::infinity()};
  Vec3 max{-std::numeric_limits<double>::infinity()};

  void Extend(const Vec3& point) {
    min = Vec3(std::min(min.x, point.x), std::min(min.y, point.y),
               std::min(min.z, point.z));
    max = Vec3(std::max(max.x, point.x), std::max(max.y, point.y),
               std::max(max.z, point.z));
  }
  void Extend(const Aabb& box) {
    Extend(box.min);
    Extend(box.max);
  }
  bool IsEmpty() const {
    return !(min.x <= max.x && min.y <= max.y && min.z <= max.z);
  }
  Vec3 Center() const { return 0.5 * (min + max); }
  // 2 (dx dy + dy dz + dz dx); 0 for an empty box.
  double SurfaceArea() const {
    if (IsEmpty()) return 0.0;
    const Vec3 extent = max - min;
    return 2.0 *
           (extent.x * extent.y + extent.y * extent.z + extent.z * extent.x);
  }
};

// Relative padding PaddedForRays applies, on top of an absolute 1e-9 m.
inline constexpr double kAabbRelativePadding = 1e-9;

// `box` grown on every side by 1e-9 * (1 + its largest coordinate
// magnitude) metres: far above the rounding of any coordinate in it.
inline Aabb PaddedForRays(const Aabb& box) {
  const double largest =
      std::max({std::abs(box.min.x), std::abs(box.min.y), std::abs(box.min.z),
                std::abs(box.max.x), std::abs(box.max.y), std::abs(box.max.z)});
  const double pad = kAabbRelativePadding * (1.0 + largest);
  Aabb padded;
  padded.min = box.min - Vec3(pad);
  padded.max = box.max + Vec3(pad);
  return padded;
}

// The part of the ray within [0, max_distance] that touches the box
// [box_min, box_max] (conservatively, see above; pad the box with
// PaddedForRays): false when there is none, else `*entry` (>= 0; 0 when the
// origin is inside) and `*exit` (<= max_distance, >= *entry). Never NaN for
// a finite box.
inline bool ClipRayToBox(const Ray& ray, const Vec3& box_min,
                         const Vec3& box_max, double max_distance,
                         double* entry, double* exit) {
  // 1 + 2 * gamma(3), gamma(n) = n * eps / (1 - n * eps), eps = 2^-53.
  constexpr double kEpsilon = std::numeric_limits<double>::epsilon() * 0.5;
  constexpr double kWiden =
      1.0 + 2.0 * (3.0 * kEpsilon / (1.0 - 3.0 * kEpsilon));
  const Vec3& origin = ray.origin();
  const Vec3& inverse = ray.inverse_direction();
  const double x0 = (box_min.x - origin.x) * inverse.x;
  const double x1 = (box_max.x - origin.x) * inverse.x;
  const double y0 = (box_min.y - origin.y) * inverse.y;
  const double y1 = (box_max.y - origin.y) * inverse.y;
  const double z0 = (box_min.z - origin.z) * inverse.z;
  const double z1 = (box_max.z - origin.z) * inverse.z;
  const double near = std::max(std::max(std::min(x0, x1), std::min(y0, y1)),
                               std::max(std::min(z0, z1), 0.0));
  const double far =
      std::min(std::min(std::max(x0, x1), std::max(y0, y1)) * kWiden,
               std::min(std::max(z0, z1) * kWiden, max_distance));
  *entry = near;
  *exit = far;
  return near <= far;
}

inline bool ClipRayToAabb(const Ray& ray, const Aabb& box, double max_distance,
                          double* entry, double* exit) {
  return ClipRayToBox(ray, box.min, box.max, max_distance, entry, exit);
}

// ClipRayToAabb for when only the entry matters (BVH traversal).
inline bool IntersectAabb(const Ray& ray, const Aabb& box, double max_distance,
                          double* entry) {
  double exit;
  return ClipRayToAabb(ray, box, max_distance, entry, &exit);
}

}  // namespace ik

#endif  // IK_AABB_H_
