// TriangleMesh::Raycast's vertical-ray path (the grid, ik/geometry/
// vertical_ray_grid.h) against the BVH traversal alone and against brute
// force over every triangle: the same hit or miss, distance, point, normal
// and triangle, bit for bit.
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "ik/geometry/ray.h"
#include "ik/geometry/ray_triangle.h"
#include "ik/ground/triangle_mesh.h"
#include "terrain_shapes.h"

namespace ik {
namespace {

using ::ik::testing::kDown;

constexpr double kInf = std::numeric_limits<double>::infinity();

// The BVH traversal the mesh used for every ray before the grid: nearest
// hit, ties to the lowest triangle index.
RayHit BvhRaycast(const TriangleMesh& mesh, const Ray& ray,
                  double max_distance) {
  const absl::Span<const std::int32_t> order = mesh.bvh().order();
  const absl::Span<const Vec3> vertices = mesh.vertices();
  const absl::Span<const std::uint32_t> indices = mesh.indices();
  double best_distance = max_distance;
  int best_triangle = -1;
  mesh.bvh().Traverse(ray, &best_distance, [&](int first_slot, int count) {
    for (int slot = first_slot; slot < first_slot + count; ++slot) {
      const int index = order[slot];
      double distance;
      if (!IntersectTriangle(ray, vertices[indices[3 * index]],
                             vertices[indices[3 * index + 1]],
                             vertices[indices[3 * index + 2]], best_distance,
                             &distance)) {
        continue;
      }
      if (best_triangle < 0 || distance < best_distance ||
          (distance == best_distance && index < best_triangle)) {
        best_distance = distance;
        best_triangle = index;
      }
    }
  });
  if (best_triangle < 0) return RayHit();
  RayHit hit;
  hit.hit = true;
  hit.distance = best_distance;
  hit.point = ray.PointAt(best_distance);
  hit.normal =
      FacingNormal(vertices[indices[3 * best_triangle]],
                   vertices[indices[3 * best_triangle + 1]],
                   vertices[indices[3 * best_triangle + 2]], ray.direction());
  hit.kind = GroundKind::kMesh;
  hit.primitive = best_triangle;
  return hit;
}

void ExpectSameHit(const RayHit& hit, const RayHit& expected,
                   const std::string& what) {
  ASSERT_EQ(hit.hit, expected.hit) << what;
  EXPECT_EQ(hit.distance, expected.distance) << what;
  EXPECT_EQ(hit.point, expected.point) << what;
  EXPECT_EQ(hit.normal, expected.normal) << what;
  EXPECT_EQ(hit.kind, expected.kind) << what;
  EXPECT_EQ(hit.primitive, expected.primitive) << what;
}

double Rolling(double x, double z) {
  return 0.5 * std::sin(0.3 * x) * std::cos(0.2 * z) +
         0.05 * std::sin(7.1 * x + 3.3 * z);
}

struct MeshCase {
  std::string name;
  TriangleMeshDefinition definition;
};

std::vector<MeshCase> Meshes() {
  std::vector<MeshCase> cases;
  std::mt19937_64 engine(91);
  // ground_bench's jittered grid, and terrain_bench's smooth one.
  std::uniform_real_distribution<double> jitter(-0.05, 0.05);
  std::mt19937_64 bench_engine(64);
  cases.push_back(
      {"jittered 224x224",
       testing::GridMesh(
           [&](double x, double z) { return Rolling(x, z) + jitter(engine); },
           Vec3(0), 0.2, 0.2, 224, 224, bench_engine)});
  std::mt19937_64 smooth_engine(61);
  cases.push_back(
      {"smooth 251x201",
       testing::GridMesh(Rolling, Vec3(0), 0.2, 0.2, 251, 201, smooth_engine)});
  // Flat with exact coordinates: rays through shared edges and vertices
  // meet several triangles at the same distance.
  cases.push_back(
      {"flat 40x30",
       testing::GridMesh([](double, double) { return 0.0; }, Vec3(-3, 1, 2),
                         0.25, 0.5, 40, 30, engine)});
  cases.push_back({"soup", testing::RandomTriangleSoup(3000, 6.0, 92)});
  cases.push_back({"stairs", testing::ProfileMesh(testing::Stairs(
                                 12, 0.3, 0.17, -1.0, 0.0, 4.5))});
  cases.push_back({"closed sphere", testing::ClosedBumpySphere(16, 93)});
  // A dense bump on a sparse floor: its cells overflow to the BVH.
  TriangleMeshDefinition mixed =
      testing::GridMesh([](double, double) { return 0.0; }, Vec3(-10, 0, -10),
                        2.0, 2.0, 11, 11, engine);
  const TriangleMeshDefinition bump =
      testing::GridMesh([](double x, double z) { return 0.3 - x * x - z * z; },
                        Vec3(-0.3, 0, -0.3), 0.01, 0.01, 61, 61, engine);
  const std::uint32_t base = static_cast<std::uint32_t>(mixed.vertices.size());
  mixed.vertices.insert(mixed.vertices.end(), bump.vertices.begin(),
                        bump.vertices.end());
  for (const std::uint32_t index : bump.indices) {
    mixed.indices.push_back(base + index);
  }
  cases.push_back({"bump on a floor", std::move(mixed)});
  return cases;
}

// An origin over the mesh: at random, over a vertex, over a point of an
// edge, or on the bounds' border; sometimes far outside.
Vec3 VerticalRayOrigin(const TriangleMesh& mesh, int i,
                       std::mt19937_64& engine) {
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  const Aabb& box = mesh.bounds();
  const Vec3 extent = box.max - box.min;
  Vec3 origin =
      box.min +
      Vec3(unit(engine) * 1.1 - 0.05, 0.0, unit(engine) * 1.1 - 0.05) * extent;
  const int triangle = static_cast<int>(unit(engine) * mesh.triangle_count());
  const Vec3& a = mesh.vertices()[mesh.indices()[3 * triangle]];
  const Vec3& b = mesh.vertices()[mesh.indices()[3 * triangle + 1]];
  switch (i % 5) {
    case 1:  // through a vertex
      origin = a;
      break;
    case 2:  // through a point of an edge
      origin = a + (b - a) * unit(engine);
      break;
    case 3:  // through an edge's midpoint (shared edges of grids)
      origin = 0.5 * (a + b);
      break;
    case 4:  // on the bounds' border
      origin.x = i % 10 == 4 ? box.min.x : box.max.x;
      break;
    default:
      break;
  }
  origin.y = box.max.y + 0.5 + unit(engine);
  return origin;
}

// Vertical rays, down and up, over every mesh: the grid's answer is the
// BVH's and brute force's.
TEST(TriangleMeshVerticalTest, GridAgreesWithBvhAndBruteForce) {
  std::mt19937_64 engine(94);
  for (MeshCase& test_case : Meshes()) {
    absl::StatusOr<TriangleMesh> created =
        TriangleMesh::Create(std::move(test_case.definition));
    ASSERT_TRUE(created.ok()) << created.status();
    const TriangleMesh& mesh = *created;
    EXPECT_FALSE(mesh.grid().empty()) << test_case.name;
    if (test_case.name == "bump on a floor") {
      // The bump's cells send their rays to the BVH.
      absl::Span<const std::int32_t> candidates;
      std::int32_t quarter = 0;
      EXPECT_EQ(mesh.grid().Find(0.0, 0.0, &candidates, &quarter),
                VerticalRayGrid::Lookup::kUnlisted);
    }
    const bool large = mesh.triangle_count() > 20000;
    const int rays = large ? 20000 : 4000;
    int hits = 0;
    for (int i = 0; i < rays; ++i) {
      Vec3 origin = VerticalRayOrigin(mesh, i, engine);
      const bool up = i % 7 == 6;
      if (up) origin.y = mesh.bounds().min.y - 0.5;
      const std::optional<Ray> ray = Ray::Make(origin, up ? -kDown : kDown);
      ASSERT_TRUE(ray.has_value());
      const double height = mesh.bounds().max.y - mesh.bounds().min.y;
      const double max_distance = i % 3 == 0 ? kInf : 1.0 + height * 0.7;
      const RayHit hit = mesh.Raycast(*ray, max_distance);
      const std::string what = test_case.name + " ray " + std::to_string(i);
      ExpectSameHit(hit, BvhRaycast(mesh, *ray, max_distance), what);
      // Brute force costs a pass over every triangle: every ray on the
      // small meshes, one in 40 on the large ones.
      if (!large || i % 40 == 0) {
        const testing::BruteForceHit expected =
            testing::BruteForceRaycast(mesh, *ray, max_distance);
        ASSERT_EQ(hit.hit, expected.hit) << what;
        if (hit.hit) {
          EXPECT_EQ(hit.distance, expected.distance) << what;
          EXPECT_EQ(hit.primitive, expected.triangle) << what;
        }
      }
      hits += hit.hit ? 1 : 0;
    }
    EXPECT_GT(hits, rays / 3) << test_case.name;
  }
}

// Slanted and grazing rays still take the BVH, and agree with brute force
// there too (the grid only serves exactly vertical directions).
TEST(TriangleMeshVerticalTest, SlantedAndGrazingRaysAgreeWithBruteForce) {
  std::mt19937_64 engine(95);
  std::uniform_real_distribution<double> tilt(-1e-3, 1e-3);
  for (MeshCase& test_case : Meshes()) {
    if (test_case.name == "jittered 224x224") continue;  // brute force cost
    absl::StatusOr<TriangleMesh> created =
        TriangleMesh::Create(std::move(test_case.definition));
    ASSERT_TRUE(created.ok()) << created.status();
    const TriangleMesh& mesh = *created;
    for (int i = 0; i < 600; ++i) {
      const Vec3 origin = VerticalRayOrigin(mesh, i, engine);
      Vec3 direction = i % 2 == 0 ? Vec3(tilt(engine), -1.0, tilt(engine))
                                  : testing::RandomDirection(engine);
      if (i % 6 == 5) direction = Vec3(1.0, tilt(engine), 0.3);  // grazing
      const std::optional<Ray> ray = Ray::Make(origin, direction);
      ASSERT_TRUE(ray.has_value());
      const RayHit hit = mesh.Raycast(*ray, kInf);
      const std::string what = test_case.name + " ray " + std::to_string(i);
      ExpectSameHit(hit, BvhRaycast(mesh, *ray, kInf), what);
      const testing::BruteForceHit expected =
          testing::BruteForceRaycast(mesh, *ray, kInf);
      ASSERT_EQ(hit.hit, expected.hit) << what;
      if (hit.hit) {
        EXPECT_EQ(hit.primitive, expected.triangle) << what;
      }
    }
  }
}

// PrefetchVertical only warms the cache: answers before and after it are
// the same bits, whatever the points (outside the mesh, not finite, more
// than kMaxPrefetchPoints).
TEST(TriangleMeshVerticalTest, PrefetchChangesNoAnswer) {
  std::mt19937_64 engine(98);
  for (MeshCase& test_case : Meshes()) {
    absl::StatusOr<TriangleMesh> created =
        TriangleMesh::Create(std::move(test_case.definition));
    ASSERT_TRUE(created.ok()) << created.status();
    const TriangleMesh& mesh = *created;
    std::vector<Vec3> points;
    std::vector<RayHit> before;
    for (int i = 0; i < 12; ++i) {
      points.push_back(VerticalRayOrigin(mesh, i, engine));
      before.push_back(mesh.Raycast(*Ray::Make(points.back(), kDown), kInf));
    }
    points.push_back(Vec3(std::numeric_limits<double>::quiet_NaN()));
    points.push_back(Vec3(-1e9, 0.0, 1e9));
    mesh.PrefetchVertical(points);
    mesh.PrefetchVertical({});
    for (int i = 0; i < 12; ++i) {
      ExpectSameHit(mesh.Raycast(*Ray::Make(points[i], kDown), kInf), before[i],
                    test_case.name);
    }
  }
}

// The grid stays within its memory budget on the benchmark's terrain, and
// lists few triangles per cell.
TEST(TriangleMeshVerticalTest, GridMemoryStaysInBudget) {
  std::mt19937_64 engine(61);
  absl::StatusOr<TriangleMesh> mesh = TriangleMesh::Create(
      testing::GridMesh(Rolling, Vec3(0), 0.2, 0.2, 251, 201, engine));
  ASSERT_TRUE(mesh.ok());
  const VerticalRayGrid& grid = mesh->grid();
  ASSERT_FALSE(grid.empty());
  EXPECT_LE(static_cast<double>(grid.memory_bytes()),
            kGridBytesPerPrimitive * mesh->triangle_count());
  const double per_cell = static_cast<double>(grid.listed()) /
                          (static_cast<double>(grid.columns()) * grid.rows());
  EXPECT_LT(per_cell, 9.0);
}

}  // namespace
}  // namespace ik
