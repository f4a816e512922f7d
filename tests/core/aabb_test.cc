#include "ik/geometry/aabb.h"

#include <cmath>
#include <limits>
#include <optional>
#include <random>

#include "draws.h"
#include "gtest/gtest.h"
#include "ik/geometry/ray.h"

namespace ik {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

Ray MakeRay(const Vec3& origin, const Vec3& direction) {
  std::optional<Ray> ray = Ray::Make(origin, direction);
  EXPECT_TRUE(ray.has_value());
  return *ray;
}

Aabb Box(const Vec3& min, const Vec3& max) {
  Aabb box;
  box.Extend(min);
  box.Extend(max);
  return box;
}

TEST(AabbTest, StartsEmptyAndGrows) {
  Aabb box;
  EXPECT_TRUE(box.IsEmpty());
  EXPECT_EQ(box.SurfaceArea(), 0.0);
  box.Extend(Vec3(1, 2, 3));
  EXPECT_FALSE(box.IsEmpty());
  box.Extend(Box(Vec3(-1, 0, 0), Vec3(0, 0, 4)));
  EXPECT_EQ(box.min, Vec3(-1, 0, 0));
  EXPECT_EQ(box.max, Vec3(1, 2, 4));
  EXPECT_EQ(box.Center(), Vec3(0, 1, 2));
  EXPECT_EQ(box.SurfaceArea(), 2.0 * (2 * 2 + 2 * 4 + 4 * 2));
}

TEST(AabbTest, PaddingGrowsWithTheCoordinates) {
  const Aabb small = PaddedForRays(Box(Vec3(0), Vec3(1)));
  EXPECT_LT(small.min.x, 0.0);
  EXPECT_GT(small.max.x, 1.0);
  EXPECT_LE(small.max.x, 1.0 + 3e-9);
  const Aabb far = PaddedForRays(Box(Vec3(1e6), Vec3(1e6 + 1)));
  EXPECT_LT(far.min.x, 1e6 - 1e-4);
}

TEST(AabbTest, ClipsARayThroughTheBox) {
  const Aabb box = Box(Vec3(-1, 0, -1), Vec3(1, 2, 1));
  const Ray ray = MakeRay(Vec3(0, 5, 0), Vec3(0, -1, 0));
  double entry, exit;
  ASSERT_TRUE(ClipRayToAabb(ray, box, kInf, &entry, &exit));
  EXPECT_DOUBLE_EQ(entry, 3.0);
  EXPECT_DOUBLE_EQ(exit, 5.0);
  // Bounded by max_distance.
  ASSERT_TRUE(ClipRayToAabb(ray, box, 4.0, &entry, &exit));
  EXPECT_EQ(exit, 4.0);
  EXPECT_FALSE(ClipRayToAabb(ray, box, 2.5, &entry, &exit));
  // Pointing away.
  const Ray up = MakeRay(Vec3(0, 5, 0), Vec3(0, 1, 0));
  EXPECT_FALSE(ClipRayToAabb(up, box, kInf, &entry, &exit));
  // Missing to the side.
  const Ray beside = MakeRay(Vec3(3, 5, 0), Vec3(0, -1, 0));
  EXPECT_FALSE(IntersectAabb(beside, box, kInf, &entry));
}

TEST(AabbTest, OriginInsideEntersAtZero) {
  const Aabb box = Box(Vec3(-1), Vec3(1));
  const Ray ray = MakeRay(Vec3(0.5, 0, 0), Vec3(1, 1, 0));
  double entry;
  ASSERT_TRUE(IntersectAabb(ray, box, kInf, &entry));
  EXPECT_EQ(entry, 0.0);
}

// A ray lying exactly in a box's face with a zero direction component is
// inside the padded slab, whichever face: no 0 * infinity, no NaN.
TEST(AabbTest, RayInAFacePlaneIsInsideThePaddedBox) {
  const Aabb box = PaddedForRays(Box(Vec3(0), Vec3(1)));
  double entry, exit;
  for (double y : {0.0, 1.0}) {
    for (double z : {0.0, 1.0}) {
      const Ray ray = MakeRay(Vec3(-5, y, z), Vec3(1, 0, 0));
      ASSERT_TRUE(ClipRayToAabb(ray, box, kInf, &entry, &exit)) << y << z;
      EXPECT_NEAR(entry, 5.0, 1e-8);
      EXPECT_NEAR(exit, 6.0, 1e-8);
      EXPECT_FALSE(std::isnan(entry) || std::isnan(exit));
    }
  }
}

// Never says no to a ray that goes through the box (seeded).
TEST(AabbTest, IsConservativeForRaysThroughTheBox) {
  std::mt19937_64 engine(7);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::uniform_real_distribution<double> symmetric(-1.0, 1.0);
  for (int i = 0; i < 10000; ++i) {
    const Vec3 min = testing::DrawVec3(symmetric, engine) * 100.0;
    const Vec3 max = min + testing::DrawVec3(unit, engine) * 10.0;
    const Aabb box = PaddedForRays(Box(min, max));
    // A point in the closed (unpadded) box, sometimes on a face.
    Vec3 target = min + testing::DrawVec3(unit, engine) * (max - min);
    if (i % 3 == 0) target.y = max.y;
    const Vec3 origin = target + testing::DrawVec3(symmetric, engine) * 1000.0;
    const Ray ray = MakeRay(origin, target - origin);
    double entry;
    EXPECT_TRUE(IntersectAabb(ray, box, kInf, &entry)) << i;
  }
}

}  // namespace
}  // namespace ik
