#include "ik/base/math.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "gtest/gtest.h"

namespace ik {
namespace {

constexpr double kEpsilon = 1e-12;

void ExpectVecNear(const Vec3& actual, const Vec3& expected,
                   double tolerance = kEpsilon) {
  EXPECT_NEAR(actual.x, expected.x, tolerance);
  EXPECT_NEAR(actual.y, expected.y, tolerance);
  EXPECT_NEAR(actual.z, expected.z, tolerance);
}

// Same rotation: q and -q are equal as rotations.
void ExpectSameRotation(const Quat& actual, const Quat& expected,
                        double tolerance = kEpsilon) {
  const double dot = std::abs(actual.w * expected.w + actual.x * expected.x +
                              actual.y * expected.y + actual.z * expected.z);
  EXPECT_NEAR(dot, 1.0, tolerance)
      << "actual (w " << actual.w << ", x " << actual.x << ", y " << actual.y
      << ", z " << actual.z << ")";
}

TEST(MakeQuatTest, TakesWireOrderAndStoresGlmOrder) {
  // Wire order is x, y, z, w; GLM's constructor is (w, x, y, z).
  const Quat q = MakeQuat(0.1, 0.2, 0.3, 0.9);
  EXPECT_EQ(q.x, 0.1);
  EXPECT_EQ(q.y, 0.2);
  EXPECT_EQ(q.z, 0.3);
  EXPECT_EQ(q.w, 0.9);
  const Quat glm_order(0.9, 0.1, 0.2, 0.3);
  EXPECT_EQ(q, glm_order);
}

TEST(MakeQuatTest, RoundTripsThroughNamedComponents) {
  const Quat original = AngleAxis(0.7, glm::normalize(Vec3(1.0, -2.0, 0.5)));
  // What a converter writes to the wire, then reads back.
  const double wire[4] = {original.x, original.y, original.z, original.w};
  const Quat back = MakeQuat(wire[0], wire[1], wire[2], wire[3]);
  EXPECT_EQ(back, original);
}

TEST(MakeQuatTest, QuarterTurnAboutYTurnsXToMinusZ) {
  const double s = std::sqrt(0.5);
  const Quat quarter_about_y = MakeQuat(0.0, s, 0.0, s);
  ExpectVecNear(quarter_about_y * Vec3(1.0, 0.0, 0.0), Vec3(0.0, 0.0, -1.0));
}

TEST(AngleAxisTest, FollowsTheRightHandRule) {
  const Quat q = AngleAxis(kPi / 2.0, Vec3(0.0, 0.0, 1.0));
  ExpectVecNear(q * Vec3(1.0, 0.0, 0.0), Vec3(0.0, 1.0, 0.0));
  EXPECT_NEAR(Norm(q), 1.0, kEpsilon);
}

TEST(FromToTest, TurnsOneDirectionIntoTheOther) {
  const Vec3 from(1.0, 2.0, 3.0);
  const Vec3 to(-2.0, 0.5, 1.0);
  const Quat q = FromTo(from, to);
  EXPECT_NEAR(Norm(q), 1.0, kEpsilon);
  ExpectVecNear(q * glm::normalize(from), glm::normalize(to));
}

TEST(FromToTest, IsTheShortestArc) {
  // The axis of the shortest arc is perpendicular to both directions.
  const Vec3 from(1.0, 0.0, 0.0);
  const Vec3 to(0.0, 1.0, 0.0);
  const Quat q = FromTo(from, to);
  ExpectSameRotation(q, AngleAxis(kPi / 2.0, Vec3(0.0, 0.0, 1.0)));
}

TEST(FromToTest, SameDirectionIsIdentity) {
  ExpectSameRotation(FromTo(Vec3(0.0, 2.0, 0.0), Vec3(0.0, 5.0, 0.0)),
                     IdentityQuat());
}

TEST(FromToTest, OppositeDirectionsGiveAHalfTurnAboutAPerpendicular) {
  for (const Vec3& from :
       {Vec3(1.0, 0.0, 0.0), Vec3(0.0, -3.0, 0.0), Vec3(0.3, -0.2, 0.9)}) {
    const Quat q = FromTo(from, -from);
    EXPECT_NEAR(Norm(q), 1.0, kEpsilon);
    EXPECT_NEAR(q.w, 0.0, kEpsilon);  // a half turn
    const Vec3 axis(q.x, q.y, q.z);
    EXPECT_NEAR(glm::dot(axis, from), 0.0, kEpsilon);
    ExpectVecNear(q * glm::normalize(from), -glm::normalize(from));
  }
}

TEST(FromToTest, NearlyOppositeDirectionsStayAccurate) {
  const Vec3 from(0.0, 0.0, 1.0);
  const Vec3 to(1e-9, 0.0, -1.0);
  const Quat q = FromTo(from, to);
  ExpectVecNear(q * from, glm::normalize(to), 1e-15);
}

TEST(FromToTest, ZeroVectorsGiveIdentity) {
  ExpectSameRotation(FromTo(Vec3(0.0), Vec3(1.0, 0.0, 0.0)), IdentityQuat());
  ExpectSameRotation(FromTo(Vec3(1.0, 0.0, 0.0), Vec3(0.0)), IdentityQuat());
  ExpectSameRotation(FromTo(Vec3(1e-13, 0.0, 0.0), Vec3(0.0, 1.0, 0.0)),
                     IdentityQuat());
}

TEST(FromToTest, IsDeterministic) {
  const Vec3 from(0.3, -0.7, 0.2);
  const Vec3 to(-0.3, 0.7, -0.2);
  const Quat first = FromTo(from, to);
  const Quat second = FromTo(from, to);
  EXPECT_EQ(first, second);
}

TEST(AnyPerpendicularTest, IsUnitAndPerpendicular) {
  for (const Vec3& v :
       {Vec3(1.0, 0.0, 0.0), Vec3(0.0, 1.0, 0.0), Vec3(0.0, 0.0, 1.0),
        Vec3(1.0, 1.0, 1.0), Vec3(-0.2, 5.0, 1e-3)}) {
    const Vec3 p = AnyPerpendicular(v);
    EXPECT_NEAR(glm::length(p), 1.0, kEpsilon);
    EXPECT_NEAR(glm::dot(p, v), 0.0, kEpsilon);
  }
}

TEST(SignedAngleAboutTest, MeasuresAboutTheAxis) {
  const Vec3 z(0.0, 0.0, 1.0);
  EXPECT_NEAR(SignedAngleAbout(Vec3(1, 0, 0), Vec3(0, 1, 0), z), kPi / 2,
              kEpsilon);
  EXPECT_NEAR(SignedAngleAbout(Vec3(1, 0, 0), Vec3(0, -1, 0), z), -kPi / 2,
              kEpsilon);
  // Components along the axis do not count.
  EXPECT_NEAR(SignedAngleAbout(Vec3(1, 0, 5), Vec3(0, 1, -3), z), kPi / 2,
              kEpsilon);
  // A half turn is +pi, never -pi.
  EXPECT_EQ(SignedAngleAbout(Vec3(1, 0, 0), Vec3(-1, 0, 0), z), kPi);
  EXPECT_EQ(SignedAngleAbout(Vec3(1, -0.0, 0), Vec3(-1, -0.0, 0), z), kPi);
}

TEST(SignedAngleAboutTest, DegenerateProjectionsGiveZero) {
  const Vec3 z(0.0, 0.0, 1.0);
  EXPECT_EQ(SignedAngleAbout(Vec3(0, 0, 2), Vec3(0, 1, 0), z), 0.0);
  EXPECT_EQ(SignedAngleAbout(Vec3(1, 0, 0), Vec3(0, 0, -1), z), 0.0);
}

TEST(TransformTest, ComposeAppliesScaleThenRotationThenTranslation) {
  Transform parent;
  parent.translation = Vec3(1.0, 2.0, 3.0);
  parent.rotation = AngleAxis(kPi / 2.0, Vec3(0.0, 0.0, 1.0));
  parent.scale = Vec3(2.0);
  Transform child;
  child.translation = Vec3(1.0, 0.0, 0.0);
  child.rotation = AngleAxis(kPi / 2.0, Vec3(1.0, 0.0, 0.0));
  child.scale = Vec3(0.5);

  const Transform composed = Compose(parent, child);
  // (1,0,0) scaled by 2 -> (2,0,0), turned about Z -> (0,2,0), + (1,2,3).
  ExpectVecNear(composed.translation, Vec3(1.0, 4.0, 3.0));
  ExpectSameRotation(composed.rotation, parent.rotation * child.rotation);
  ExpectVecNear(composed.scale, Vec3(1.0));
  // Composing and transforming agree with transforming twice.
  const Vec3 point(0.3, -0.4, 0.5);
  ExpectVecNear(TransformPoint(composed, point),
                TransformPoint(parent, TransformPoint(child, point)));
}

TEST(TransformTest, IdentityIsTheDefault) {
  const Transform identity;
  const Vec3 point(1.0, -2.0, 3.0);
  EXPECT_EQ(TransformPoint(identity, point), point);
  Transform other;
  other.translation = Vec3(4.0, 5.0, 6.0);
  other.rotation = AngleAxis(0.3, Vec3(0.0, 1.0, 0.0));
  const Transform composed = Compose(identity, other);
  ExpectVecNear(composed.translation, other.translation);
  ExpectSameRotation(composed.rotation, other.rotation);
}

TEST(TransformTest, InverseTransformPointUndoesTransformPoint) {
  Transform transform;
  transform.translation = Vec3(-1.0, 0.5, 2.0);
  transform.rotation = AngleAxis(1.1, glm::normalize(Vec3(1.0, 2.0, -0.5)));
  transform.scale = Vec3(2.0, 0.5, 3.0);  // non-uniform: still exact
  const Vec3 point(0.7, -0.2, 0.4);
  ExpectVecNear(
      InverseTransformPoint(transform, TransformPoint(transform, point)),
      point);
  ExpectVecNear(
      TransformPoint(transform, InverseTransformPoint(transform, point)),
      point);
}

TEST(TransformTest, InverseRotationComposesToIdentity) {
  const Quat q = AngleAxis(0.9, glm::normalize(Vec3(-1.0, 0.2, 0.4)));
  ExpectSameRotation(q * glm::inverse(q), IdentityQuat());
  ExpectSameRotation(glm::conjugate(q) * q, IdentityQuat());
}

TEST(FiniteTest, DetectsNanAndInfinity) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_TRUE(IsFinite(1.0));
  EXPECT_FALSE(IsFinite(nan));
  EXPECT_FALSE(IsFinite(Vec3(0.0, inf, 0.0)));
  EXPECT_FALSE(IsFinite(MakeQuat(0.0, 0.0, nan, 1.0)));
  EXPECT_TRUE(IsFinite(IdentityQuat()));
}

TEST(FiniteTest, IsWithinRangeRejectsHugeAndNan) {
  EXPECT_TRUE(IsWithinRange(Vec3(kMaxCoordinate, -kMaxCoordinate, 0.0)));
  EXPECT_FALSE(IsWithinRange(Vec3(0.0, 2.0 * kMaxCoordinate, 0.0)));
  EXPECT_FALSE(
      IsWithinRange(Vec3(std::numeric_limits<double>::quiet_NaN(), 0, 0)));
}

TEST(NormTest, IsTheEuclideanNorm) {
  EXPECT_DOUBLE_EQ(Norm(MakeQuat(1.0, 2.0, 2.0, 4.0)), 5.0);
  EXPECT_EQ(Norm(MakeQuat(0.0, 0.0, 0.0, 0.0)), 0.0);
}

// Products of seeded unit quaternions: within a few ulps of unit length
// after the Newton step, and turning vectors as glm::normalize's result
// does; far from unit, the exact normalisation.
TEST(NormalizeNearUnitTest, MakesProductsOfUnitQuaternionsUnit) {
  std::mt19937_64 engine(5);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  double worst_norm = 0.0;
  double worst_turn = 0.0;
  for (int i = 0; i < 20000; ++i) {
    const double x = unit(engine), y = unit(engine), z = unit(engine);
    const double w = unit(engine), a = unit(engine), b = unit(engine);
    const double c = unit(engine), d = unit(engine);
    const Quat p = glm::normalize(MakeQuat(x, y, z, w));
    const Quat q = glm::normalize(MakeQuat(a, b, c, d));
    const Quat product = p * q;
    const Quat near = NormalizeNearUnit(product);
    const Quat exact = glm::normalize(product);
    worst_norm = std::max(worst_norm, std::abs(Norm(near) - 1.0));
    const Vec3 v(0.3, -0.7, 0.2);
    worst_turn = std::max(worst_turn, glm::length(near * v - exact * v));
  }
  EXPECT_LE(worst_norm, 4e-16);
  EXPECT_LE(worst_turn, 4e-15);  // a few ulps of the rotation itself
}

TEST(NormalizeNearUnitTest, NormalisesExactlyFarFromUnit) {
  const Quat q = MakeQuat(0.0, 0.0, 0.6, 2.0);
  const Quat near = NormalizeNearUnit(q);
  const Quat exact = glm::normalize(q);
  EXPECT_EQ(near.w, exact.w);
  EXPECT_EQ(near.z, exact.z);
}

TEST(TransformTest, InverseTransformPointWithUnitScaleSkipsTheDivision) {
  Transform transform;
  transform.translation = Vec3(0.1, -2.0, 3.0);
  transform.rotation = glm::normalize(MakeQuat(0.2, 0.4, -0.1, 0.9));
  const Vec3 point(1.0, 2.0, -0.5);
  const Vec3 turned =
      glm::conjugate(transform.rotation) * (point - transform.translation);
  const Vec3 result = InverseTransformPoint(transform, point);
  EXPECT_EQ(result.x, turned.x / 1.0);
  EXPECT_EQ(result.y, turned.y / 1.0);
  EXPECT_EQ(result.z, turned.z / 1.0);
}

// Norm and Length against long double arithmetic on the same numbers
// scaled by a power of two (exact), for magnitudes from subnormal to the
// largest double; and the plain formula's bits in the plain range.
TEST(NormTest, IsFiniteAndAccurateForAnyFiniteInputAndPlainElsewhere) {
  std::mt19937_64 engine(29);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  std::uniform_int_distribution<int> exponent(-1074, 1022);
  for (int n = 0; n < 20000; ++n) {
    const int e = exponent(engine);
    const Quat q =
        MakeQuat(std::ldexp(unit(engine), e), std::ldexp(unit(engine), e),
                 std::ldexp(unit(engine), e - n % 40),
                 std::ldexp(unit(engine), e + 1 - n % 3));
    const double norm = Norm(q);
    ASSERT_TRUE(std::isfinite(norm)) << n;
    long double squares = 0.0L;
    for (double c : {q.x, q.y, q.z, q.w}) {
      const long double scaled = std::ldexp(static_cast<long double>(c), -e);
      squares += scaled * scaled;
    }
    const double exact = static_cast<double>(std::ldexp(std::sqrt(squares), e));
    if (exact > 4 * std::numeric_limits<double>::min()) {
      EXPECT_NEAR(norm / exact, 1.0, 1e-15) << n;  // a few ulps
    } else {  // subnormal results carry fewer digits
      EXPECT_NEAR(norm, exact, 4 * std::numeric_limits<double>::denorm_min())
          << n;
    }
    const Vec3 v(q.x, q.y, q.z);
    EXPECT_TRUE(std::isfinite(Length(v))) << n;
    const double plain = q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w;
    if (plain >= 1e-280 && plain <= 1e280) {
      EXPECT_EQ(norm, std::sqrt(plain)) << n;
    }
    const double plain_v = glm::dot(v, v);
    if (plain_v >= 1e-280 && plain_v <= 1e280) {
      EXPECT_EQ(Length(v), glm::length(v)) << n;
    }
  }
  const double most = std::numeric_limits<double>::max();
  EXPECT_EQ(Norm(MakeQuat(most, 0.0, 0.0, 0.0)), most);
  EXPECT_EQ(Norm(MakeQuat(0.0, 0.0, 0.0, 0.0)), 0.0);
  EXPECT_EQ(Length(Vec3(-most, 0.0, 0.0)), most);
  EXPECT_TRUE(std::isinf(Norm(MakeQuat(most, most, most, most))));
  EXPECT_TRUE(std::isnan(Norm(MakeQuat(std::nan(""), 1.0, 0.0, 0.0))));
}

bool SameBits(const Quat& a, const Quat& b) {
  return std::memcmp(&a, &b, sizeof(Quat)) == 0;
}

// Unit is idempotent, and a value made unit is within kUnitRounding of 1,
// for seeded quaternions and vectors of every magnitude and of norms within
// a few ulps of 1 (what clients' own normalisations send).
TEST(UnitTest, IsIdempotentForValuesOfEveryMagnitude) {
  std::mt19937_64 engine(23);
  std::uniform_real_distribution<double> component(-1.0, 1.0);
  std::uniform_int_distribution<int> exponent(-300, 300);
  std::uniform_int_distribution<int> ulps(-6, 6);
  for (int trial = 0; trial < 400000; ++trial) {
    Quat q = MakeQuat(component(engine), component(engine), component(engine),
                      component(engine));
    if (!(Norm(q) > 0.0)) continue;
    switch (trial % 3) {
      case 0:  // anywhere
        q = q * std::ldexp(1.0, exponent(engine));
        break;
      case 1: {  // near unit: normalised, then nudged by a few ulps
        q = q / Norm(q);
        q.w = q.w + ulps(engine) * std::numeric_limits<double>::epsilon();
        break;
      }
      default:  // as a client normalises in float, read as double
        q = q / Norm(q);
        q = MakeQuat(static_cast<float>(q.x), static_cast<float>(q.y),
                     static_cast<float>(q.z), static_cast<float>(q.w));
        break;
    }
    const Quat once = Unit(q);
    ASSERT_LE(std::abs(Norm(once) - 1.0), kUnitRounding) << "trial " << trial;
    ASSERT_TRUE(SameBits(Unit(once), once)) << "trial " << trial;
    const Vec3 v(q.x, q.y, q.z);
    const double length = Length(v);
    if (!(length > 0.0) || !std::isfinite(length)) continue;
    const Vec3 unit = Unit(v, length);
    ASSERT_LE(std::abs(Length(unit) - 1.0), kUnitRounding) << "trial " << trial;
    const Vec3 again = Unit(unit, Length(unit));
    ASSERT_EQ(std::memcmp(&again, &unit, sizeof(Vec3)), 0) << "trial " << trial;
  }
}

TEST(UnitTest, KeepsAValueThatIsUnitToRoundingAndDividesAnyOther) {
  const Quat unit = MakeQuat(0.0, 0.0, 0.0, 1.0 + 2e-16);
  EXPECT_TRUE(SameBits(Unit(unit), unit));
  const Quat off = MakeQuat(-0.0436194, 0.0, 0.0, 0.9990482);
  EXPECT_FALSE(SameBits(Unit(off), off));
  EXPECT_TRUE(SameBits(Unit(off), off / Norm(off)));
}

}  // namespace
}  // namespace ik
