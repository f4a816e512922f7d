#include "ik/ground/ground_plane.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "draws.h"
#include "gtest/gtest.h"
#include "terrain_shapes.h"

namespace ik {
namespace {

using ::ik::testing::ExpectError;
using ::ik::testing::kDown;

constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

GroundPlane MakePlane(const GroundPlaneDefinition& definition) {
  absl::StatusOr<GroundPlane> plane = GroundPlane::Create(definition);
  EXPECT_TRUE(plane.ok()) << plane.status();
  return *plane;
}

TEST(GroundPlaneTest, RejectsInvalidDefinitionsWithFieldPaths) {
  const auto status_of = [](GroundPlaneDefinition definition,
                            absl::string_view path = "plane") {
    return GroundPlane::Create(definition, path).status();
  };
  const absl::StatusCode kInvalid = absl::StatusCode::kInvalidArgument;
  GroundPlaneDefinition def;
  def.point = Vec3(kNan, 0, 0);
  ExpectError(status_of(def), kInvalid, "plane.point: not finite");
  def.point = Vec3(0, 2e9, 0);
  ExpectError(status_of(def), kInvalid, "plane.point: beyond");
  def = {};
  def.normal = Vec3(0, kInf, 0);
  ExpectError(status_of(def), kInvalid, "plane.normal: not finite");
  def.normal = Vec3(0);
  ExpectError(status_of(def, "planes[2]"), kInvalid,
              "planes[2].normal: zero length");
  def.normal = Vec3(1e-13, 0, 0);
  ExpectError(status_of(def), kInvalid, "plane.normal: zero length");
  def = {};
  def.rectangle_xz = RectangleXZ{0, kNan, 0, 1};
  ExpectError(status_of(def), kInvalid, "plane.rectangle_xz: not finite");
  def.rectangle_xz = RectangleXZ{3, 1, 0, 1};
  ExpectError(status_of(def), kInvalid,
              "plane.rectangle_xz: min_x 3 is greater than max_x 1");
  def.rectangle_xz = RectangleXZ{0, 1, 0.5, -0.5};
  ExpectError(status_of(def), kInvalid, "plane.rectangle_xz: min_z 0.5");
  def = {};
  def.radius = 0.0;
  ExpectError(status_of(def), kInvalid,
              "plane.radius: must be finite and > 0, got 0");
  def.radius = kInf;
  ExpectError(status_of(def), kInvalid, "plane.radius");
  def.radius = kNan;
  ExpectError(status_of(def), kInvalid, "plane.radius");
}

TEST(GroundPlaneTest, NormalisesTheNormal) {
  GroundPlaneDefinition def;
  def.normal = Vec3(0, 1e300, 1e300);
  const GroundPlane plane = MakePlane(def);
  EXPECT_NEAR(glm::length(plane.normal()), 1.0, 1e-15);
  def.normal = Vec3(0, 5, 0);
  EXPECT_EQ(MakePlane(def).normal(), Vec3(0, 1, 0));
}

TEST(GroundPlaneTest, DownwardRayHitsAFlatFloor) {
  GroundPlaneDefinition def;
  def.point = Vec3(10, 0.25, -3);
  const GroundPlane plane = MakePlane(def);
  const RayHit hit = plane.Raycast(Vec3(1, 2, 3), kDown, 5.0);
  ASSERT_TRUE(hit.hit);
  EXPECT_EQ(hit.distance, 1.75);
  EXPECT_EQ(hit.point, Vec3(1, 0.25, 3));
  EXPECT_EQ(hit.normal, Vec3(0, 1, 0));
  EXPECT_EQ(hit.kind, GroundKind::kPlane);
  EXPECT_EQ(hit.primitive, -1);
  EXPECT_EQ(hit.source, -1);
}

TEST(GroundPlaneTest, NormalFacesTheRaysSide) {
  const GroundPlane plane = MakePlane({});
  const RayHit from_below = plane.Raycast(Vec3(0, -1, 0), Vec3(0, 1, 0), 2.0);
  ASSERT_TRUE(from_below.hit);
  EXPECT_EQ(from_below.normal, Vec3(0, -1, 0));
}

TEST(GroundPlaneTest, MissesParallelBehindAndBeyondTheMaximum) {
  const GroundPlane plane = MakePlane({});
  EXPECT_FALSE(plane.Raycast(Vec3(0, 1, 0), Vec3(1, 0, 0), kInf).hit);
  EXPECT_FALSE(plane.Raycast(Vec3(0, 0, 0), Vec3(1, 0, 0), kInf).hit);
  EXPECT_FALSE(plane.Raycast(Vec3(0, 1, 0), Vec3(0, 1, 0), kInf).hit);
  EXPECT_FALSE(plane.Raycast(Vec3(0, 1, 0), kDown, 0.999).hit);
  EXPECT_TRUE(plane.Raycast(Vec3(0, 1, 0), kDown, 1.0).hit);
  // Invalid rays and maxima miss rather than fail.
  EXPECT_FALSE(plane.Raycast(Vec3(0, 1, 0), Vec3(0), 2.0).hit);
  EXPECT_FALSE(plane.Raycast(Vec3(0, kNan, 0), kDown, 2.0).hit);
  EXPECT_FALSE(plane.Raycast(Vec3(0, 1, 0), kDown, -1.0).hit);
  EXPECT_FALSE(plane.Raycast(Vec3(0, 1, 0), kDown, kNan).hit);
}

TEST(GroundPlaneTest, RectangleBoundsAreInclusive) {
  GroundPlaneDefinition def;
  def.rectangle_xz = RectangleXZ{-1, 2, 0.5, 1.5};
  const GroundPlane plane = MakePlane(def);
  EXPECT_TRUE(plane.Raycast(Vec3(0, 1, 1), kDown, 2).hit);
  EXPECT_TRUE(plane.Raycast(Vec3(-1, 1, 0.5), kDown, 2).hit);  // corner
  EXPECT_TRUE(plane.Raycast(Vec3(2, 1, 1.5), kDown, 2).hit);   // corner
  EXPECT_FALSE(plane.Raycast(Vec3(2.001, 1, 1), kDown, 2).hit);
  EXPECT_FALSE(plane.Raycast(Vec3(0, 1, 0.499), kDown, 2).hit);
}

TEST(GroundPlaneTest, RadiusBoundsMeasureInThePlane) {
  GroundPlaneDefinition def;
  def.point = Vec3(1, 0, 1);
  def.normal = Vec3(-1, 1, 0);  // y = x - 1: a 45 degree ramp
  def.radius = 1.0;
  const GroundPlane plane = MakePlane(def);
  // Straight down at x = 1.5: the ramp is at y = 0.5, 0.707 m from point.
  RayHit hit = plane.Raycast(Vec3(1.5, 2, 1), kDown, 5);
  ASSERT_TRUE(hit.hit);
  EXPECT_NEAR(hit.point.y, 0.5, 1e-15);
  EXPECT_NEAR(hit.normal.x, -std::sqrt(0.5), 1e-15);
  EXPECT_NEAR(hit.normal.y, std::sqrt(0.5), 1e-15);
  // At x = 1.8 the hit is 0.8 * sqrt(2) = 1.13 m away in the plane.
  EXPECT_FALSE(plane.Raycast(Vec3(1.8, 2, 1), kDown, 5).hit);
}

TEST(GroundPlaneTest, AgreesWithTheAnalyticSlopeOnRandomRays) {
  const testing::Slope slope;
  GroundPlaneDefinition def;
  def.point = Vec3(0, slope.height, 0);
  def.normal = Vec3(-slope.slope_x, 1, -slope.slope_z);
  def.rectangle_xz =
      RectangleXZ{slope.min_x, slope.max_x, slope.min_z, slope.max_z};
  const GroundPlane plane = MakePlane(def);
  std::mt19937_64 engine(5);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  int hits = 0;
  for (int i = 0; i < 2000; ++i) {
    const Vec3 origin = Vec3(-3.0, 2.0, -2.0) +
                        Vec3(7.0, 1.0, 5.0) * testing::DrawVec3(unit, engine);
    const Vec3 direction =
        i % 4 == 0 ? kDown : testing::RandomDirection(engine);
    const auto expected = slope.Intersect(origin, direction);
    const RayHit hit = plane.Raycast(origin, direction, kInf);
    ASSERT_EQ(hit.hit, expected.has_value()) << i;
    if (!hit.hit) continue;
    ++hits;
    EXPECT_NEAR(hit.distance, expected->distance, 1e-12);
    EXPECT_NEAR(glm::length(hit.normal - expected->normal), 0.0, 1e-15);
  }
  EXPECT_GT(hits, 400);
}

TEST(GroundPlaneTest, RepeatedQueriesGiveIdenticalBits) {
  GroundPlaneDefinition def;
  def.point = Vec3(0.1, 0.2, 0.3);
  def.normal = Vec3(0.3, 1, -0.7);
  const GroundPlane plane = MakePlane(def);
  const RayHit first = plane.Raycast(Vec3(0.7, 3, -1.1), Vec3(0.2, -1, 0.1), 9);
  for (int i = 0; i < 100; ++i) {
    const RayHit again =
        plane.Raycast(Vec3(0.7, 3, -1.1), Vec3(0.2, -1, 0.1), 9);
    EXPECT_EQ(std::memcmp(&first.distance, &again.distance, sizeof(double)), 0);
    EXPECT_EQ(std::memcmp(&first.point, &again.point, sizeof(Vec3)), 0);
    EXPECT_EQ(std::memcmp(&first.normal, &again.normal, sizeof(Vec3)), 0);
  }
}

}  // namespace
}  // namespace ik
