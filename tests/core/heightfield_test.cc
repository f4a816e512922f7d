#include "ik/ground/heightfield.h"

#include <cmath>
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

Heightfield MakeField(HeightfieldDefinition definition) {
  absl::StatusOr<Heightfield> field =
      Heightfield::Create(std::move(definition));
  EXPECT_TRUE(field.ok()) << field.status();
  return *std::move(field);
}

HeightfieldDefinition Flat(int columns, int rows, double height) {
  HeightfieldDefinition def;
  def.columns = columns;
  def.rows = rows;
  def.heights.assign(columns * rows, height);
  return def;
}

TEST(HeightfieldTest, RejectsInvalidDefinitionsWithFieldPaths) {
  const absl::StatusCode kInvalid = absl::StatusCode::kInvalidArgument;
  const auto status_of = [](HeightfieldDefinition def) {
    return Heightfield::Create(std::move(def)).status();
  };
  HeightfieldDefinition def = Flat(3, 4, 0.0);
  def.origin.y = kNan;
  ExpectError(status_of(def), kInvalid, "heightfield.origin: not finite");
  def.origin = Vec3(0, 0, -2e9);
  ExpectError(status_of(def), kInvalid, "heightfield.origin: beyond");
  def = Flat(3, 4, 0.0);
  def.spacing_x = 0.0;
  ExpectError(status_of(def), kInvalid,
              "heightfield.spacing_x: must be finite and at least 1e-06 m, "
              "got 0");
  def.spacing_x = -1.0;
  ExpectError(status_of(def), kInvalid, "heightfield.spacing_x");
  def.spacing_x = kNan;
  ExpectError(status_of(def), kInvalid, "heightfield.spacing_x");
  def = Flat(3, 4, 0.0);
  def.spacing_z = kInf;
  ExpectError(status_of(def), kInvalid, "heightfield.spacing_z");
  def = Flat(3, 4, 0.0);
  def.columns = 1;
  ExpectError(status_of(def), kInvalid,
              "heightfield.columns: at least 2 needed, got 1");
  def = Flat(3, 4, 0.0);
  def.rows = 0;
  ExpectError(status_of(def), kInvalid,
              "heightfield.rows: at least 2 needed, got 0");
  def = Flat(3, 4, 0.0);
  def.heights.pop_back();
  ExpectError(status_of(def), kInvalid,
              "heightfield.heights: 11 values, expected 12 (3 columns x 4 "
              "rows)");
  def.heights.clear();
  ExpectError(status_of(def), kInvalid, "heightfield.heights: 0 values");
  def = Flat(3, 4, 0.0);
  def.heights[11] = kInf;
  ExpectError(status_of(def), kInvalid, "heightfield.heights[11]: not finite");
  def.heights[11] = kNan;
  ExpectError(status_of(def), kInvalid, "heightfield.heights[11]: not finite");
  def.heights[11] = 0.0;
  def.origin.y = 5e8;
  def.heights[7] = 6e8;
  ExpectError(status_of(def), kInvalid, "heightfield.heights[7]: beyond");
  def = Flat(3, 4, 0.0);
  def.spacing_x = 6e8;
  ExpectError(status_of(def), kInvalid,
              "heightfield.spacing_x: the grid reaches beyond");
  def = Flat(3, 4, 0.0);
  def.origin.z = -1e9;
  def.spacing_z = 7e8;  // reaches 1.1e9
  ExpectError(status_of(def), kInvalid,
              "heightfield.spacing_z: the grid reaches beyond");
  // Size limit before the heights are even looked at.
  def = {};
  def.columns = 5000;
  def.rows = 5000;
  ExpectError(status_of(def), absl::StatusCode::kResourceExhausted,
              "heightfield.heights: 5000 x 5000 samples, at most 16777216");
  def.columns = 1 << 20;
  def.rows = 1 << 20;  // the product overflows an int
  ExpectError(status_of(def), absl::StatusCode::kResourceExhausted,
              "heightfield.heights");
  // The caller's path prefix.
  def = Flat(3, 4, 0.0);
  def.heights[2] = kNan;
  ExpectError(Heightfield::Create(def, "terrain.heightfield").status(),
              kInvalid, "terrain.heightfield.heights[2]: not finite");
}

TEST(HeightfieldTest, DownwardRayHitsTheSurfaceWithNumberedTriangles) {
  HeightfieldDefinition def = Flat(4, 3, 0.0);
  def.origin = Vec3(-1, 0.5, 2);
  def.spacing_x = 0.5;
  def.spacing_z = 0.25;
  const Heightfield field = MakeField(def);
  EXPECT_EQ(field.triangle_count(), 12);
  EXPECT_EQ(field.Vertex(3, 2), Vec3(0.5, 0.5, 2.5));
  // Cell (column 1, row 1), below its diagonal (x - x0 > z - z0): half 0.
  RayHit hit = field.Raycast(Vec3(-0.2, 3, 2.3), kDown, 5);
  ASSERT_TRUE(hit.hit);
  EXPECT_EQ(hit.distance, 2.5);
  EXPECT_EQ(hit.point, Vec3(-0.2, 0.5, 2.3));
  EXPECT_EQ(hit.normal, Vec3(0, 1, 0));
  EXPECT_EQ(hit.kind, GroundKind::kHeightfield);
  EXPECT_EQ(hit.primitive, 2 * (1 * 3 + 1) + 0);
  // Same cell, above the diagonal: half 1.
  hit = field.Raycast(Vec3(-0.45, 3, 2.45), kDown, 5);
  ASSERT_TRUE(hit.hit);
  EXPECT_EQ(hit.primitive, 2 * (1 * 3 + 1) + 1);
  // From below, the normal faces down.
  hit = field.Raycast(Vec3(-0.2, -1, 2.3), Vec3(0, 1, 0), 5);
  ASSERT_TRUE(hit.hit);
  EXPECT_EQ(hit.normal, Vec3(0, -1, 0));
}

TEST(HeightfieldTest, MissesOffTheGridBeyondTheMaximumAndForInvalidRays) {
  const Heightfield field = MakeField(Flat(5, 5, 0.0));  // [0,4] x [0,4]
  EXPECT_FALSE(field.Raycast(Vec3(-0.01, 1, 2), kDown, 5).hit);
  EXPECT_FALSE(field.Raycast(Vec3(2, 1, 4.01), kDown, 5).hit);
  EXPECT_FALSE(field.Raycast(Vec3(2, 1, 2), Vec3(0, 1, 0), 5).hit);
  EXPECT_FALSE(field.Raycast(Vec3(2, 1, 2), kDown, 0.99).hit);
  EXPECT_TRUE(field.Raycast(Vec3(2, 1, 2), kDown, 1.0).hit);
  EXPECT_FALSE(field.Raycast(Vec3(2, 1, 2), Vec3(0), 5).hit);
  EXPECT_FALSE(field.Raycast(Vec3(2, kInf, 2), kDown, 5).hit);
  EXPECT_FALSE(field.Raycast(Vec3(2, 1, 2), kDown, -1).hit);
  // Horizontal rays in the surface's plane miss (parallel).
  EXPECT_FALSE(field.Raycast(Vec3(-1, 0, 2), Vec3(1, 0, 0), kInf).hit);
  // The grid's outer edges and corners are ground.
  EXPECT_TRUE(field.Raycast(Vec3(0, 1, 0), kDown, 5).hit);
  EXPECT_TRUE(field.Raycast(Vec3(4, 1, 4), kDown, 5).hit);
  EXPECT_TRUE(field.Raycast(Vec3(4, 1, 1.3), kDown, 5).hit);
}

TEST(HeightfieldTest, AgreesWithAnAnalyticSlope) {
  testing::Slope slope;
  slope.min_x = -2.0;
  slope.min_z = -1.5;
  const double spacing_x = 0.125, spacing_z = 0.2;
  const int columns = 41, rows = 21;
  slope.max_x = slope.min_x + (columns - 1) * spacing_x;
  slope.max_z = slope.min_z + (rows - 1) * spacing_z;
  const Heightfield field = MakeField(testing::SampledHeightfield(
      [&](double x, double z) { return slope.HeightAt(x, z); },
      Vec3(slope.min_x, 0.1, slope.min_z), spacing_x, spacing_z, columns,
      rows));
  std::mt19937_64 engine(21);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  int hits = 0, skipped = 0;
  for (int i = 0; i < 4000; ++i) {
    const Vec3 origin =
        Vec3(slope.min_x, 3.0, slope.min_z) +
        Vec3(slope.max_x - slope.min_x, 1.0, slope.max_z - slope.min_z) *
            testing::DrawVec3(unit, engine);
    const Vec3 direction = testing::GroundRayDirection(i, engine);
    const auto expected = slope.Intersect(origin, direction);
    const RayHit hit = field.Raycast(origin, direction, kInf);
    if ((expected && testing::NearRectangleBorder(
                         origin + expected->distance * direction, slope.min_x,
                         slope.max_x, slope.min_z, slope.max_z)) ||
        (hit.hit &&
         testing::NearRectangleBorder(hit.point, slope.min_x, slope.max_x,
                                      slope.min_z, slope.max_z))) {
      ++skipped;
      continue;
    }
    ASSERT_EQ(hit.hit, expected.has_value()) << i;
    if (!hit.hit) continue;
    ++hits;
    EXPECT_NEAR(hit.distance, expected->distance, kAnalyticTolerance) << i;
    EXPECT_NEAR(glm::length(hit.normal - expected->normal), 0.0, 1e-12) << i;
    EXPECT_NEAR(hit.point.y, slope.HeightAt(hit.point.x, hit.point.z),
                kAnalyticTolerance);
  }
  EXPECT_GT(hits, 1200);
  EXPECT_LT(skipped, 10);
}

// Stairs whose risers take one cell (a heightfield cannot hold a vertical
// face): the analytic surface is the piecewise-linear profile through the
// stair's corners, every kink on a grid line.
TEST(HeightfieldTest, AgreesWithAnalyticStairsWithKinksOnGridLines) {
  const Vec3 origin(-1.0, 0.0, -0.6);
  const double spacing_x = 0.1;
  const int columns = 61;
  const auto [def, profile] = testing::GridStairs(
      origin, spacing_x, /*spacing_z=*/0.15, columns, /*rows=*/9,
      /*rise=*/0.17);
  const Heightfield field = MakeField(def);
  const double max_x = origin.x + (columns - 1) * spacing_x;
  std::mt19937_64 engine(22);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  int hits = 0, skipped = 0;
  for (int i = 0; i < 4000; ++i) {
    const Vec3 ray_origin =
        Vec3(origin.x, 2.5, profile.min_z) +
        Vec3(max_x - origin.x, 1.0, profile.max_z - profile.min_z) *
            testing::DrawVec3(unit, engine);
    const Vec3 direction = testing::GroundRayDirection(i, engine);
    const auto expected = profile.Intersect(ray_origin, direction);
    const RayHit hit = field.Raycast(ray_origin, direction, kInf);
    if ((expected && testing::NearRectangleBorder(
                         ray_origin + expected->distance * direction, origin.x,
                         max_x, profile.min_z, profile.max_z)) ||
        (hit.hit &&
         testing::NearRectangleBorder(hit.point, origin.x, max_x, profile.min_z,
                                      profile.max_z))) {
      ++skipped;
      continue;
    }
    ASSERT_EQ(hit.hit, expected.has_value()) << i;
    if (!hit.hit) continue;
    ++hits;
    EXPECT_NEAR(hit.distance, expected->distance, kAnalyticTolerance) << i;
    EXPECT_NEAR(glm::length(hit.normal - expected->normal), 0.0, 1e-12) << i;
  }
  EXPECT_GT(hits, 1200);
  EXPECT_LT(skipped, 10);
}

// The traversal finds exactly what testing every triangle finds: same
// hit or miss, same distance bit for bit, same triangle. Random heights;
// rays of every kind, including ones exactly on grid lines and vertices.
TEST(HeightfieldTest, MatchesBruteForceOverItsTriangles) {
  std::mt19937_64 engine(23);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (int trial = 0; trial < 4; ++trial) {
    const int columns = 6 + trial * 9, rows = 4 + trial * 7;
    HeightfieldDefinition def;
    def.origin = Vec3(-3.1 + trial, 0.5, 2.2 - trial);
    def.spacing_x = 0.25 + 0.1 * trial;
    def.spacing_z = 0.4 - 0.05 * trial;
    def.columns = columns;
    def.rows = rows;
    for (int i = 0; i < columns * rows; ++i) {
      def.heights.push_back(trial == 3 && i % 5 != 0 ? 0.0 : unit(engine));
    }
    const Heightfield field = MakeField(def);
    const Aabb& box = field.bounds();
    const Vec3 extent = box.max - box.min;
    int hits = 0;
    for (int i = 0; i < 1500; ++i) {
      Vec3 origin =
          box.min + (testing::DrawVec3(unit, engine) * Vec3(1.4, 3.0, 1.4) -
                     Vec3(0.2, 1.0, 0.2)) *
                        extent;
      Vec3 direction = testing::RandomDirection(engine);
      const int column = static_cast<int>(unit(engine) * columns);
      const int row = static_cast<int>(unit(engine) * rows);
      switch (i % 5) {
        case 0:  // vertical through a grid vertex
          origin = field.Vertex(column, row) + Vec3(0, 2, 0);
          direction = kDown;
          break;
        case 1:  // vertical on a grid line
          origin.x = field.Vertex(column, row).x;
          direction = kDown;
          break;
        case 2:  // aimed at a vertex from anywhere
          direction = field.Vertex(column, row) - origin;
          break;
        case 3:  // horizontal along a grid line
          origin.z = field.Vertex(column, row).z;
          direction.y = 0.0;
          break;
        default:
          break;
      }
      const std::optional<Ray> ray = Ray::Make(origin, direction);
      if (!ray.has_value()) continue;
      const double max_distance = i % 3 == 0 ? 1.5 : kInf;
      const RayHit hit = field.Raycast(*ray, max_distance);
      const testing::BruteForceHit expected =
          testing::BruteForceRaycast(field, *ray, max_distance);
      ASSERT_EQ(hit.hit, expected.hit) << "trial " << trial << " ray " << i;
      if (!hit.hit) continue;
      ++hits;
      EXPECT_EQ(hit.distance, expected.distance) << trial << " " << i;
      EXPECT_EQ(hit.primitive, expected.triangle) << trial << " " << i;
    }
    EXPECT_GT(hits, 300);
  }
}

// Vertical rays through every grid vertex and every edge midpoint, and
// tilted rays aimed exactly at vertices, all hit.
TEST(HeightfieldTest, GridVerticesAndEdgesAreNotLost) {
  std::mt19937_64 engine(24);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  HeightfieldDefinition def;
  def.origin = Vec3(0.3, -0.2, -0.7);
  def.spacing_x = 0.1;
  def.spacing_z = 0.3;
  def.columns = 23;
  def.rows = 17;
  for (int i = 0; i < def.columns * def.rows; ++i) {
    // Gentle bumps (gradient below 0.35) so that rays steeper than that
    // (below) cannot graze a peak: each crosses the surface exactly once.
    def.heights.push_back(0.03 * unit(engine));
  }
  const Heightfield field = MakeField(def);
  int lost = 0, total = 0;
  for (int row = 0; row < def.rows; ++row) {
    for (int column = 0; column < def.columns; ++column) {
      std::vector<Vec3> targets = {field.Vertex(column, row)};
      if (column + 1 < def.columns) {
        targets.push_back(
            0.5 * (field.Vertex(column, row) + field.Vertex(column + 1, row)));
      }
      if (row + 1 < def.rows) {
        targets.push_back(
            0.5 * (field.Vertex(column, row) + field.Vertex(column, row + 1)));
      }
      for (const Vec3& target : targets) {
        ++total;
        const bool hit = field.Raycast(target + Vec3(0, 1, 0), kDown, 2).hit;
        EXPECT_TRUE(hit) << "vertical at " << column << " " << row;
        lost += hit ? 0 : 1;
      }
      // Aimed rays pass within rounding of the vertex: at the grid's
      // outer border that may be just outside, so interior vertices only.
      if (column == 0 || row == 0 || column + 1 == def.columns ||
          row + 1 == def.rows) {
        continue;
      }
      const Vec3 vertex = field.Vertex(column, row);
      Vec3 direction = testing::RandomDirection(engine);
      direction.y = -std::max(std::abs(direction.y), 0.6);  // slope >= 0.75
      const Vec3 origin = vertex - 3.0 * direction;
      ++total;
      const bool hit = field.Raycast(origin, vertex - origin, kInf).hit;
      EXPECT_TRUE(hit) << "aimed at " << column << " " << row;
      lost += hit ? 0 : 1;
    }
  }
  EXPECT_EQ(lost, 0) << "of " << total;
}

TEST(HeightfieldTest, RepeatedQueriesGiveIdenticalBits) {
  std::mt19937_64 engine(25);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  HeightfieldDefinition def = Flat(20, 20, 0.0);
  for (double& height : def.heights) height = unit(engine);
  const Heightfield field = MakeField(def);
  for (int i = 0; i < 200; ++i) {
    const double x = 19 * unit(engine);  // drawn in order
    const Vec3 origin(x, 2, 19 * unit(engine));
    const Vec3 direction = testing::GroundRayDirection(i, engine);
    const RayHit first = field.Raycast(origin, direction, kInf);
    const RayHit again = field.Raycast(origin, direction, kInf);
    ASSERT_EQ(first.hit, again.hit);
    EXPECT_EQ(std::memcmp(&first.distance, &again.distance, sizeof(double)), 0);
    EXPECT_EQ(std::memcmp(&first.point, &again.point, sizeof(Vec3)), 0);
    EXPECT_EQ(std::memcmp(&first.normal, &again.normal, sizeof(Vec3)), 0);
    EXPECT_EQ(first.primitive, again.primitive);
  }
}

TEST(HeightfieldTest, ExtremeButValidInputGivesNoNan) {
  HeightfieldDefinition def = Flat(3, 3, 0.0);
  def.origin = Vec3(9e8, -9e8, 9e8);
  def.spacing_x = 1e7;
  def.spacing_z = 1e-6;
  def.heights = {0, 1e8, -1e8, 5, 0, 1, 0, 0, 3e8};
  const Heightfield field = MakeField(def);
  std::mt19937_64 engine(26);
  for (int i = 0; i < 200; ++i) {
    const Vec3 origin(-9e8, 9e8, -9e8 + i);
    const RayHit hit = field.Raycast(origin,
                                     field.Vertex(i % 3, (i / 3) % 3) - origin +
                                         testing::RandomDirection(engine),
                                     kInf);
    if (hit.hit) {
      EXPECT_TRUE(IsFinite(hit.point));
      EXPECT_TRUE(IsFinite(hit.normal));
      EXPECT_TRUE(std::isfinite(hit.distance));
    }
  }
}

}  // namespace
}  // namespace ik
