#include "ik/ground/triangle_mesh.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <random>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "draws.h"
#include "gtest/gtest.h"
#include "ik/geometry/ray.h"
#include "terrain_shapes.h"

namespace ik {
namespace {

using ::ik::testing::ExpectError;
using ::ik::testing::kAnalyticTolerance;
using ::ik::testing::kDown;

constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

TriangleMesh MakeMesh(TriangleMeshDefinition definition) {
  absl::StatusOr<TriangleMesh> mesh =
      TriangleMesh::Create(std::move(definition));
  EXPECT_TRUE(mesh.ok()) << mesh.status();
  return *std::move(mesh);
}

// Two triangles forming the unit square in y = 0.
TriangleMeshDefinition Square() {
  TriangleMeshDefinition def;
  def.vertices = {{0, 0, 0}, {1, 0, 0}, {1, 0, 1}, {0, 0, 1}};
  def.indices = {0, 1, 2, 0, 2, 3};
  return def;
}

TEST(TriangleMeshTest, RejectsInvalidDefinitionsWithFieldPaths) {
  const absl::StatusCode kInvalid = absl::StatusCode::kInvalidArgument;
  const auto status_of = [](TriangleMeshDefinition def) {
    return TriangleMesh::Create(std::move(def)).status();
  };
  TriangleMeshDefinition def = Square();
  def.vertices.clear();
  ExpectError(status_of(def), kInvalid, "mesh.vertices: empty");
  def = Square();
  def.indices.clear();
  ExpectError(status_of(def), kInvalid, "mesh.indices: empty");
  def = Square();
  def.indices.push_back(1);
  ExpectError(status_of(def), kInvalid,
              "mesh.indices: 7 values, not a multiple of 3");
  def = Square();
  def.vertices[3].z = kNan;
  ExpectError(status_of(def), kInvalid, "mesh.vertices[3]: not finite");
  def.vertices[3].z = -kInf;
  ExpectError(status_of(def), kInvalid, "mesh.vertices[3]: not finite");
  def.vertices[3].z = 1.5e9;
  ExpectError(status_of(def), kInvalid, "mesh.vertices[3]: beyond 1e+09 m");
  def = Square();
  def.vertices.resize(1000, Vec3(5, 5, 5));
  def.indices[4] = 1200;
  ExpectError(status_of(def), kInvalid,
              "mesh.indices[4]: 1200 is out of range [0, 1000)");
  def = Square();
  def.indices[5] = 0;  // triangle 1 = (0, 2, 0)
  ExpectError(status_of(def), kInvalid,
              "mesh.indices[3]: triangle 1 (vertices 0, 2, 0) is degenerate "
              "(zero area)");
  def = Square();
  def.vertices.push_back({0.5, 0, 0.5});  // collinear with 0 and 2
  def.indices.insert(def.indices.end(), {0, 4, 2});
  ExpectError(status_of(def), kInvalid, "mesh.indices[6]: triangle 2");
  def = Square();
  def.vertices[2] = def.vertices[1];  // a repeated position
  ExpectError(status_of(def), kInvalid, "mesh.indices[0]: triangle 0");
  // A tiny but proper triangle is fine.
  def = {};
  def.vertices = {{0, 0, 0}, {1e-6, 0, 0}, {0, 0, 1e-6}};
  def.indices = {0, 1, 2};
  EXPECT_TRUE(TriangleMesh::Create(def).ok());
  // Size limits, before anything else is looked at.
  def = Square();
  def.indices.assign(3 * (static_cast<size_t>(kMaxMeshTriangles) + 1), 0);
  ExpectError(status_of(def), absl::StatusCode::kResourceExhausted,
              "mesh.indices: 2097153 triangles, at most 2097152");
  def = Square();
  def.vertices.resize(static_cast<size_t>(kMaxMeshVertices) + 1);
  ExpectError(status_of(def), absl::StatusCode::kResourceExhausted,
              "mesh.vertices: 2097153 vertices, at most 2097152");
  // The caller's path prefix.
  def = Square();
  def.indices[1] = 4;
  ExpectError(TriangleMesh::Create(def, "terrains[1].mesh").status(), kInvalid,
              "terrains[1].mesh.indices[1]: 4 is out of range");
}

TEST(TriangleMeshTest, DownwardRayHitsTheRightTriangle) {
  const TriangleMesh mesh = MakeMesh(Square());
  EXPECT_EQ(mesh.triangle_count(), 2);
  EXPECT_EQ(mesh.vertex_count(), 4);
  RayHit hit = mesh.Raycast(Vec3(0.8, 1.5, 0.2), kDown, 2);
  ASSERT_TRUE(hit.hit);
  EXPECT_EQ(hit.distance, 1.5);
  EXPECT_EQ(hit.point, Vec3(0.8, 0, 0.2));
  EXPECT_EQ(hit.normal, Vec3(0, 1, 0));
  EXPECT_EQ(hit.kind, GroundKind::kMesh);
  EXPECT_EQ(hit.primitive, 0);
  hit = mesh.Raycast(Vec3(0.2, 1.5, 0.8), kDown, 2);
  ASSERT_TRUE(hit.hit);
  EXPECT_EQ(hit.primitive, 1);
  // On the shared diagonal both triangles are hit: the lower index wins.
  hit = mesh.Raycast(Vec3(0.5, 1.5, 0.5), kDown, 2);
  ASSERT_TRUE(hit.hit);
  EXPECT_EQ(hit.primitive, 0);
  EXPECT_FALSE(mesh.Raycast(Vec3(0.5, 1.5, 0.5), kDown, 1.4).hit);
  EXPECT_FALSE(mesh.Raycast(Vec3(1.5, 1.5, 0.5), kDown, 2).hit);
  EXPECT_FALSE(mesh.Raycast(Vec3(0.5, 1.5, 0.5), Vec3(0), 2).hit);
  EXPECT_FALSE(mesh.Raycast(Vec3(0.5, 1.5, 0.5), kDown, kNan).hit);
}

struct RandomMeshCase {
  const char* name;
  TriangleMeshDefinition definition;
};

std::vector<RandomMeshCase> RandomMeshes() {
  std::vector<RandomMeshCase> cases;
  cases.push_back({"soup", testing::RandomTriangleSoup(3000, 10.0, 31)});
  cases.push_back({"dense soup", testing::RandomTriangleSoup(20000, 4.0, 32)});
  std::mt19937_64 engine(33);
  std::uniform_real_distribution<double> bump(-0.3, 0.3);
  std::vector<double> bumps(40 * 30);
  for (double& b : bumps) b = bump(engine);
  cases.push_back({"bumpy grid", testing::GridMesh(
                                     [&](double x, double z) {
                                       const int column = static_cast<int>(
                                           std::lround(x / 0.2));
                                       const int row = static_cast<int>(
                                           std::lround(z / 0.25));
                                       return bumps[row * 40 + column];
                                     },
                                     Vec3(0), 0.2, 0.25, 40, 30, engine)});
  // Duplicated and overlapping coplanar triangles: exact ties everywhere.
  TriangleMeshDefinition duplicates = testing::RandomTriangleSoup(500, 3.0, 34);
  const size_t original = duplicates.indices.size();
  for (size_t i = 0; i < original; ++i) {
    duplicates.indices.push_back(duplicates.indices[i]);
  }
  cases.push_back({"duplicates", std::move(duplicates)});
  cases.push_back({"closed sphere", testing::ClosedBumpySphere(12, 35)});
  return cases;
}

// most_triangles_down bounds what a vertical ray may test: at least the
// triangles whose XZ extent covers any seeded point (a vertical ray there
// may have to test each), at most every triangle -- and, on meshes the grid
// serves, far fewer than every triangle.
TEST(TriangleMeshTest, MostTrianglesDownBoundsWhatAVerticalRayMayTest) {
  std::mt19937_64 engine(37);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::vector<RandomMeshCase> cases = RandomMeshes();
  // One spot under a stack of 300 triangles at different heights.
  TriangleMeshDefinition stack;
  for (int k = 0; k < 300; ++k) {
    const double y = 0.01 * k;
    const std::uint32_t first =
        static_cast<std::uint32_t>(stack.vertices.size());
    stack.vertices.insert(stack.vertices.end(),
                          {Vec3(0, y, 0), Vec3(1, y, 0), Vec3(0, y, 1)});
    stack.indices.insert(stack.indices.end(), {first, first + 1, first + 2});
  }
  cases.push_back({"stack", std::move(stack)});
  for (RandomMeshCase& test_case : cases) {
    const TriangleMesh mesh = MakeMesh(test_case.definition);
    const int bound = mesh.most_triangles_down();
    EXPECT_LE(bound, mesh.triangle_count()) << test_case.name;
    const Aabb& box = mesh.bounds();
    for (int i = 0; i < 300; ++i) {
      const double x = box.min.x + unit(engine) * (box.max.x - box.min.x);
      const double z = box.min.z + unit(engine) * (box.max.z - box.min.z);
      int covering = 0;
      for (int t = 0; t < mesh.triangle_count(); ++t) {
        double min_x = kInf, max_x = -kInf, min_z = kInf, max_z = -kInf;
        for (int k = 0; k < 3; ++k) {
          const Vec3& v = mesh.vertices()[mesh.indices()[3 * t + k]];
          min_x = std::min(min_x, v.x);
          max_x = std::max(max_x, v.x);
          min_z = std::min(min_z, v.z);
          max_z = std::max(max_z, v.z);
        }
        if (x >= min_x && x <= max_x && z >= min_z && z <= max_z) ++covering;
      }
      ASSERT_GE(bound, covering) << test_case.name << " at " << x << ", " << z;
    }
  }
  const TriangleMesh grid = MakeMesh(cases[2].definition);  // bumpy grid
  EXPECT_LT(grid.most_triangles_down(), grid.triangle_count() / 20);
  EXPECT_EQ(MakeMesh(cases.back().definition).most_triangles_down(), 300);
}

// The BVH answer equals the brute-force answer: same hit or miss, same
// distance (bit for bit, which is stronger than 1e-12), same triangle.
TEST(TriangleMeshTest, BvhAgreesWithBruteForceOnSeededRandomMeshes) {
  std::mt19937_64 engine(36);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (RandomMeshCase& test_case : RandomMeshes()) {
    const TriangleMesh mesh = MakeMesh(test_case.definition);
    const Aabb& box = mesh.bounds();
    const Vec3 extent = box.max - box.min;
    int hits = 0;
    const int kRays = 1500;
    for (int i = 0; i < kRays; ++i) {
      Vec3 origin =
          box.min + (testing::DrawVec3(unit, engine) * 1.4 - 0.2) * extent;
      Vec3 direction = testing::RandomDirection(engine);
      // Straight down and up take the BVH's vertical-ray path.
      if (i % 4 == 0) direction = i % 8 == 0 ? kDown : -kDown;
      if (i % 4 == 1) {  // aimed exactly at a vertex
        const int vertex = static_cast<int>(unit(engine) * mesh.vertex_count());
        direction = mesh.vertices()[vertex] - origin;
      }
      const std::optional<Ray> ray = Ray::Make(origin, direction);
      if (!ray.has_value()) continue;
      const double max_distance = i % 3 == 0 ? 0.3 * glm::length(extent) : kInf;
      const RayHit hit = mesh.Raycast(*ray, max_distance);
      const testing::BruteForceHit expected =
          testing::BruteForceRaycast(mesh, *ray, max_distance);
      ASSERT_EQ(hit.hit, expected.hit) << test_case.name << " ray " << i;
      if (!hit.hit) continue;
      ++hits;
      EXPECT_EQ(hit.distance, expected.distance) << test_case.name << " " << i;
      EXPECT_EQ(hit.primitive, expected.triangle) << test_case.name << " " << i;
      EXPECT_EQ(hit.point, ray->PointAt(expected.distance));
    }
    EXPECT_GT(hits, kRays / 5) << test_case.name;
  }
}

// Every ray from inside a closed mesh hits it, including rays aimed
// exactly at its vertices and at points of its edges: nothing slips
// through a shared edge or vertex.
TEST(TriangleMeshTest, ClosedMeshIsWatertight) {
  const TriangleMesh mesh = MakeMesh(testing::ClosedBumpySphere(16, 37));
  std::mt19937_64 engine(38);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  int lost = 0;
  for (int i = 0; i < 20000; ++i) {
    const Vec3 towards = testing::RandomDirection(engine);
    const Vec3 origin = towards * (0.8 * std::cbrt(unit(engine)));
    Vec3 target;
    const int triangle = static_cast<int>(unit(engine) * mesh.triangle_count());
    const Vec3 a = mesh.vertices()[mesh.indices()[3 * triangle]];
    const Vec3 b = mesh.vertices()[mesh.indices()[3 * triangle + 1]];
    switch (i % 3) {
      case 0:
        target = a;
        break;
      case 1:
        target = a + unit(engine) * (b - a);
        break;
      default:
        target = origin + testing::RandomDirection(engine);
        break;
    }
    lost += mesh.Raycast(origin, target - origin, kInf).hit ? 0 : 1;
  }
  EXPECT_EQ(lost, 0);
}

// Stairs with vertical risers, as a mesh and analytically.
TEST(TriangleMeshTest, AgreesWithAnalyticStairs) {
  const testing::ExtrudedProfile stairs =
      testing::Stairs(/*steps=*/6, /*run=*/0.28, /*rise=*/0.17,
                      /*start_x=*/-1.0, /*first_riser_x=*/0.0, /*end_x=*/2.5);
  const TriangleMesh mesh = MakeMesh(testing::ProfileMesh(stairs));
  std::mt19937_64 engine(39);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  int hits = 0, skipped = 0;
  for (int i = 0; i < 4000; ++i) {
    const Vec3 origin = Vec3(-1.0, 1.2, stairs.min_z) +
                        Vec3(3.5, 1.0, stairs.max_z - stairs.min_z) *
                            testing::DrawVec3(unit, engine);
    const Vec3 direction = testing::GroundRayDirection(i, engine);
    const auto expected = stairs.Intersect(origin, direction);
    const RayHit hit = mesh.Raycast(origin, direction, kInf);
    // Points within rounding of the mesh's outer border are ambiguous.
    const auto near_border = [&](const Vec3& p) {
      return testing::NearRectangleBorder(p, -1.0, 2.5, stairs.min_z,
                                          stairs.max_z);
    };
    if ((expected && near_border(origin + expected->distance * direction)) ||
        (hit.hit && near_border(hit.point))) {
      ++skipped;
      continue;
    }
    ASSERT_EQ(hit.hit, expected.has_value()) << i;
    if (!hit.hit) continue;
    ++hits;
    EXPECT_NEAR(hit.distance, expected->distance, kAnalyticTolerance) << i;
    EXPECT_NEAR(glm::length(hit.normal - expected->normal), 0.0, 1e-12) << i;
  }
  EXPECT_GT(hits, 1500);
  EXPECT_LT(skipped, 10);
}

TEST(TriangleMeshTest, AgreesWithAnAnalyticSlopeWhateverTheTriangulation) {
  testing::Slope slope;
  const int columns = 26, rows = 21;
  const double spacing_x = (slope.max_x - slope.min_x) / (columns - 1);
  const double spacing_z = (slope.max_z - slope.min_z) / (rows - 1);
  std::mt19937_64 engine(40);
  const TriangleMesh mesh = MakeMesh(testing::GridMesh(
      [&](double x, double z) { return slope.HeightAt(x, z); },
      Vec3(slope.min_x, 0, slope.min_z), spacing_x, spacing_z, columns, rows,
      engine));
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  int hits = 0;
  for (int i = 0; i < 3000; ++i) {
    const double x =  // drawn in order
        slope.min_x + 0.1 + (slope.max_x - slope.min_x - 0.2) * unit(engine);
    const Vec3 origin(
        x, 2.5,
        slope.min_z + 0.1 + (slope.max_z - slope.min_z - 0.2) * unit(engine));
    Vec3 direction = kDown;
    if (i % 2 != 0) {
      const double x = 0.02 * unit(engine);  // drawn in order
      direction = glm::normalize(Vec3(x, -1, -0.02 * unit(engine)));
    }
    const auto expected = slope.Intersect(origin, direction);
    const RayHit hit = mesh.Raycast(origin, direction, kInf);
    ASSERT_EQ(hit.hit, expected.has_value()) << i;
    if (!hit.hit) continue;
    ++hits;
    EXPECT_NEAR(hit.distance, expected->distance, kAnalyticTolerance) << i;
    EXPECT_NEAR(glm::length(hit.normal - expected->normal), 0.0, 1e-12) << i;
  }
  EXPECT_EQ(hits, 3000);  // the rays stay over the domain
}

TEST(TriangleMeshTest, CreateIsDeterministicAndQueriesRepeatBitForBit) {
  const TriangleMeshDefinition def = testing::RandomTriangleSoup(5000, 5.0, 41);
  const TriangleMesh first = MakeMesh(def);
  const TriangleMesh second = MakeMesh(def);
  ASSERT_EQ(first.bvh().nodes().size(), second.bvh().nodes().size());
  EXPECT_EQ(std::memcmp(first.bvh().nodes().data(), second.bvh().nodes().data(),
                        first.bvh().nodes().size() * sizeof(BvhNode)),
            0);
  std::mt19937_64 engine(42);
  std::uniform_real_distribution<double> unit(0.0, 5.0);
  for (int i = 0; i < 300; ++i) {
    const Vec3 origin = testing::DrawVec3(unit, engine) + Vec3(0.0, 2.0, 0.0);
    const Vec3 direction = testing::RandomDirection(engine);
    const RayHit a = first.Raycast(origin, direction, kInf);
    const RayHit b = second.Raycast(origin, direction, kInf);
    const RayHit c = first.Raycast(origin, direction, kInf);
    ASSERT_EQ(a.hit, b.hit);
    ASSERT_EQ(a.hit, c.hit);
    EXPECT_EQ(a.primitive, b.primitive);
    EXPECT_EQ(std::memcmp(&a.distance, &b.distance, sizeof(double)), 0);
    EXPECT_EQ(std::memcmp(&a.point, &c.point, sizeof(Vec3)), 0);
    EXPECT_EQ(std::memcmp(&a.normal, &c.normal, sizeof(Vec3)), 0);
  }
}

// A build that pauses between pieces (Pacer) builds the same mesh, and
// pauses about once per kPaceSteps steps: for 20,000 triangles, more than
// a pause per thousand triangles.
TEST(TriangleMeshTest, ABuildThatPausesBuildsTheSameMesh) {
  const TriangleMeshDefinition def =
      testing::RandomTriangleSoup(20000, 20.0, 43);
  const TriangleMesh whole = MakeMesh(def);
  int pauses = 0;
  absl::StatusOr<TriangleMesh> paused =
      TriangleMesh::Create(def, "mesh", [&pauses] { ++pauses; });
  ASSERT_TRUE(paused.ok()) << paused.status();
  EXPECT_GT(pauses, 20);
  ASSERT_EQ(whole.bvh().nodes().size(), paused->bvh().nodes().size());
  EXPECT_EQ(
      std::memcmp(whole.bvh().nodes().data(), paused->bvh().nodes().data(),
                  whole.bvh().nodes().size() * sizeof(BvhNode)),
      0);
  EXPECT_TRUE(std::equal(whole.bvh().order().begin(), whole.bvh().order().end(),
                         paused->bvh().order().begin(),
                         paused->bvh().order().end()));
  EXPECT_EQ(whole.most_triangles_down(), paused->most_triangles_down());
  std::mt19937_64 engine(44);
  std::uniform_real_distribution<double> unit(-1.0, 21.0);
  for (int i = 0; i < 500; ++i) {
    const double x = unit(engine);
    const double z = unit(engine);
    absl::Span<const std::int32_t> a, b;
    std::int32_t quarter_a = 0, quarter_b = 0;
    ASSERT_EQ(whole.grid().Find(x, z, &a, &quarter_a),
              paused->grid().Find(x, z, &b, &quarter_b));
    EXPECT_EQ(quarter_a, quarter_b);
    EXPECT_TRUE(std::equal(a.begin(), a.end(), b.begin(), b.end()));
  }
}

}  // namespace
}  // namespace ik
