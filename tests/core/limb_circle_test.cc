// The circle of a limb's exact solutions held to a ball-and-socket root
// (rig/limb_circle.h): the exact remainder it wraps angles with, and the
// turn it returns together with the root rotation of that turn.
#include "rig/limb_circle.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <random>
#include <vector>

#include "gtest/gtest.h"
#include "humanoid_rig.h"
#include "ik/base/joint_limits.h"
#include "ik/base/math.h"
#include "ik/base/trig.h"
#include "rig/two_bone_limits.h"

namespace ik::internal {
namespace {

bool SameBits(double a, double b) {
  return std::memcmp(&a, &b, sizeof(double)) == 0;
}

bool SameBits(const Quat& a, const Quat& b) {
  return std::memcmp(&a, &b, sizeof(Quat)) == 0;
}

// RemainderOfHalfTurn is std::remainder(x, kPi) bit for bit: on the ends
// and midpoints of the range and their neighbours, signed zeros, NaN, and
// seeded atan2s of every quadrant.
TEST(LimbCircleTest, RemainderOfHalfTurnIsTheLibrarysExactly) {
  std::vector<double> values = {
      0.0,    -0.0,      kPi,
      -kPi,   0.5 * kPi, -0.5 * kPi,
      1e-300, -1e-300,   std::numeric_limits<double>::quiet_NaN()};
  for (const double edge : {kPi, -kPi, 0.5 * kPi, -0.5 * kPi}) {
    values.push_back(std::nextafter(edge, 0.0));
    values.push_back(std::nextafter(edge, 2.0 * edge));
  }
  std::mt19937_64 engine(1809);
  std::normal_distribution<double> normal;
  for (int i = 0; i < 20000; ++i) {
    values.push_back(Atan2(normal(engine), normal(engine)));
  }
  for (const double x : values) {
    if (std::abs(x) > kPi) continue;  // beyond the range it is made for
    EXPECT_TRUE(SameBits(RemainderOfHalfTurn(x), std::remainder(x, kPi)))
        << x << ": " << RemainderOfHalfTurn(x) << " vs "
        << std::remainder(x, kPi);
  }
}

// On seeded circles about the humanoid's hip (its ball-and-socket limit with
// twist), a turn found comes with TurnedRoot's rotation for it, bit for bit,
// and that rotation is within the limit.
TEST(LimbCircleTest, TheTurnComesWithItsRootRotationWithinTheLimit) {
  const absl::StatusOr<Rig> rig = testing::HumanoidRig();
  ASSERT_TRUE(rig.ok()) << rig.status();
  const JointDefinition& hip = rig->joint(rig->FindJoint("left_hip"));
  ASSERT_EQ(hip.limit.kind, JointLimit::Kind::kBallSocket);
  const JointConstraint constraint = JointConstraintOf(hip);
  std::mt19937_64 engine(1810);
  std::normal_distribution<double> normal;
  const auto rotation = [&] {
    return glm::normalize(
        Quat(normal(engine), normal(engine), normal(engine), normal(engine)));
  };
  int found = 0;
  int searched = 0;
  for (int i = 0; i < 3000; ++i) {
    LimbCircle circle;
    circle.parent_rotation = rotation();
    circle.rest_rotation = hip.rest.rotation;
    circle.root_solved = rotation();
    circle.axis_model =
        glm::normalize(Vec3(normal(engine), normal(engine), normal(engine)));
    const std::optional<AllowedTurn> turn =
        NearestAllowedTurn(circle, hip.limit.ball_socket, constraint);
    ++searched;
    if (!turn.has_value()) continue;
    ++found;
    EXPECT_TRUE(SameBits(turn->root, TurnedRoot(circle, turn->angle))) << i;
    EXPECT_FALSE(ApplyJointConstraint(constraint, turn->root).clamped) << i;
    EXPECT_LE(std::abs(turn->angle), kPi) << i;
  }
  EXPECT_GT(found, searched / 10);
}

}  // namespace
}  // namespace ik::internal
