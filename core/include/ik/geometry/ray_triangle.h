// The watertight ray/triangle test shared by heightfields and meshes.
//
// Woop, Benthin and Wald, "Watertight Ray/Triangle Intersection", JCGT 2(1)
// 2013: the vertices are translated to the ray's origin, permuted and
// sheared (constants precomputed by Ray::Make) so the ray becomes the +z
// axis; then the three 2D edge functions U, V, W decide the hit. An edge's
// function depends only on its two vertices and the ray, and swapping the
// vertices negates it exactly (a*b - c*d against c*d - a*b), so two
// triangles sharing an edge (same vertex values) see it the same way: a ray
// through the edge is never lost between them. Edges and vertices count as
// inside (an edge function of exactly 0 is accepted), so such a ray may hit
// both; callers break the tie by triangle index.
//
// Two-sided: triangles are hit from either side. A ray in the triangle's
// plane (determinant 0) misses.
//
//   double distance;
//   if (ik::IntersectTriangle(ray, a, b, c, max_distance, &distance)) ...
#ifndef IK_RAY_TRIANGLE_H_
#define IK_RAY_TRIANGLE_H_

#include <algorithm>
#include <cmath>
#include <limits>

#include "ik/base/math.h"
#include "ik/geometry/ray.h"

namespace ik {

// The watertight test's frame axes (Ray::axis_x() ...), read from the ray.
struct RayAxes {
  explicit RayAxes(const Ray& ray)
      : x(ray.axis_x()), y(ray.axis_y()), z(ray.axis_z()) {}
  int x;
  int y;
  int z;
};

// The frame axes of a ray straight down, (0, -1, 0), as Ray::Make picks
// them: known at compile time, so the test indexes no arrays at run time
// (same operations, same bits). Only for rays whose axes these are
// (IsDownRayAxes).
struct DownRayAxes {
  static constexpr int x = 0;
  static constexpr int y = 2;
  static constexpr int z = 1;
};

inline bool IsDownRayAxes(const Ray& ray) {
  return ray.axis_x() == DownRayAxes::x && ray.axis_y() == DownRayAxes::y &&
         ray.axis_z() == DownRayAxes::z;
}

// Whether the ray hits triangle (a, b, c) at a distance in
// [0, max_distance]; on true, `*distance` is that distance (finite). For
// vertices within +-kMaxCoordinate never produces NaN. Deterministic: no
// data-dependent precision changes. `axes` are the ray's (RayAxes, or
// DownRayAxes for a ray straight down).
template <typename Axes>
inline bool IntersectTriangleWithAxes(const Ray& ray, const Axes& axes,
                                      const Vec3& a, const Vec3& b,
                                      const Vec3& c, double max_distance,
                                      double* distance) {
  const int kx = axes.x;
  const int ky = axes.y;
  const int kz = axes.z;
  // Plain arrays: indexing glm vectors at run time goes through a switch.
  const Vec3& origin = ray.origin();
  const double a_local[3] = {a.x - origin.x, a.y - origin.y, a.z - origin.z};
  const double b_local[3] = {b.x - origin.x, b.y - origin.y, b.z - origin.z};
  const double c_local[3] = {c.x - origin.x, c.y - origin.y, c.z - origin.z};
  // Shear into the ray's frame (the ray is then the +z axis).
  const double ax = a_local[kx] - ray.shear_x() * a_local[kz];
  const double ay = a_local[ky] - ray.shear_y() * a_local[kz];
  const double bx = b_local[kx] - ray.shear_x() * b_local[kz];
  const double by = b_local[ky] - ray.shear_y() * b_local[kz];
  const double cx = c_local[kx] - ray.shear_x() * c_local[kz];
  const double cy = c_local[ky] - ray.shear_y() * c_local[kz];
  // Scaled barycentric coordinates: the edge functions.
  const double u = cx * by - cy * bx;
  const double v = ax * cy - ay * cx;
  const double w = bx * ay - by * ax;
  if ((u < 0.0 || v < 0.0 || w < 0.0) && (u > 0.0 || v > 0.0 || w > 0.0)) {
    return false;
  }
  const double determinant = u + v + w;
  if (determinant == 0.0) return false;
  // The distance: the barycentric blend of the vertices' sheared z,
  // (U az + V bz + W cz) / (U + V + W), written as az plus the blend of the
  // offsets from a so that it is exact for a triangle facing the ray
  // squarely (a flat floor under a vertical ray) and loses less to
  // cancellation for small, distant triangles.
  const double offset_b = b_local[kz] - a_local[kz];
  const double offset_c = c_local[kz] - a_local[kz];
  const double t = ray.shear_z() *
                   (a_local[kz] + (v * offset_b + w * offset_c) / determinant);
  // Rejects NaN too; the last test rejects an overflowing division by a
  // tiny determinant when max_distance is infinite.
  if (!(t >= 0.0 && t <= max_distance &&
        t < std::numeric_limits<double>::infinity())) {
    return false;
  }
  *distance = t;
  return true;
}

// IntersectTriangle for any ray.
inline bool IntersectTriangle(const Ray& ray, const Vec3& a, const Vec3& b,
                              const Vec3& c, double max_distance,
                              double* distance) {
  return IntersectTriangleWithAxes(ray, RayAxes(ray), a, b, c, max_distance,
                                   distance);
}

// The triangle's unit geometric normal facing the side `direction` comes
// from (dot(normal, direction) <= 0). The triangle must not be degenerate
// (TriangleMesh::Create's test). Scaled by its largest component before
// normalising, so tiny triangles do not underflow to a NaN normal, and
// axis-aligned normals come out exact.
inline Vec3 FacingNormal(const Vec3& a, const Vec3& b, const Vec3& c,
                         const Vec3& direction) {
  const Vec3 cross = glm::cross(b - a, c - a);
  const double largest = std::max(
      std::abs(cross.x), std::max(std::abs(cross.y), std::abs(cross.z)));
  const Vec3 scaled = cross / largest;
  const Vec3 normal = scaled / glm::length(scaled);
  return glm::dot(normal, direction) > 0.0 ? -normal : normal;
}

}  // namespace ik

#endif  // IK_RAY_TRIANGLE_H_
