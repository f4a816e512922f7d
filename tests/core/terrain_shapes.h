// Test and benchmark shapes for the ground queries, each available both
// analytically (closed-form ray intersection, written independently of the
// core's code) and as a heightfield or triangle mesh; plus brute-force
// references and seeded random meshes.
#ifndef IK_TESTS_CORE_TERRAIN_SHAPES_H_
#define IK_TESTS_CORE_TERRAIN_SHAPES_H_

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <random>
#include <tuple>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "draws.h"
#include "gtest/gtest.h"
#include "ik/base/math.h"
#include "ik/geometry/ray.h"
#include "ik/geometry/ray_triangle.h"
#include "ik/ground/heightfield.h"
#include "ik/ground/triangle_mesh.h"

namespace ik::testing {

// Straight down: the direction of the grounding pass's leg and toe rays.
inline const Vec3 kDown(0, -1, 0);
// Agreement of ray hits with analytic surfaces, metres.
inline constexpr double kAnalyticTolerance = 1e-9;

// Expects `status` to have `code` and a message containing `substring`.
inline void ExpectError(const absl::Status& status, absl::StatusCode code,
                        const char* substring) {
  EXPECT_EQ(status.code(), code) << status;
  EXPECT_TRUE(absl::StrContains(status.message(), substring)) << status;
}

// An analytic answer: distance and the unit normal facing the ray.
struct AnalyticHit {
  double distance = 0.0;
  Vec3 normal{0.0};
};

// y = slope_x * x + slope_z * z + height over [min_x, max_x] x [min_z,
// max_z].
struct Slope {
  double slope_x = 0.3;
  double slope_z = -0.2;
  double height = 0.5;
  double min_x = -2.0;
  double max_x = 3.0;
  double min_z = -1.5;
  double max_z = 2.5;

  double HeightAt(double x, double z) const {
    return slope_x * x + slope_z * z + height;
  }
  // The plane's hit; nullopt for a miss (or parallel, or off the domain).
  std::optional<AnalyticHit> Intersect(const Vec3& origin,
                                       const Vec3& direction) const {
    const Vec3 normal = glm::normalize(Vec3(-slope_x, 1.0, -slope_z));
    const double cosine = glm::dot(normal, direction);
    if (cosine == 0.0) return std::nullopt;
    const double distance =
        glm::dot(normal, Vec3(0.0, height, 0.0) - origin) / cosine;
    if (distance < 0.0) return std::nullopt;
    const Vec3 point = origin + distance * direction;
    if (point.x < min_x || point.x > max_x || point.z < min_z ||
        point.z > max_z) {
      return std::nullopt;
    }
    return AnalyticHit{distance, cosine > 0.0 ? -normal : normal};
  }
};

// A polyline profile y(x) in the XY plane extruded along z over [min_z,
// max_z]: stairs (vertical risers, two points at the same x) or ramps.
struct ExtrudedProfile {
  std::vector<std::pair<double, double>> points;  // (x, y), x non-decreasing
  double min_z = -1.0;
  double max_z = 1.0;

  // Ray against each extruded segment, solved in 2D (x, y) with Cramer's
  // rule; the nearest wins.
  std::optional<AnalyticHit> Intersect(const Vec3& origin,
                                       const Vec3& direction) const {
    std::optional<AnalyticHit> best;
    for (size_t i = 0; i + 1 < points.size(); ++i) {
      const double ax = points[i].first, ay = points[i].second;
      const double ex = points[i + 1].first - ax;
      const double ey = points[i + 1].second - ay;
      const double denominator = direction.x * ey - direction.y * ex;
      if (denominator == 0.0) continue;
      const double wx = ax - origin.x, wy = ay - origin.y;
      const double distance = (wx * ey - wy * ex) / denominator;
      const double s = (wx * direction.y - wy * direction.x) / denominator;
      if (distance < 0.0 || s < 0.0 || s > 1.0) continue;
      const double z = origin.z + distance * direction.z;
      if (z < min_z || z > max_z) continue;
      if (best.has_value() && best->distance <= distance) continue;
      Vec3 normal = glm::normalize(Vec3(-ey, ex, 0.0));
      if (glm::dot(normal, direction) > 0.0) normal = -normal;
      best = AnalyticHit{distance, normal};
    }
    return best;
  }
};

// Stairs with vertical risers from x = start_x: a floor at y = 0 up to
// first_riser_x, then `steps` steps of `run` by `rise`, the last tread
// running on to end_x.
inline ExtrudedProfile Stairs(int steps, double run, double rise,
                              double start_x, double first_riser_x,
                              double end_x) {
  ExtrudedProfile profile;
  profile.points.push_back({start_x, 0.0});
  for (int k = 0; k < steps; ++k) {
    const double x = first_riser_x + k * run;
    profile.points.push_back({x, k * rise});
    profile.points.push_back({x, (k + 1) * rise});
  }
  profile.points.push_back({end_x, steps * rise});
  return profile;
}

// Stairs a heightfield can hold: a floor of 5 cells, then up to 10 steps,
// each a riser one cell wide (a ramp: a heightfield has no vertical faces)
// and a tread of 3 cells; uniform along z. The analytic surface is the
// profile through the samples, every kink on a grid line.
struct GridStairsShape {
  HeightfieldDefinition heightfield;
  ExtrudedProfile profile;
};

inline GridStairsShape GridStairs(const Vec3& origin, double spacing_x,
                                  double spacing_z, int columns, int rows,
                                  double rise) {
  const auto height_at_column = [&](int column) {
    const int m = column - 5;
    if (m <= 0) return 0.0;
    const int steps = std::min(m / 4, 10);
    return rise * (steps + (m / 4 < 10 ? std::min(m % 4, 1) : 0));
  };
  GridStairsShape shape;
  HeightfieldDefinition& def = shape.heightfield;
  def.origin = origin;
  def.spacing_x = spacing_x;
  def.spacing_z = spacing_z;
  def.columns = columns;
  def.rows = rows;
  for (int row = 0; row < rows; ++row) {
    for (int column = 0; column < columns; ++column) {
      def.heights.push_back(height_at_column(column));
    }
  }
  shape.profile.min_z = origin.z;
  shape.profile.max_z = origin.z + (rows - 1) * spacing_z;
  for (int column = 0; column < columns; ++column) {
    shape.profile.points.push_back(
        {origin.x + column * spacing_x, origin.y + height_at_column(column)});
  }
  return shape;
}

// A heightfield sampling `height(x, z)` on a grid.
inline HeightfieldDefinition SampledHeightfield(
    const std::function<double(double, double)>& height, const Vec3& origin,
    double spacing_x, double spacing_z, int columns, int rows) {
  HeightfieldDefinition definition;
  definition.origin = origin;
  definition.spacing_x = spacing_x;
  definition.spacing_z = spacing_z;
  definition.columns = columns;
  definition.rows = rows;
  for (int row = 0; row < rows; ++row) {
    for (int column = 0; column < columns; ++column) {
      definition.heights.push_back(
          height(origin.x + column * spacing_x, origin.z + row * spacing_z) -
          origin.y);
    }
  }
  return definition;
}

// A grid mesh over the same samples, each cell split along a diagonal
// chosen by `engine` (so its triangulation differs from a heightfield's).
inline TriangleMeshDefinition GridMesh(
    const std::function<double(double, double)>& height, const Vec3& origin,
    double spacing_x, double spacing_z, int columns, int rows,
    std::mt19937_64& engine) {
  TriangleMeshDefinition mesh;
  for (int row = 0; row < rows; ++row) {
    for (int column = 0; column < columns; ++column) {
      const double x = origin.x + column * spacing_x;
      const double z = origin.z + row * spacing_z;
      mesh.vertices.push_back(Vec3(x, height(x, z), z));
    }
  }
  std::bernoulli_distribution flip(0.5);
  for (int row = 0; row + 1 < rows; ++row) {
    for (int column = 0; column + 1 < columns; ++column) {
      const std::uint32_t v00 = row * columns + column;
      const std::uint32_t v10 = v00 + 1;
      const std::uint32_t v01 = v00 + columns;
      const std::uint32_t v11 = v01 + 1;
      if (flip(engine)) {
        mesh.indices.insert(mesh.indices.end(), {v00, v10, v11, v00, v11, v01});
      } else {
        mesh.indices.insert(mesh.indices.end(), {v00, v10, v01, v10, v11, v01});
      }
    }
  }
  return mesh;
}

// An extruded profile as a mesh: one quad (two triangles) per segment.
inline TriangleMeshDefinition ProfileMesh(const ExtrudedProfile& profile) {
  TriangleMeshDefinition mesh;
  for (const auto& [x, y] : profile.points) {
    mesh.vertices.push_back(Vec3(x, y, profile.min_z));
    mesh.vertices.push_back(Vec3(x, y, profile.max_z));
  }
  for (std::uint32_t i = 0; i + 1 < profile.points.size(); ++i) {
    const std::uint32_t a = 2 * i, b = 2 * i + 1, c = 2 * i + 2, d = 2 * i + 3;
    mesh.indices.insert(mesh.indices.end(), {a, c, d, a, d, b});
  }
  return mesh;
}

// The nearest triangle hit by testing every triangle in index order, ties to
// the lowest index: what TriangleMesh::Raycast must equal.
struct BruteForceHit {
  bool hit = false;
  double distance = 0.0;
  int triangle = -1;
};

inline BruteForceHit BruteForceRaycast(
    const std::function<void(int, Vec3*, Vec3*, Vec3*)>& triangle_at,
    int triangle_count, const Ray& ray, double max_distance) {
  BruteForceHit best;
  best.distance = max_distance;
  for (int t = 0; t < triangle_count; ++t) {
    Vec3 a, b, c;
    triangle_at(t, &a, &b, &c);
    double distance;
    if (!IntersectTriangle(ray, a, b, c, max_distance, &distance)) continue;
    if (!best.hit || distance < best.distance) {
      best.hit = true;
      best.distance = distance;
      best.triangle = t;
    }
  }
  if (!best.hit) best.distance = 0.0;
  return best;
}

inline BruteForceHit BruteForceRaycast(const TriangleMesh& mesh, const Ray& ray,
                                       double max_distance) {
  return BruteForceRaycast(
      [&](int t, Vec3* a, Vec3* b, Vec3* c) {
        *a = mesh.vertices()[mesh.indices()[3 * t]];
        *b = mesh.vertices()[mesh.indices()[3 * t + 1]];
        *c = mesh.vertices()[mesh.indices()[3 * t + 2]];
      },
      mesh.triangle_count(), ray, max_distance);
}

// Over a heightfield's triangles, numbered as RayHit::primitive documents.
inline BruteForceHit BruteForceRaycast(const Heightfield& field, const Ray& ray,
                                       double max_distance) {
  const int cells_x = field.columns() - 1;
  return BruteForceRaycast(
      [&](int t, Vec3* a, Vec3* b, Vec3* c) {
        const int column = (t / 2) % cells_x;
        const int row = (t / 2) / cells_x;
        *a = field.Vertex(column, row);
        if (t % 2 == 0) {
          *b = field.Vertex(column + 1, row);
          *c = field.Vertex(column + 1, row + 1);
        } else {
          *b = field.Vertex(column + 1, row + 1);
          *c = field.Vertex(column, row + 1);
        }
      },
      field.triangle_count(), ray, max_distance);
}

// `count` random triangles with vertices in a cube of side `extent`, sizes
// log-uniform between 1e-3 and `extent` (slivers included), seeded.
inline TriangleMeshDefinition RandomTriangleSoup(int count, double extent,
                                                 std::uint64_t seed) {
  std::mt19937_64 engine(seed);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::uniform_real_distribution<double> symmetric(-1.0, 1.0);
  TriangleMeshDefinition mesh;
  while (static_cast<int>(mesh.indices.size()) < 3 * count) {
    const Vec3 centre = extent * DrawVec3(unit, engine);
    const double size = 1e-3 * std::pow(extent / 1e-3, unit(engine));
    Vec3 corners[3];
    for (Vec3& corner : corners) {
      corner = centre + size * DrawVec3(symmetric, engine);
    }
    const Vec3 cross =
        glm::cross(corners[1] - corners[0], corners[2] - corners[0]);
    if (glm::length(cross) < 1e-6 * size * size) continue;
    const std::uint32_t first =
        static_cast<std::uint32_t>(mesh.vertices.size());
    for (const Vec3& corner : corners) mesh.vertices.push_back(corner);
    mesh.indices.insert(mesh.indices.end(), {first, first + 1, first + 2});
  }
  return mesh;
}

// A closed, bumpy sphere-like mesh around the origin (radius in [0.9, 1.1]):
// each face of an octahedron subdivided into `n`^2 triangles, vertices
// shared between faces, pushed out to the jittered radius. Every ray from
// inside the unit-0.9 ball must hit it.
inline TriangleMeshDefinition ClosedBumpySphere(int n, std::uint64_t seed) {
  std::mt19937_64 engine(seed);
  std::uniform_real_distribution<double> jitter(0.9, 1.1);
  TriangleMeshDefinition mesh;
  std::map<std::tuple<int, int, int>, std::uint32_t> index_of;
  const auto vertex = [&](int i, int j, int k) {
    const auto key = std::make_tuple(i, j, k);
    if (auto it = index_of.find(key); it != index_of.end()) return it->second;
    const Vec3 lattice(i, j, k);
    const std::uint32_t index =
        static_cast<std::uint32_t>(mesh.vertices.size());
    mesh.vertices.push_back(glm::normalize(lattice) * jitter(engine));
    index_of.emplace(key, index);
    return index;
  };
  for (int sx : {-1, 1}) {
    for (int sy : {-1, 1}) {
      for (int sz : {-1, 1}) {
        // Lattice points (i, j, n - i - j) on this face.
        for (int i = 0; i < n; ++i) {
          for (int j = 0; i + j < n; ++j) {
            const auto at = [&](int a, int b) {
              return vertex(sx * a, sy * b, sz * (n - a - b));
            };
            mesh.indices.insert(mesh.indices.end(),
                                {at(i, j), at(i + 1, j), at(i, j + 1)});
            if (i + j + 2 <= n) {
              mesh.indices.insert(
                  mesh.indices.end(),
                  {at(i + 1, j), at(i + 1, j + 1), at(i, j + 1)});
            }
          }
        }
      }
    }
  }
  return mesh;
}

// A uniformly random unit direction, seeded through `engine`.
inline Vec3 RandomDirection(std::mt19937_64& engine) {
  std::normal_distribution<double> normal(0.0, 1.0);
  while (true) {
    const Vec3 v = DrawVec3(normal, engine);
    const double length = glm::length(v);
    if (length > 1e-6) return v / length;
  }
}

// Downward-ish random unit directions for ray #i, seeded through `engine`:
// every fourth one straight down, most tilted by up to ~80 degrees, one in
// ten anywhere (upwards too).
inline Vec3 GroundRayDirection(int i, std::mt19937_64& engine) {
  if (i % 4 == 0) return Vec3(0.0, -1.0, 0.0);
  Vec3 direction = RandomDirection(engine);
  if (i % 10 != 1 && direction.y > -0.15) {
    direction.y = -0.15 - std::abs(direction.y);
  }
  return glm::normalize(direction);
}

// Within 1e-7 m of the rectangle's border in x or z: where a surface's
// outer edge makes hit-or-miss a matter of rounding.
inline bool NearRectangleBorder(const Vec3& point, double min_x, double max_x,
                                double min_z, double max_z) {
  constexpr double kMargin = 1e-7;
  return std::abs(point.x - min_x) < kMargin ||
         std::abs(point.x - max_x) < kMargin ||
         std::abs(point.z - min_z) < kMargin ||
         std::abs(point.z - max_z) < kMargin;
}

}  // namespace ik::testing

#endif  // IK_TESTS_CORE_TERRAIN_SHAPES_H_
