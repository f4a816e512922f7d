// Heightfield::Raycast's path for rays straight up or down (no cell walk)
// against brute force over every triangle: the same hit or miss, distance,
// point, normal and triangle, bit for bit, on seeded fields and rays through
// vertices, edges and cell borders (and one ulp either side).
#include <cmath>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "ik/geometry/ray.h"
#include "ik/geometry/ray_triangle.h"
#include "ik/ground/heightfield.h"
#include "terrain_shapes.h"

namespace ik {
namespace {

using ::ik::testing::kDown;

constexpr double kInf = std::numeric_limits<double>::infinity();

// The triangle `primitive` of the field, as RayHit::primitive numbers them.
void TriangleOf(const Heightfield& field, int primitive, Vec3* a, Vec3* b,
                Vec3* c) {
  const int cells_x = field.columns() - 1;
  const int column = (primitive / 2) % cells_x;
  const int row = (primitive / 2) / cells_x;
  *a = field.Vertex(column, row);
  *b = field.Vertex(column + 1, primitive % 2 == 0 ? row : row + 1);
  *c = primitive % 2 == 0 ? field.Vertex(column + 1, row + 1)
                          : field.Vertex(column, row + 1);
}

Heightfield RandomField(int trial, std::mt19937_64& engine) {
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  HeightfieldDefinition def;
  def.origin = Vec3(-3.1 + 7.3 * trial, 0.5, 2.2 - 1.1 * trial);
  if (trial == 3) def.origin = Vec3(1e6 + 0.1, 20.0, -3e5);  // far away
  def.spacing_x = 0.25 + 0.1 * trial;
  def.spacing_z = 0.4 - 0.05 * trial;
  def.columns = 8 + trial * 11;
  def.rows = 5 + trial * 9;
  for (int i = 0; i < def.columns * def.rows; ++i) {
    // Trial 2 is mostly flat: rays over edges meet two triangles at the
    // same distance.
    def.heights.push_back(trial == 2 && i % 7 != 0 ? 0.0 : unit(engine));
  }
  absl::StatusOr<Heightfield> field = Heightfield::Create(def);
  EXPECT_TRUE(field.ok()) << field.status();
  return *std::move(field);
}

TEST(HeightfieldVerticalTest, VerticalRaysMatchBruteForceBitForBit) {
  std::mt19937_64 engine(96);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (int trial = 0; trial < 4; ++trial) {
    const Heightfield field = RandomField(trial, engine);
    const Aabb& box = field.bounds();
    const Vec3 extent = box.max - box.min;
    int hits = 0;
    for (int i = 0; i < 3000; ++i) {
      const int column = static_cast<int>(unit(engine) * field.columns());
      const int row = static_cast<int>(unit(engine) * field.rows());
      const Vec3 vertex = field.Vertex(column, row);
      Vec3 origin = box.min + Vec3(unit(engine) * 1.2 - 0.1, 0.0,
                                   unit(engine) * 1.2 - 0.1) *
                                  extent;
      switch (i % 6) {
        case 1:  // through a grid vertex
          origin = vertex;
          break;
        case 2:  // on a grid line along z
          origin.x = vertex.x;
          break;
        case 3:  // one ulp off a grid line
          origin.z = std::nextafter(vertex.z, i % 12 == 3 ? -kInf : kInf);
          break;
        case 4:  // through the midpoint of a cell's diagonal
          origin = 0.5 * (vertex + field.Vertex(std::max(column - 1, 0),
                                                std::max(row - 1, 0)));
          break;
        default:
          break;
      }
      const bool up = i % 5 == 4;
      origin.y = up ? box.min.y - 0.3 : box.max.y + 0.3 + unit(engine);
      const std::optional<Ray> ray = Ray::Make(origin, up ? -kDown : kDown);
      ASSERT_TRUE(ray.has_value());
      const double max_distance = i % 3 == 0 ? kInf : 0.5 + extent.y;
      const RayHit hit = field.Raycast(*ray, max_distance);
      const testing::BruteForceHit expected =
          testing::BruteForceRaycast(field, *ray, max_distance);
      const std::string what =
          "trial " + std::to_string(trial) + " ray " + std::to_string(i);
      ASSERT_EQ(hit.hit, expected.hit) << what;
      if (!hit.hit) continue;
      ++hits;
      EXPECT_EQ(hit.distance, expected.distance) << what;
      EXPECT_EQ(hit.primitive, expected.triangle) << what;
      EXPECT_EQ(hit.point, ray->PointAt(expected.distance)) << what;
      Vec3 a, b, c;
      TriangleOf(field, expected.triangle, &a, &b, &c);
      EXPECT_EQ(hit.normal, FacingNormal(a, b, c, ray->direction())) << what;
      EXPECT_EQ(hit.kind, GroundKind::kHeightfield);
    }
    EXPECT_GT(hits, 1200) << trial;
  }
}

// PrefetchVertical only warms the cache: the same answers after it,
// whatever the points.
TEST(HeightfieldVerticalTest, PrefetchChangesNoAnswer) {
  std::mt19937_64 engine(99);
  const Heightfield field = RandomField(1, engine);
  const Aabb& box = field.bounds();
  std::uniform_real_distribution<double> unit(-0.2, 1.2);
  std::vector<Vec3> points;
  std::vector<RayHit> before;
  for (int i = 0; i < 20; ++i) {
    points.push_back(box.min + Vec3(unit(engine), 2.0, unit(engine)) *
                                   (box.max - box.min + Vec3(1.0)));
    before.push_back(field.Raycast(points.back(), kDown, kInf));
  }
  points.push_back(Vec3(std::numeric_limits<double>::quiet_NaN()));
  points.push_back(Vec3(1e9, 0.0, -1e9));
  field.PrefetchVertical(points);
  for (int i = 0; i < 20; ++i) {
    const RayHit hit = field.Raycast(points[i], kDown, kInf);
    ASSERT_EQ(hit.hit, before[i].hit) << i;
    EXPECT_EQ(hit.distance, before[i].distance) << i;
    EXPECT_EQ(hit.primitive, before[i].primitive) << i;
    EXPECT_EQ(hit.normal, before[i].normal) << i;
  }
}

// Rays a hair off vertical take the cell walk; they agree with brute force
// as the vertical ones do, so the two paths meet seamlessly.
TEST(HeightfieldVerticalTest, NearlyVerticalRaysMatchBruteForce) {
  std::mt19937_64 engine(97);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::uniform_real_distribution<double> tilt(-1e-9, 1e-9);
  for (int trial = 0; trial < 3; ++trial) {
    const Heightfield field = RandomField(trial, engine);
    const Aabb& box = field.bounds();
    for (int i = 0; i < 1000; ++i) {
      const int column = static_cast<int>(unit(engine) * field.columns());
      const int row = static_cast<int>(unit(engine) * field.rows());
      Vec3 origin = field.Vertex(column, row);
      origin.y = box.max.y + 0.3;
      const Vec3 direction(tilt(engine), -1.0, i % 2 == 0 ? 0.0 : tilt(engine));
      const std::optional<Ray> ray = Ray::Make(origin, direction);
      ASSERT_TRUE(ray.has_value());
      const RayHit hit = field.Raycast(*ray, kInf);
      const testing::BruteForceHit expected =
          testing::BruteForceRaycast(field, *ray, kInf);
      ASSERT_EQ(hit.hit, expected.hit) << trial << " " << i;
      if (!hit.hit) continue;
      EXPECT_EQ(hit.distance, expected.distance) << trial << " " << i;
      EXPECT_EQ(hit.primitive, expected.triangle) << trial << " " << i;
    }
  }
}

}  // namespace
}  // namespace ik
