#include "ik/geometry/ray_triangle.h"

#include <cmath>
#include <limits>
#include <optional>
#include <random>
#include <vector>

#include "gtest/gtest.h"
#include "ik/geometry/ray.h"
#include "terrain_shapes.h"

namespace ik {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

Ray MakeRay(const Vec3& origin, const Vec3& direction) {
  std::optional<Ray> ray = Ray::Make(origin, direction);
  EXPECT_TRUE(ray.has_value());
  return *ray;
}

// A triangle in the plane y = 1.
const Vec3 kA(0, 1, 0);
const Vec3 kB(2, 1, 0);
const Vec3 kC(0, 1, 2);

TEST(RayTriangleTest, HitsFromAboveAtTheRightDistance) {
  const Ray ray = MakeRay(Vec3(0.5, 3, 0.5), Vec3(0, -1, 0));
  double distance = -1;
  ASSERT_TRUE(IntersectTriangle(ray, kA, kB, kC, kInf, &distance));
  EXPECT_EQ(distance, 2.0);
  EXPECT_EQ(FacingNormal(kA, kB, kC, ray.direction()), Vec3(0, 1, 0));
}

TEST(RayTriangleTest, IsTwoSided) {
  const Ray ray = MakeRay(Vec3(0.5, -1, 0.5), Vec3(0, 1, 0));
  double distance = -1;
  ASSERT_TRUE(IntersectTriangle(ray, kA, kB, kC, kInf, &distance));
  EXPECT_EQ(distance, 2.0);
  // Either winding; the normal faces the ray.
  EXPECT_TRUE(IntersectTriangle(ray, kA, kC, kB, kInf, &distance));
  EXPECT_EQ(FacingNormal(kA, kB, kC, ray.direction()), Vec3(0, -1, 0));
  EXPECT_EQ(FacingNormal(kA, kC, kB, ray.direction()), Vec3(0, -1, 0));
}

TEST(RayTriangleTest, MissesOutsideBehindAndBeyondTheMaximum) {
  double distance = -1;
  EXPECT_FALSE(IntersectTriangle(MakeRay(Vec3(1.5, 3, 1.5), Vec3(0, -1, 0)), kA,
                                 kB, kC, kInf, &distance));
  // Triangle behind the origin.
  EXPECT_FALSE(IntersectTriangle(MakeRay(Vec3(0.5, 3, 0.5), Vec3(0, 1, 0)), kA,
                                 kB, kC, kInf, &distance));
  const Ray ray = MakeRay(Vec3(0.5, 3, 0.5), Vec3(0, -1, 0));
  EXPECT_FALSE(IntersectTriangle(ray, kA, kB, kC, 1.999, &distance));
  EXPECT_TRUE(IntersectTriangle(ray, kA, kB, kC, 2.0, &distance));
  EXPECT_EQ(distance, -1.0 + 3.0);
}

TEST(RayTriangleTest, ParallelRaysMissEvenInThePlane) {
  double distance = -1;
  EXPECT_FALSE(IntersectTriangle(MakeRay(Vec3(-1, 1, 0.5), Vec3(1, 0, 0)), kA,
                                 kB, kC, kInf, &distance));
  EXPECT_FALSE(IntersectTriangle(MakeRay(Vec3(-1, 2, 0.5), Vec3(1, 0, 0)), kA,
                                 kB, kC, kInf, &distance));
  EXPECT_EQ(distance, -1.0);
}

TEST(RayTriangleTest, OriginOnTheSurfaceHitsAtZero) {
  double distance = -1;
  ASSERT_TRUE(IntersectTriangle(MakeRay(Vec3(0.5, 1, 0.5), Vec3(0, -1, 0)), kA,
                                kB, kC, kInf, &distance));
  EXPECT_EQ(distance, 0.0);
}

TEST(RayTriangleTest, EdgesAndVerticesAreInside) {
  double distance;
  for (const Vec3& point :
       {kA, kB, kC, 0.5 * (kA + kB), 0.5 * (kB + kC), 0.5 * (kA + kC)}) {
    EXPECT_TRUE(
        IntersectTriangle(MakeRay(point + Vec3(0, 2, 0), Vec3(0, -1, 0)), kA,
                          kB, kC, kInf, &distance))
        << point.x << " " << point.z;
    EXPECT_EQ(distance, 2.0);
  }
}

// A fan of triangles around a shared vertex, with shared edges: rays aimed
// exactly at the vertex or at points of the shared edges, from random
// directions steeper than the fan (so none can graze it, passing beside a
// peak), hit at least one triangle of the fan.
TEST(RayTriangleTest, SharedEdgesAndVerticesAreNotLost) {
  std::mt19937_64 engine(11);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  const Vec3 centre(0.3, 0.7, -0.2);
  std::vector<Vec3> rim;
  const int kSpokes = 7;
  for (int i = 0; i < kSpokes; ++i) {
    const double angle = 2 * kPi * (i + 0.3 * unit(engine)) / kSpokes;
    rim.push_back(centre + Vec3(std::cos(angle), 0.2 * (unit(engine) - 0.5),
                                std::sin(angle)));
  }
  int lost = 0;
  for (int trial = 0; trial < 20000; ++trial) {
    const int spoke = trial % kSpokes;
    const double s = trial % 2 == 0 ? 0.0 : unit(engine);  // vertex or edge
    const Vec3 target = centre + s * (rim[spoke] - centre);
    Vec3 direction = testing::RandomDirection(engine);
    if (direction.y > 0) direction = -direction;
    if (direction.y > -0.6) continue;  // the fan's slopes stay below 0.3
    const Vec3 origin = target - (0.5 + 5 * unit(engine)) * direction;
    const Ray ray = MakeRay(origin, target - origin);
    bool hit = false;
    for (int i = 0; i < kSpokes; ++i) {
      double distance;
      hit |= IntersectTriangle(ray, centre, rim[i], rim[(i + 1) % kSpokes],
                               kInf, &distance);
    }
    lost += hit ? 0 : 1;
  }
  EXPECT_EQ(lost, 0);
}

TEST(RayTriangleTest, AgreesWithTheAnalyticPlaneOnRandomRays) {
  std::mt19937_64 engine(3);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  const Vec3 a(-1, 0.2, -1), b(3, 1.4, -0.5), c(0.5, -0.3, 2.5);
  const Vec3 normal = glm::normalize(glm::cross(b - a, c - a));
  int hits = 0;
  for (int i = 0; i < 5000; ++i) {
    // A point well inside (barycentric weights >= 0.05).
    const double u = 0.05 + 0.9 * unit(engine), v = 0.05 + 0.9 * unit(engine);
    if (u + v > 0.95) continue;
    const Vec3 target = a + u * (b - a) + v * (c - a);
    const Vec3 direction = testing::RandomDirection(engine);
    if (std::abs(glm::dot(direction, normal)) < 1e-3) continue;
    const Vec3 origin = target - 4.0 * direction;
    const Ray ray = MakeRay(origin, direction);
    double distance;
    ASSERT_TRUE(IntersectTriangle(ray, a, b, c, kInf, &distance)) << i;
    const double analytic =
        glm::dot(normal, a - origin) / glm::dot(normal, ray.direction());
    EXPECT_NEAR(distance, analytic, 1e-12) << i;
    ++hits;
  }
  EXPECT_GT(hits, 1000);
}

TEST(RayTriangleTest, TinyTrianglesGetAUnitNormal) {
  const Vec3 a(1e-150, 0, 0), b(2e-150, 0, 1e-150), c(1e-150, 1e-151, 2e-150);
  const Vec3 normal = FacingNormal(a, b, c, Vec3(0, -1, 0));
  EXPECT_TRUE(IsFinite(normal));
  EXPECT_NEAR(glm::length(normal), 1.0, 1e-15);
  // The cross product is 1e-300: its squared length would underflow.
  EXPECT_EQ(FacingNormal(Vec3(0), Vec3(1e-150, 0, 0), Vec3(0, 0, 1e-150),
                         Vec3(0, -1, 0)),
            Vec3(0, 1, 0));
}

TEST(RayTriangleTest, NeverReturnsNanOrInfinityForExtremeInput) {
  // Far-away, huge and tiny triangles, grazing rays, infinite maximum.
  const Vec3 far(9e8, -9e8, 9e8);
  double distance = 0;
  const Ray grazing = MakeRay(Vec3(0), Vec3(1, 1e-300, 0));
  if (IntersectTriangle(grazing, Vec3(1, -1, -1), Vec3(1, 1, -1),
                        Vec3(1, 0, 1e-200), kInf, &distance)) {
    EXPECT_TRUE(std::isfinite(distance));
  }
  const Ray ray = MakeRay(Vec3(-9e8, 9e8, -9e8), far - Vec3(-9e8, 9e8, -9e8));
  if (IntersectTriangle(ray, far + Vec3(-1, 0, 0), far + Vec3(1, 0, 1),
                        far + Vec3(0, 1, -1), kInf, &distance)) {
    EXPECT_TRUE(std::isfinite(distance));
  }
}

}  // namespace
}  // namespace ik
