#include "ik/base/joint_limits.h"

#include <cmath>
#include <cstring>
#include <random>

#include "gtest/gtest.h"
#include "ik/base/math.h"
#include "ik/rig/rig.h"

namespace ik {
namespace {

const Vec3 kX(1.0, 0.0, 0.0);
const Vec3 kY(0.0, 1.0, 0.0);
const Vec3 kZ(0.0, 0.0, 1.0);

// The angle between two unit vectors.
double Angle(const Vec3& a, const Vec3& b) {
  return std::atan2(glm::length(glm::cross(a, b)), glm::dot(a, b));
}

// The same rotation (q and -q alike).
void ExpectSameRotation(const Quat& a, const Quat& b, double tolerance) {
  EXPECT_NEAR(std::abs(glm::dot(a, b)), 1.0, tolerance)
      << "(" << a.w << ", " << a.x << ", " << a.y << ", " << a.z << ") vs ("
      << b.w << ", " << b.x << ", " << b.y << ", " << b.z << ")";
}

BallSocketLimit Cone(double swing_max, const Vec3& axis = kX) {
  BallSocketLimit limit;
  limit.axis = axis;
  limit.twist_axis = kX;  // the bone
  limit.swing_max = swing_max;
  return limit;
}

HingeLimit HingeAboutZ(double min, double max) {
  HingeLimit limit;
  limit.axis = kZ;
  limit.range = {min, max};
  return limit;
}

TEST(DecomposeSwingTwistTest, SplitsIntoSwingAndTwistAboutTheAxis) {
  const Quat twist = AngleAxis(0.7, kX);
  const Quat swing = AngleAxis(0.4, glm::normalize(Vec3(0.0, 1.0, 1.0)));
  const SwingTwist parts = DecomposeSwingTwist(swing * twist, kX);
  EXPECT_NEAR(parts.twist_angle, 0.7, 1e-12);
  ExpectSameRotation(parts.twist, twist, 1e-12);
  ExpectSameRotation(parts.swing, swing, 1e-12);
  // The swing's axis is perpendicular to the twist axis.
  EXPECT_NEAR(glm::dot(Vec3(parts.swing.x, parts.swing.y, parts.swing.z), kX),
              0.0, 1e-12);
}

TEST(DecomposeSwingTwistTest, TwistAnglesCoverMinusPiToPi) {
  EXPECT_NEAR(DecomposeSwingTwist(AngleAxis(-3.0, kY), kY).twist_angle, -3.0,
              1e-12);
  EXPECT_NEAR(DecomposeSwingTwist(AngleAxis(3.0, kY), kY).twist_angle, 3.0,
              1e-12);
  // A half turn is +pi, never -pi.
  EXPECT_EQ(DecomposeSwingTwist(Quat(0.0, 0.0, -1.0, 0.0), kY).twist_angle,
            kPi);
  // q and -q give the same twist.
  const Quat q = AngleAxis(1.1, kY) * AngleAxis(0.3, kX);
  EXPECT_NEAR(DecomposeSwingTwist(q, kY).twist_angle,
              DecomposeSwingTwist(-q, kY).twist_angle, 1e-15);
}

// TwistAngleAbout is DecomposeSwingTwist's angle bit for bit: on seeded
// rotations about seeded axes, negated rotations, half turns of the axis
// (no twist) and pure twists.
TEST(DecomposeSwingTwistTest, TwistAngleAboutIsItsAngle) {
  std::mt19937_64 engine(1807);
  std::normal_distribution<double> normal;
  const auto direction = [&] {
    return glm::normalize(Vec3(normal(engine), normal(engine), normal(engine)));
  };
  for (int i = 0; i < 2000; ++i) {
    const Vec3 axis = direction();
    Quat rotation = glm::normalize(
        Quat(normal(engine), normal(engine), normal(engine), normal(engine)));
    if (i % 4 == 1) rotation = -rotation;
    if (i % 4 == 2) rotation = AngleAxis(kPi, glm::cross(axis, direction()));
    if (i % 4 == 3) rotation = AngleAxis(4.0 * normal(engine), axis);
    const double expected = DecomposeSwingTwist(rotation, axis).twist_angle;
    const double angle = TwistAngleAbout(rotation, axis);
    EXPECT_EQ(std::memcmp(&angle, &expected, sizeof(double)), 0)
        << i << ": " << angle << " vs " << expected;
  }
}

TEST(DecomposeSwingTwistTest, AHalfTurnOfTheAxisHasNoTwist) {
  // Turning the axis itself half round: the twist is undefined; identity.
  const SwingTwist parts = DecomposeSwingTwist(AngleAxis(kPi, kZ), kX);
  EXPECT_EQ(parts.twist_angle, 0.0);
  EXPECT_EQ(parts.twist, IdentityQuat());
  EXPECT_TRUE(IsFinite(parts.swing));
}

TEST(ClampAngleToRangeTest, KeepsAnglesInsideTheRange) {
  EXPECT_EQ(ClampAngleToRange(0.3, {-0.5, 0.5}), 0.3);
  EXPECT_EQ(ClampAngleToRange(-0.5, {-0.5, 0.5}), -0.5);
  // Inside modulo a full turn: returned as given.
  EXPECT_EQ(ClampAngleToRange(0.3 + 2.0 * kPi, {-0.5, 0.5}), 0.3 + 2.0 * kPi);
}

TEST(ClampAngleToRangeTest, GoesToTheNearerEndAroundTheCircle) {
  EXPECT_EQ(ClampAngleToRange(0.9, {-0.5, 0.5}), 0.5);
  EXPECT_EQ(ClampAngleToRange(-0.9, {-0.5, 0.5}), -0.5);
  // 3.0 is 2.5 past max but only 2pi - 3.5 = 2.78 before min... max wins.
  EXPECT_EQ(ClampAngleToRange(3.0, {-0.5, 0.5}), 0.5);
  // -2.9 is 2.4 below min and 2pi - 3.4 = 2.88 past max: min wins.
  EXPECT_EQ(ClampAngleToRange(-2.9, {-0.5, 0.5}), -0.5);
  // The elbow's range: -3.0 is nearer to max (2.53) across +-pi.
  EXPECT_EQ(ClampAngleToRange(-3.0, {-0.0873, 2.53}), 2.53);
}

TEST(ClampAngleToRangeTest, AFullTurnHoldsEveryAngle) {
  EXPECT_EQ(ClampAngleToRange(3.0, {-kPi, kPi}), 3.0);
  EXPECT_EQ(ClampAngleToRange(-100.0, {-kPi, kPi}), -100.0);
}

TEST(BallSocketLimitTest, LeavesRotationsInsideTheConeBitForBit) {
  const Quat inside = AngleAxis(0.3, kY) * AngleAxis(2.0, kX);
  const LimitedRotation limited = ApplyBallSocketLimit(Cone(0.5), inside);
  EXPECT_FALSE(limited.clamped);
  EXPECT_EQ(limited.rotation, inside);
}

TEST(BallSocketLimitTest, ClampsTheSwingOntoTheConeKeepingTheTwist) {
  const Quat outside = AngleAxis(1.2, kY) * AngleAxis(0.4, kX);
  const LimitedRotation limited = ApplyBallSocketLimit(Cone(0.5), outside);
  EXPECT_TRUE(limited.clamped);
  const Vec3 bone = limited.rotation * kX;
  EXPECT_NEAR(Angle(bone, kX), 0.5, 1e-12);
  // Towards the axis along the same great circle: still in the XZ plane.
  EXPECT_NEAR(bone.y, 0.0, 1e-12);
  EXPECT_LT(bone.z, 0.0);
  EXPECT_NEAR(DecomposeSwingTwist(limited.rotation, kX).twist_angle, 0.4,
              1e-12);
  EXPECT_NEAR(Norm(limited.rotation), 1.0, 1e-15);
}

TEST(BallSocketLimitTest, ClampsTheTwistToTheNearerEnd) {
  BallSocketLimit limit = Cone(1.0);
  limit.has_twist = true;
  limit.twist = {-0.2, 0.3};
  const Quat swing = AngleAxis(0.4, kZ);
  const LimitedRotation limited =
      ApplyBallSocketLimit(limit, swing * AngleAxis(0.9, kX));
  EXPECT_TRUE(limited.clamped);
  EXPECT_NEAR(DecomposeSwingTwist(limited.rotation, kX).twist_angle, 0.3,
              1e-12);
  // The swing (the bone's direction) is kept.
  EXPECT_NEAR(glm::length(limited.rotation * kX - swing * kX), 0.0, 1e-12);
  EXPECT_NEAR(DecomposeSwingTwist(
                  ApplyBallSocketLimit(limit, AngleAxis(-0.5, kX)).rotation, kX)
                  .twist_angle,
              -0.2, 1e-12);
}

TEST(BallSocketLimitTest, TheConeIsAboutItsAxisNotTheBone) {
  // The cone's axis is 0.4 rad off the bone: the rest pose is inside, and a
  // bone 0.4 rad the other way is outside a 0.6 rad cone.
  const Vec3 axis = AngleAxis(0.4, kZ) * kX;
  const BallSocketLimit limit = Cone(0.6, axis);
  EXPECT_FALSE(ApplyBallSocketLimit(limit, IdentityQuat()).clamped);
  const LimitedRotation limited =
      ApplyBallSocketLimit(limit, AngleAxis(-0.4, kZ));
  EXPECT_TRUE(limited.clamped);
  EXPECT_NEAR(Angle(limited.rotation * kX, axis), 0.6, 1e-12);
}

TEST(BallSocketLimitTest, ABoneOppositeTheAxisClampsDeterministically) {
  const Quat opposite = AngleAxis(kPi, kY);
  const LimitedRotation first = ApplyBallSocketLimit(Cone(0.5), opposite);
  const LimitedRotation second = ApplyBallSocketLimit(Cone(0.5), opposite);
  EXPECT_TRUE(first.clamped);
  EXPECT_TRUE(IsFinite(first.rotation));
  EXPECT_NEAR(Angle(first.rotation * kX, kX), 0.5, 1e-12);
  EXPECT_EQ(first.rotation, second.rotation);
}

TEST(BallSocketLimitTest, AConeOfPiHoldsEveryDirection) {
  const Quat q = AngleAxis(3.0, kY);
  EXPECT_EQ(ApplyBallSocketLimit(Cone(kPi), q).rotation, q);
}

TEST(BallSocketLimitTest, IgnoresRoundingLevelExcessInTheClampedFlag) {
  // A rotation 1e-12 rad past the cone is moved but not reported.
  const LimitedRotation limited =
      ApplyBallSocketLimit(Cone(0.5), AngleAxis(0.5 + 1e-12, kY));
  EXPECT_FALSE(limited.clamped);
  EXPECT_NEAR(Angle(limited.rotation * kX, kX), 0.5, 1e-14);
}

TEST(HingeLimitTest, LeavesRotationsAboutTheAxisWithinRangeAlone) {
  const Quat q = AngleAxis(0.8, kZ);
  const LimitedRotation limited = ApplyHingeLimit(HingeAboutZ(-0.1, 2.5), q);
  EXPECT_FALSE(limited.clamped);
  ExpectSameRotation(limited.rotation, q, 1e-15);
}

TEST(HingeLimitTest, ClampsTheAngleToTheNearerEnd) {
  const LimitedRotation limited =
      ApplyHingeLimit(HingeAboutZ(-0.1, 2.5), AngleAxis(-0.6, kZ));
  EXPECT_TRUE(limited.clamped);
  ExpectSameRotation(limited.rotation, AngleAxis(-0.1, kZ), 1e-15);
  ExpectSameRotation(
      ApplyHingeLimit(HingeAboutZ(-0.1, 2.5), AngleAxis(2.9, kZ)).rotation,
      AngleAxis(2.5, kZ), 1e-15);
}

TEST(HingeLimitTest, DropsTurnsAboutOtherAxes) {
  const Quat off_axis = AngleAxis(0.3, kX) * AngleAxis(1.0, kZ);
  const LimitedRotation limited =
      ApplyHingeLimit(HingeAboutZ(-0.1, 2.5), off_axis);
  EXPECT_TRUE(limited.clamped);
  // Only a turn about the axis is left: the axis maps onto itself.
  EXPECT_NEAR(glm::length(limited.rotation * kZ - kZ), 0.0, 1e-15);
  EXPECT_NEAR(DecomposeSwingTwist(limited.rotation, kZ).twist_angle, 1.0,
              1e-12);
}

TEST(JointLimitTest, IsRelativeToTheRestRotation) {
  JointLimit limit;
  limit.kind = JointLimit::Kind::kHinge;
  limit.hinge = HingeAboutZ(-0.1, 0.5);
  const Quat rest = AngleAxis(1.0, kY);
  // 0.3 about the axis from rest: inside.
  const Quat inside = rest * AngleAxis(0.3, kZ);
  const LimitedRotation kept = ApplyJointLimit(limit, rest, inside);
  EXPECT_FALSE(kept.clamped);
  ExpectSameRotation(kept.rotation, inside, 1e-15);
  // 0.9 from rest: clamped to 0.5 from rest.
  const LimitedRotation clamped =
      ApplyJointLimit(limit, rest, rest * AngleAxis(0.9, kZ));
  EXPECT_TRUE(clamped.clamped);
  ExpectSameRotation(clamped.rotation, rest * AngleAxis(0.5, kZ), 1e-15);
}

TEST(JointLimitTest, NoLimitLeavesAnyRotation) {
  const Quat q = AngleAxis(2.0, kX);
  const LimitedRotation limited =
      ApplyJointLimit(JointLimit(), IdentityQuat(), q);
  EXPECT_FALSE(limited.clamped);
  EXPECT_EQ(limited.rotation, q);
  JointConstraint free_joint;
  EXPECT_EQ(ApplyJointConstraint(free_joint, q).rotation, q);
}

TEST(JointLimitTest, ClampingIsIdempotent) {
  JointLimit limit;
  limit.kind = JointLimit::Kind::kBallSocket;
  limit.ball_socket = Cone(0.4);
  limit.ball_socket.has_twist = true;
  limit.ball_socket.twist = {-0.2, 0.2};
  const Quat rest = AngleAxis(0.2, kZ);
  const Quat wild = AngleAxis(2.0, glm::normalize(Vec3(1.0, 2.0, 3.0)));
  const LimitedRotation once = ApplyJointLimit(limit, rest, wild);
  const LimitedRotation twice = ApplyJointLimit(limit, rest, once.rotation);
  EXPECT_TRUE(once.clamped);
  EXPECT_FALSE(twice.clamped);
  ExpectSameRotation(twice.rotation, once.rotation, 1e-15);
}

// The values DeriveLimitValues fills only spare the clamps their trig: over
// seeded limits and rotations (many on and near the boundaries), a clamp
// with them gives the clamp without them, to rounding.
TEST(DeriveLimitValuesTest, ClampsAgreeWithAndWithoutTheDerivedValues) {
  std::mt19937_64 engine(0x11b1);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  auto random_axis = [&] {
    const double z = 2.0 * unit(engine) - 1.0;
    const double phi = 2.0 * kPi * unit(engine);
    const double r = std::sqrt(1.0 - z * z);
    return Vec3(r * std::cos(phi), r * std::sin(phi), z);
  };
  int clamped = 0;
  int differing_flags = 0;
  for (int i = 0; i < 20000; ++i) {
    JointLimit limit;
    const double a = kPi * (2.0 * unit(engine) - 1.0);
    const double b = kPi * (2.0 * unit(engine) - 1.0);
    const AngleRange range{std::min(a, b), std::max(a, b)};
    if (i % 2 == 0) {
      limit.kind = JointLimit::Kind::kBallSocket;
      limit.ball_socket = Cone(kPi * unit(engine), random_axis());
      limit.ball_socket.has_twist = i % 4 == 0;
      limit.ball_socket.twist = range;
    } else {
      limit.kind = JointLimit::Kind::kHinge;
      limit.hinge.axis = random_axis();
      limit.hinge.range = i % 10 == 1 ? AngleRange{-kPi, kPi} : range;
    }
    JointLimit derived = limit;
    DeriveLimitValues(&derived);
    const Quat rest = AngleAxis(unit(engine), random_axis());
    Quat rotation = AngleAxis(2.0 * kPi * unit(engine), random_axis());
    // Every third rotation sits on the boundary: clamped once already.
    if (i % 3 == 0) rotation = ApplyJointLimit(limit, rest, rotation).rotation;
    const LimitedRotation plain = ApplyJointLimit(limit, rest, rotation);
    const LimitedRotation fast = ApplyJointLimit(derived, rest, rotation);
    ExpectSameRotation(fast.rotation, plain.rotation, 1e-15);
    differing_flags += fast.clamped != plain.clamped;
    clamped += plain.clamped;
  }
  EXPECT_EQ(differing_flags, 0);
  EXPECT_GT(clamped, 5000);
}

}  // namespace
}  // namespace ik
