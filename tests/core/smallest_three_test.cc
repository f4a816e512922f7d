#include "ik/base/smallest_three.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <random>

#include "draws.h"
#include "gtest/gtest.h"

namespace ik {
namespace {

// The angle of the rotation between unit quaternions a and b, from their
// chord (stable near 0, unlike acos of the dot product): q and -q are one
// rotation, so the nearer of b and -b is taken.
double RotationAngle(const Quat& a, const Quat& b) {
  const double dot = a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w;
  const Quat near = dot < 0.0 ? -b : b;
  const double chord = std::sqrt(
      (a.x - near.x) * (a.x - near.x) + (a.y - near.y) * (a.y - near.y) +
      (a.z - near.z) * (a.z - near.z) + (a.w - near.w) * (a.w - near.w));
  return 4.0 * std::asin(std::fmin(chord / 2.0, 1.0));
}

std::uint64_t Value(const std::array<std::uint8_t, 6>& bytes) {
  std::uint64_t value = 0;
  for (int b = 0; b < 6; ++b) {
    value |= static_cast<std::uint64_t>(bytes[b]) << (8 * b);
  }
  return value;
}

Quat Normalized(const Quat& q) { return q / Norm(q); }

// The bound ik.v1 CompactPose states for quantized rotations, radians.
constexpr double kQuantizedBound = 1.4e-4;
// ... and for float32 rotations.
constexpr double kFloatBound = 1.2e-7;

TEST(SmallestThreeTest, RoundTripsUniformRotationsWithinTheStatedBound) {
  std::mt19937_64 engine(29);
  std::normal_distribution<double> normal(0.0, 1.0);
  double worst = 0.0;
  for (int i = 0; i < 400000; ++i) {
    // Four normal draws normalised: uniform over the rotations.
    const Quat q = Normalized(testing::DrawQuat(normal, engine));
    const Quat back = UnpackSmallestThree(PackSmallestThree(q).data());
    worst = std::fmax(worst, RotationAngle(q, Normalized(back)));
  }
  std::printf("smallest three: worst %.3g rad over 400,000 rotations\n", worst);
  EXPECT_LT(worst, kQuantizedBound);
  EXPECT_GT(worst, kQuantizedBound / 4) << "the bound is far too loose";
}

TEST(SmallestThreeTest, FloatRotationsStayWithinTheStatedBound) {
  std::mt19937_64 engine(31);
  std::normal_distribution<double> normal(0.0, 1.0);
  double worst = 0.0;
  for (int i = 0; i < 400000; ++i) {
    const Quat q = Normalized(testing::DrawQuat(normal, engine));
    const Quat widened =
        MakeQuat(static_cast<float>(q.x), static_cast<float>(q.y),
                 static_cast<float>(q.z), static_cast<float>(q.w));
    worst = std::fmax(worst, RotationAngle(q, Normalized(widened)));
  }
  std::printf("float32: worst %.3g rad over 400,000 rotations\n", worst);
  EXPECT_LT(worst, kFloatBound);
}

TEST(SmallestThreeTest, NegationIsTheSameRotationAndTheSameBytes) {
  std::mt19937_64 engine(7);
  std::normal_distribution<double> normal(0.0, 1.0);
  for (int i = 0; i < 1000; ++i) {
    const Quat q = Normalized(testing::DrawQuat(normal, engine));
    EXPECT_EQ(PackSmallestThree(q), PackSmallestThree(-q));
  }
}

TEST(SmallestThreeTest, PacksTheDocumentedLayout) {
  // The identity: w largest (3); x, y, z are 0, the code nearest
  // (0 * sqrt(2) + 1) / 2 * 32767 = 16383.5, rounded to even: 16384.
  const std::uint64_t identity = 3 | (std::uint64_t{16384} << 2) |
                                 (std::uint64_t{16384} << 17) |
                                 (std::uint64_t{16384} << 32);
  EXPECT_EQ(Value(PackSmallestThree(IdentityQuat())), identity);
  // 120 degrees about (1, 1, 1) / sqrt(3): x = y = z = w = 0.5; x is the
  // first largest, y, z, w = 0.5 -> (0.5 sqrt(2) + 1) / 2 * 32767 rounded.
  const double code = std::nearbyint((0.5 * std::sqrt(2.0) + 1.0) / 2 * 32767);
  const auto c = static_cast<std::uint64_t>(code);
  EXPECT_EQ(Value(PackSmallestThree(MakeQuat(0.5, 0.5, 0.5, 0.5))),
            0 | (c << 2) | (c << 17) | (c << 32));
  // z largest and negative: the rotation is negated, so x = -0.1 is stored
  // as +0.1.
  const Quat q = Normalized(MakeQuat(-0.1, 0.2, -0.9, 0.3));
  const std::uint64_t value = Value(PackSmallestThree(q));
  EXPECT_EQ(value & 3, 2u);
  const double x = ((value >> 2 & 0x7FFF) / 32767.0 * 2 - 1) / std::sqrt(2.0);
  EXPECT_NEAR(x, 0.1 / Norm(MakeQuat(-0.1, 0.2, -0.9, 0.3)), 3e-5);
}

TEST(SmallestThreeTest, NeverSetsTheReservedBit) {
  std::mt19937_64 engine(11);
  std::uniform_real_distribution<double> spread(-1.0, 1.0);
  for (int i = 0; i < 10000; ++i) {
    const Quat q = testing::DrawQuat(spread, engine);
    EXPECT_FALSE(SmallestThreeReservedBit(PackSmallestThree(q).data()));
  }
  const std::uint8_t set[6] = {0, 0, 0, 0, 0, 0x80};
  EXPECT_TRUE(SmallestThreeReservedBit(set));
}

TEST(SmallestThreeTest, NotARotationPacksAsTheIdentity) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const auto identity = PackSmallestThree(IdentityQuat());
  EXPECT_EQ(PackSmallestThree(MakeQuat(0, 0, 0, 0)), identity);
  EXPECT_EQ(PackSmallestThree(MakeQuat(nan, 0, 0, 1)), identity);
}

TEST(SmallestThreeTest, CodesThatCannotBeARotationGiveANonUnitQuaternion) {
  // Three components at 1/sqrt(2): their squares sum to 1.5, so the largest
  // is 0 and the norm is sqrt(1.5), which a reader refuses as not unit.
  const std::uint8_t bytes[6] = {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F};
  const Quat q = UnpackSmallestThree(bytes);
  EXPECT_EQ(q.w, 0.0);
  EXPECT_NEAR(Norm(q), std::sqrt(1.5), 1e-4);
}

}  // namespace
}  // namespace ik
