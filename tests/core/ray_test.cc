#include "ik/geometry/ray.h"

#include <cmath>
#include <limits>
#include <optional>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "gtest/gtest.h"

namespace ik {
namespace {

constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

void ExpectInvalid(const absl::Status& status, const char* substring) {
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
  EXPECT_TRUE(absl::StrContains(status.message(), substring)) << status;
}

TEST(RayTest, NormalisesTheDirection) {
  const std::optional<Ray> ray = Ray::Make(Vec3(1, 2, 3), Vec3(0, -4, 0));
  ASSERT_TRUE(ray.has_value());
  EXPECT_EQ(ray->origin(), Vec3(1, 2, 3));
  EXPECT_EQ(ray->direction(), Vec3(0, -1, 0));
  EXPECT_EQ(ray->PointAt(0.5), Vec3(1, 1.5, 3));

  const std::optional<Ray> slanted = Ray::Make(Vec3(0), Vec3(3, 0, 4));
  ASSERT_TRUE(slanted.has_value());
  EXPECT_NEAR(slanted->direction().x, 0.6, 1e-16);
  EXPECT_NEAR(slanted->direction().z, 0.8, 1e-16);
}

TEST(RayTest, NormalisesHugeAndTinyDirectionsWithoutOverflow) {
  const std::optional<Ray> huge = Ray::Make(Vec3(0), Vec3(1e300, 1e300, 0));
  ASSERT_TRUE(huge.has_value());
  EXPECT_NEAR(glm::length(huge->direction()), 1.0, 1e-15);
  const std::optional<Ray> tiny = Ray::Make(Vec3(0), Vec3(0, 0, -1e-11));
  ASSERT_TRUE(tiny.has_value());
  EXPECT_EQ(tiny->direction(), Vec3(0, 0, -1));
}

TEST(RayTest, DownwardRayHasExactWatertightFrame) {
  const std::optional<Ray> ray = Ray::Make(Vec3(0.25, 3, -1), Vec3(0, -1, 0));
  ASSERT_TRUE(ray.has_value());
  EXPECT_EQ(ray->axis_z(), 1);  // y dominates
  // Negative dominant component: x and y of the frame swap (winding kept).
  EXPECT_EQ(ray->axis_x(), 0);
  EXPECT_EQ(ray->axis_y(), 2);
  EXPECT_EQ(ray->shear_x(), 0.0);
  EXPECT_EQ(ray->shear_y(), 0.0);
  EXPECT_EQ(ray->shear_z(), -1.0);
}

TEST(RayTest, ZeroComponentsGetHugeFiniteInversesWithTheirSign) {
  const std::optional<Ray> ray = Ray::Make(Vec3(0), Vec3(-0.0, -1, 0.0));
  ASSERT_TRUE(ray.has_value());
  const Vec3& inverse = ray->inverse_direction();
  EXPECT_TRUE(IsFinite(inverse));
  EXPECT_LT(inverse.x, -1e299);
  EXPECT_GT(inverse.z, 1e299);
  EXPECT_EQ(inverse.y, -1.0);
}

TEST(RayTest, DominantAxisTiesGoToTheLowestIndex) {
  const std::optional<Ray> ray = Ray::Make(Vec3(0), Vec3(1, 1, 1));
  ASSERT_TRUE(ray.has_value());
  EXPECT_EQ(ray->axis_z(), 0);
  EXPECT_EQ(ray->axis_x(), 1);
  EXPECT_EQ(ray->axis_y(), 2);
}

TEST(RayTest, RefusesInvalidRays) {
  EXPECT_FALSE(Ray::Make(Vec3(kNan, 0, 0), Vec3(0, -1, 0)).has_value());
  EXPECT_FALSE(Ray::Make(Vec3(0, kInf, 0), Vec3(0, -1, 0)).has_value());
  EXPECT_FALSE(Ray::Make(Vec3(0, 2e9, 0), Vec3(0, -1, 0)).has_value());
  EXPECT_FALSE(Ray::Make(Vec3(0), Vec3(0, 0, 0)).has_value());
  EXPECT_FALSE(Ray::Make(Vec3(0), Vec3(0, 1e-13, 0)).has_value());
  EXPECT_FALSE(Ray::Make(Vec3(0), Vec3(kNan, -1, 0)).has_value());
  EXPECT_FALSE(Ray::Make(Vec3(0), Vec3(0, -kInf, 0)).has_value());
}

TEST(RayTest, ValidateRayNamesTheField) {
  EXPECT_TRUE(ValidateRay(Vec3(0), Vec3(0, -1, 0), 1.0).ok());
  EXPECT_TRUE(ValidateRay(Vec3(0), Vec3(0, -1, 0), kInf).ok());
  EXPECT_TRUE(ValidateRay(Vec3(0), Vec3(0, -1, 0), 0.0).ok());
  ExpectInvalid(ValidateRay(Vec3(kNan), Vec3(0, -1, 0), 1.0),
                "origin: not finite");
  ExpectInvalid(ValidateRay(Vec3(0, 0, -3e9), Vec3(0, -1, 0), 1.0),
                "origin: beyond");
  ExpectInvalid(ValidateRay(Vec3(0), Vec3(kInf, 0, 0), 1.0),
                "direction: not finite");
  ExpectInvalid(ValidateRay(Vec3(0), Vec3(0), 1.0), "direction: shorter than");
  ExpectInvalid(ValidateRay(Vec3(0), Vec3(0, -1, 0), -1.0),
                "max_distance: must be >= 0");
  ExpectInvalid(ValidateRay(Vec3(0), Vec3(0, -1, 0), kNan), "max_distance");
}

TEST(RayTest, MaxDistanceValidity) {
  EXPECT_TRUE(IsValidMaxDistance(0.0));
  EXPECT_TRUE(IsValidMaxDistance(kInf));
  EXPECT_FALSE(IsValidMaxDistance(-1e-300));
  EXPECT_FALSE(IsValidMaxDistance(kNan));
}

}  // namespace
}  // namespace ik
