#include "ik/dynamics/colliders.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <random>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "draws.h"
#include "gtest/gtest.h"

namespace ik {
namespace {

constexpr double kNan = std::numeric_limits<double>::quiet_NaN();

void ExpectVecNear(const Vec3& actual, const Vec3& expected,
                   double tolerance = 1e-12) {
  EXPECT_NEAR(actual.x, expected.x, tolerance);
  EXPECT_NEAR(actual.y, expected.y, tolerance);
  EXPECT_NEAR(actual.z, expected.z, tolerance);
}

double DistanceToCollider(const Vec3& point, const Collider& collider) {
  return glm::length(
      point - ClosestPointOnSegment(point, collider.start, collider.end));
}

TEST(ClosestPointOnSegmentTest, ClampsToTheEnds) {
  const Vec3 start(0.0, 0.0, 0.0);
  const Vec3 end(2.0, 0.0, 0.0);
  ExpectVecNear(ClosestPointOnSegment(Vec3(0.5, 1.0, 3.0), start, end),
                Vec3(0.5, 0.0, 0.0));
  ExpectVecNear(ClosestPointOnSegment(Vec3(-1.0, 1.0, 0.0), start, end), start);
  ExpectVecNear(ClosestPointOnSegment(Vec3(5.0, -1.0, 0.0), start, end), end);
  ExpectVecNear(ClosestPointOnSegment(Vec3(5.0, -1.0, 0.0), start, start),
                start);
}

TEST(PlaceColliderTest, MovesPointsIntoTheJointsSpaceAndScalesTheRadius) {
  Transform joint;
  joint.translation = Vec3(1.0, 2.0, 3.0);
  joint.rotation = AngleAxis(kPi / 2.0, Vec3(0.0, 0.0, 1.0));
  joint.scale = Vec3(2.0, -3.0, 1.0);
  const Collider placed = PlaceCollider(
      CapsuleCollider(Vec3(0.0), Vec3(0.1, 0.0, 0.0), 0.05), joint);
  ExpectVecNear(placed.start, Vec3(1.0, 2.0, 3.0));
  ExpectVecNear(placed.end, Vec3(1.0, 2.2, 3.0));  // +X turned to +Y, x2
  EXPECT_DOUBLE_EQ(placed.radius, 0.15);           // the largest |scale|
}

// Samples the circle where the two spheres meet and returns the distance
// from `near` to its closest sample.
double BruteForceNearest(const Vec3& parent, double length, const Vec3& center,
                         double reach, const Vec3& near) {
  const double d = glm::length(center - parent);
  const Vec3 axis = (center - parent) / d;
  const double along = (d * d + length * length - reach * reach) / (2.0 * d);
  const double radius = std::sqrt(length * length - along * along);
  const Vec3 u = AnyPerpendicular(axis);
  const Vec3 v = glm::cross(axis, u);
  double best = 1e9;
  for (int i = 0; i < 100000; ++i) {
    const double angle = 2.0 * kPi * i / 100000.0;
    const Vec3 point = parent + along * axis +
                       radius * (std::cos(angle) * u + std::sin(angle) * v);
    best = std::min(best, glm::length(point - near));
  }
  return best;
}

TEST(PlaceOnSpheresTest, LandsOnBothSpheresNearestTheGivenPoint) {
  const Vec3 parent(0.0, 1.0, 0.0);
  const Vec3 center(0.1, 0.8, 0.05);
  const Vec3 near(0.05, 0.85, 0.2);
  const Vec3 placed = PlaceOnSpheres(parent, 0.25, center, 0.12, near);
  EXPECT_NEAR(glm::length(placed - parent), 0.25, 1e-12);
  EXPECT_NEAR(glm::length(placed - center), 0.12, 1e-12);
  EXPECT_NEAR(glm::length(placed - near),
              BruteForceNearest(parent, 0.25, center, 0.12, near), 1e-6);
}

TEST(PlaceOnSpheresTest, DegenerateCasesStayFiniteAndKeepTheLength) {
  const Vec3 parent(0.0, 1.0, 0.0);
  // The bone's sphere inside the collider: as far out as the bone goes.
  const Vec3 inside =
      PlaceOnSpheres(parent, 0.1, parent + Vec3(0.05, 0.0, 0.0), 1.0, parent);
  ExpectVecNear(inside, parent + Vec3(-0.1, 0.0, 0.0));
  // Concentric spheres: the direction of `near` is kept.
  const Vec3 concentric =
      PlaceOnSpheres(parent, 0.1, parent, 0.5, parent + Vec3(0.0, 0.0, 0.3));
  ExpectVecNear(concentric, parent + Vec3(0.0, 0.0, 0.1));
  // Concentric with `near` on the parent: a fixed direction.
  const Vec3 all_same = PlaceOnSpheres(parent, 0.1, parent, 0.5, parent);
  EXPECT_NEAR(glm::length(all_same - parent), 0.1, 1e-12);
  // Spheres that do not meet (too far): the nearest point of the bone's.
  const Vec3 apart =
      PlaceOnSpheres(parent, 0.1, parent + Vec3(1.0, 0.0, 0.0), 0.2, parent);
  ExpectVecNear(apart, parent + Vec3(0.1, 0.0, 0.0));
  // `near` on the axis: a deterministic point of the circle.
  const Vec3 center = parent + Vec3(0.0, -0.2, 0.0);
  const Vec3 on_axis =
      PlaceOnSpheres(parent, 0.15, center, 0.1, parent + Vec3(0.0, -0.15, 0.0));
  EXPECT_NEAR(glm::length(on_axis - parent), 0.15, 1e-12);
  EXPECT_NEAR(glm::length(on_axis - center), 0.1, 1e-12);
  EXPECT_EQ(on_axis, PlaceOnSpheres(parent, 0.15, center, 0.1,
                                    parent + Vec3(0.0, -0.15, 0.0)));
}

TEST(PushOutOfColliderTest, LeavesAJointOutsideAlone) {
  const Collider sphere = SphereCollider(Vec3(0.0), 0.1);
  Vec3 position(0.0, 0.2, 0.0);
  EXPECT_FALSE(
      PushOutOfCollider(sphere, 0.05, Vec3(0.0, 0.5, 0.0), 0.3, &position));
  EXPECT_EQ(position, Vec3(0.0, 0.2, 0.0));
}

TEST(PushOutOfColliderTest, SphereContactIsExact) {
  const Collider sphere = SphereCollider(Vec3(0.0, 0.0, 0.0), 0.1);
  const Vec3 parent(0.05, 0.3, 0.0);
  Vec3 position = parent + 0.3 * glm::normalize(Vec3(-0.05, -0.3, 0.01));
  EXPECT_TRUE(PushOutOfCollider(sphere, 0.02, parent, 0.3, &position));
  EXPECT_NEAR(glm::length(position - parent), 0.3, 1e-12);
  EXPECT_NEAR(DistanceToCollider(position, sphere), 0.12, 1e-12);
}

// Random capsules and bones whose parent is outside the grown capsule and
// whose joint starts inside it, at realistic sizes (centimetres to
// decimetres): 200,000 contacts, grazing ones included.
TEST(PushOutOfColliderTest, CapsuleContactKeepsLengthAndEndsOnTheSurface) {
  std::mt19937_64 engine(7);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  std::uniform_real_distribution<double> size(0.02, 0.3);
  int cases = 0;
  double worst_depth = 0.0;
  while (cases < 200000) {
    const Collider capsule =
        CapsuleCollider(testing::DrawVec3(unit, engine) * 0.2,
                        testing::DrawVec3(unit, engine) * 0.2, size(engine));
    const double joint_radius = 0.5 * size(engine);
    const double reach = capsule.radius + joint_radius;
    const Vec3 parent = testing::DrawVec3(unit, engine);
    const double length = size(engine);
    if (DistanceToCollider(parent, capsule) <= reach) continue;
    const Vec3 direction = glm::normalize(testing::DrawVec3(unit, engine));
    Vec3 position = parent + length * direction;
    if (DistanceToCollider(position, capsule) >= reach) continue;
    ++cases;
    ASSERT_TRUE(
        PushOutOfCollider(capsule, joint_radius, parent, length, &position));
    ASSERT_TRUE(IsFinite(position));
    ASSERT_NEAR(glm::length(position - parent), length, 1e-12);
    worst_depth =
        std::max(worst_depth, reach - DistanceToCollider(position, capsule));
  }
  // The surface is reached to kSurfaceTolerance (1e-9) of the reach: under
  // 1e-9 m at these sizes.
  EXPECT_LE(worst_depth, 1e-9);
  std::printf(
      "[ property ] capsule push-out: %d contacts, deepest joint left %.3g m "
      "inside\n",
      cases, worst_depth);
}

TEST(PushOutOfColliderTest, ParentInsideGivesNoNan) {
  const Collider capsule =
      CapsuleCollider(Vec3(0.0, 0.0, 0.0), Vec3(0.0, 1.0, 0.0), 0.5);
  for (const Vec3& parent :
       {Vec3(0.0, 0.5, 0.0), Vec3(0.1, 0.0, 0.0), Vec3(0.0, 1.0, 0.0)}) {
    Vec3 position = parent + Vec3(0.0, 0.0, 0.1);
    EXPECT_TRUE(PushOutOfCollider(capsule, 0.01, parent, 0.1, &position));
    EXPECT_TRUE(IsFinite(position));
    EXPECT_NEAR(glm::length(position - parent), 0.1, 1e-12);
  }
  // A joint exactly on the segment, parent on it too.
  Vec3 position(0.0, 0.6, 0.0);
  EXPECT_TRUE(
      PushOutOfCollider(capsule, 0.0, Vec3(0.0, 0.5, 0.0), 0.1, &position));
  EXPECT_TRUE(IsFinite(position));
}

// A capsule whose ends differ by less than the square root of the smallest
// double acts as the sphere about its start (no NaN from 1 / |end - start|^2).
TEST(PushOutOfColliderTest, VanishinglyShortCapsuleActsAsASphere) {
  const Vec3 parent(0.0, 0.3, 0.0);
  Vec3 expected(0.0, 0.05, 0.0);
  ASSERT_TRUE(PushOutOfCollider(SphereCollider(Vec3(0.0), 0.1), 0.01, parent,
                                0.25, &expected));
  for (double length : {1e-300, 1e-200, 1e-160}) {
    const Collider capsule =
        CapsuleCollider(Vec3(0.0), Vec3(length, 0.0, 0.0), 0.1);
    Vec3 position(0.0, 0.05, 0.0);
    EXPECT_TRUE(PushOutOfCollider(capsule, 0.01, parent, 0.25, &position));
    ExpectVecNear(position, expected);
  }
}

TEST(ValidateColliderTest, NamesTheBadField) {
  EXPECT_TRUE(ValidateCollider(CapsuleCollider(Vec3(0.0), Vec3(1.0), 0.2),
                               "colliders[0]")
                  .ok());
  struct Case {
    Collider collider;
    const char* message;
  };
  const Case cases[] = {
      {SphereCollider(Vec3(kNan, 0.0, 0.0), 0.1),
       "colliders[2].start: not finite"},
      {CapsuleCollider(Vec3(0.0), Vec3(0.0, 2e9, 0.0), 0.1),
       "colliders[2].end: beyond"},
      {SphereCollider(Vec3(0.0), -0.1), "colliders[2].radius: must be"},
      {SphereCollider(Vec3(0.0), kNan), "colliders[2].radius: must be"},
      {SphereCollider(Vec3(0.0), 2.0 * kMaxColliderRadius),
       "colliders[2].radius: must be"},
  };
  for (const Case& c : cases) {
    const absl::Status status = ValidateCollider(c.collider, "colliders[2]");
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_TRUE(absl::StartsWith(status.message(), c.message))
        << status.message();
  }
}

}  // namespace
}  // namespace ik
