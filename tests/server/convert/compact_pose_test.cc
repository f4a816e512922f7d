#include "ik/compact_pose.h"

#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <random>
#include <vector>

#include "gtest/gtest.h"
#include "ik/base/math.h"

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

std::array<std::uint8_t, 6> Pack(const Quat& q) {
  return PackSmallestThree(q.x, q.y, q.z, q.w);
}

Quat Unpack(const std::uint8_t* bytes) {
  const std::array<double, 4> q = UnpackSmallestThree(bytes);
  return MakeQuat(q[0], q[1], q[2], q[3]);
}

// Four draws as x, y, z, w, in that order (whatever the compiler's order of
// evaluating arguments).
template <typename Distribution>
Quat DrawQuat(Distribution& distribution, std::mt19937_64& engine) {
  const double x = distribution(engine);
  const double y = distribution(engine);
  const double z = distribution(engine);
  const double w = distribution(engine);
  return MakeQuat(x, y, z, w);
}

// The bound ik.v1 CompactPose states for quantized rotations, radians.
constexpr double kQuantizedBound = 1.4e-4;
// ... and for float32 rotations.
constexpr double kFloatBound = 1.2e-7;

TEST(CompactPoseTest, RoundTripsUniformRotationsWithinTheStatedBound) {
  std::mt19937_64 engine(29);
  std::normal_distribution<double> normal(0.0, 1.0);
  double worst = 0.0;
  for (int i = 0; i < 400000; ++i) {
    // Four normal draws normalised: uniform over the rotations.
    const Quat q = Normalized(DrawQuat(normal, engine));
    const Quat back = Unpack(Pack(q).data());
    worst = std::fmax(worst, RotationAngle(q, Normalized(back)));
  }
  std::printf("smallest three: worst %.3g rad over 400,000 rotations\n", worst);
  EXPECT_LT(worst, kQuantizedBound);
  EXPECT_GT(worst, kQuantizedBound / 4) << "the bound is far too loose";
}

TEST(CompactPoseTest, FloatRotationsStayWithinTheStatedBound) {
  std::mt19937_64 engine(31);
  std::normal_distribution<double> normal(0.0, 1.0);
  double worst = 0.0;
  for (int i = 0; i < 400000; ++i) {
    const Quat q = Normalized(DrawQuat(normal, engine));
    const Quat widened =
        MakeQuat(static_cast<float>(q.x), static_cast<float>(q.y),
                 static_cast<float>(q.z), static_cast<float>(q.w));
    worst = std::fmax(worst, RotationAngle(q, Normalized(widened)));
  }
  std::printf("float32: worst %.3g rad over 400,000 rotations\n", worst);
  EXPECT_LT(worst, kFloatBound);
}

TEST(CompactPoseTest, NegationIsTheSameRotationAndTheSameBytes) {
  std::mt19937_64 engine(7);
  std::normal_distribution<double> normal(0.0, 1.0);
  for (int i = 0; i < 1000; ++i) {
    const Quat q = Normalized(DrawQuat(normal, engine));
    EXPECT_EQ(Pack(q), Pack(-q));
  }
}

TEST(CompactPoseTest, PacksTheDocumentedLayout) {
  // The identity: w largest (3); x, y, z are 0, the code nearest
  // (0 * sqrt(2) + 1) / 2 * 32767 = 16383.5, rounded to even: 16384.
  const std::uint64_t identity = 3 | (std::uint64_t{16384} << 2) |
                                 (std::uint64_t{16384} << 17) |
                                 (std::uint64_t{16384} << 32);
  EXPECT_EQ(Value(Pack(IdentityQuat())), identity);
  // 120 degrees about (1, 1, 1) / sqrt(3): x = y = z = w = 0.5; x is the
  // first largest, y, z, w = 0.5 -> (0.5 sqrt(2) + 1) / 2 * 32767 rounded.
  const double code = std::nearbyint((0.5 * std::sqrt(2.0) + 1.0) / 2 * 32767);
  const auto c = static_cast<std::uint64_t>(code);
  EXPECT_EQ(Value(Pack(MakeQuat(0.5, 0.5, 0.5, 0.5))),
            0 | (c << 2) | (c << 17) | (c << 32));
  // z largest and negative: the rotation is negated, so x = -0.1 is stored
  // as +0.1.
  const Quat q = Normalized(MakeQuat(-0.1, 0.2, -0.9, 0.3));
  const std::uint64_t value = Value(Pack(q));
  EXPECT_EQ(value & 3, 2u);
  const double x = ((value >> 2 & 0x7FFF) / 32767.0 * 2 - 1) / std::sqrt(2.0);
  EXPECT_NEAR(x, 0.1 / Norm(MakeQuat(-0.1, 0.2, -0.9, 0.3)), 3e-5);
}

TEST(CompactPoseTest, NeverSetsTheReservedBit) {
  std::mt19937_64 engine(11);
  std::uniform_real_distribution<double> spread(-1.0, 1.0);
  for (int i = 0; i < 10000; ++i) {
    const Quat q = DrawQuat(spread, engine);
    EXPECT_FALSE(SmallestThreeReservedBit(Pack(q).data()));
  }
  const std::uint8_t set[6] = {0, 0, 0, 0, 0, 0x80};
  EXPECT_TRUE(SmallestThreeReservedBit(set));
}

TEST(CompactPoseTest, NotARotationPacksAsTheIdentity) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const auto identity = Pack(IdentityQuat());
  EXPECT_EQ(Pack(MakeQuat(0, 0, 0, 0)), identity);
  EXPECT_EQ(Pack(MakeQuat(nan, 0, 0, 1)), identity);
}

TEST(CompactPoseTest, CodesThatCannotBeARotationGiveANonUnitQuaternion) {
  // Three components at 1/sqrt(2): their squares sum to 1.5, so the largest
  // is 0 and the norm is sqrt(1.5), which a reader refuses as not unit.
  const std::uint8_t bytes[6] = {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F};
  const Quat q = Unpack(bytes);
  EXPECT_EQ(q.w, 0.0);
  EXPECT_NEAR(Norm(q), std::sqrt(1.5), 1e-4);
}

// The client's side: an engine's float rotations into a compact pose, and
// a sparse answer back onto them.
TEST(CompactPoseTest, SetsAndAppliesRotationsInBothEncodings) {
  std::mt19937_64 engine(3);
  std::normal_distribution<double> normal(0.0, 1.0);
  std::vector<float> engine_pose;
  for (int j = 0; j < 28; ++j) {
    const Quat q = Normalized(DrawQuat(normal, engine));
    for (double value : {q.x, q.y, q.z, q.w}) {
      engine_pose.push_back(static_cast<float>(value));
    }
  }
  v1::CompactPose pose;
  pose.add_joints(4);  // cleared: the rotations are by position
  SetCompactRotations(engine_pose, RotationEncoding::kFloat, pose);
  EXPECT_EQ(pose.joints_size(), 0);
  ASSERT_EQ(pose.rotations_size(), 28 * 4);
  for (int i = 0; i < 28 * 4; ++i) EXPECT_EQ(pose.rotations(i), engine_pose[i]);
  SetCompactRotations(engine_pose, RotationEncoding::kQuantized, pose);
  EXPECT_EQ(pose.rotations_size(), 0);
  ASSERT_EQ(pose.quantized_rotations().size(), 28u * 6);

  // An answer's sparse rotations (joints 2 and 7) onto the engine's pose.
  v1::CompactPose answer;
  answer.add_joints(2);
  answer.add_joints(7);
  for (float value : {0.0f, 0.0f, 0.0f, 1.0f, 0.6f, 0.0f, 0.0f, 0.8f}) {
    answer.add_rotations(value);
  }
  std::vector<float> applied = engine_pose;
  ASSERT_TRUE(ApplyCompactRotations(answer, absl::MakeSpan(applied)).ok());
  for (int j = 0; j < 28; ++j) {
    for (int i = 0; i < 4; ++i) {
      const float want = j == 2   ? (i == 3 ? 1.0f : 0.0f)
                         : j == 7 ? answer.rotations(4 + i)
                                  : engine_pose[4 * j + i];
      EXPECT_EQ(applied[4 * j + i], want) << "joint " << j;
    }
  }
  // The same quantized: within the bound of the original.
  answer.clear_rotations();
  for (const Quat& q : {IdentityQuat(), MakeQuat(0.6, 0.0, 0.0, 0.8)}) {
    const auto bytes = Pack(q);
    answer.mutable_quantized_rotations()->append(
        reinterpret_cast<const char*>(bytes.data()), bytes.size());
  }
  applied = engine_pose;
  ASSERT_TRUE(ApplyCompactRotations(answer, absl::MakeSpan(applied)).ok());
  const float* seven = applied.data() + 4 * 7;
  EXPECT_LT(RotationAngle(MakeQuat(seven[0], seven[1], seven[2], seven[3]),
                          MakeQuat(0.6, 0.0, 0.0, 0.8)),
            kQuantizedBound);

  // A joint beyond the engine's pose, or counts that do not match: refused,
  // the pose left as it was.
  answer.set_joints(1, 28);
  applied = engine_pose;
  absl::Status status = ApplyCompactRotations(answer, absl::MakeSpan(applied));
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(),
            "compact_pose.joints[1]: joint 28 is not among the 28 joints "
            "given");
  EXPECT_EQ(applied, engine_pose);
  answer.set_joints(1, 7);
  answer.mutable_quantized_rotations()->pop_back();
  EXPECT_EQ(ApplyCompactRotations(answer, absl::MakeSpan(applied)).code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(CompactPoseTest, TheWidenedPoseHoldsTheSameNumbersAsDoubles) {
  v1::CompactPose pose;
  pose.mutable_root()->mutable_translation()->set_y(2.0);
  for (float value : {0.1f, 0.2f, 0.3f, 0.9f, 0.0f, 0.0f, 0.0f, 1.0f}) {
    pose.add_rotations(value);
  }
  pose.add_translated_joints(1);
  pose.add_translated_joints(5);
  for (float value : {0.5f, 0.25f, 0.125f, 1.1f, 0.0f, -0.3f}) {
    pose.add_translations(value);
  }
  // By position: packed doubles, translations as JointPoses.
  v1::Pose widened = WidenedPose(pose);
  EXPECT_EQ(widened.root().translation().y(), 2.0);
  ASSERT_EQ(widened.rotations_size(), 8);
  for (int i = 0; i < 8; ++i) {
    EXPECT_EQ(widened.rotations(i), static_cast<double>(pose.rotations(i)));
  }
  ASSERT_EQ(widened.joints_size(), 2);
  EXPECT_EQ(widened.joints(1).index(), 5);
  EXPECT_EQ(widened.joints(1).local().translation().x(),
            static_cast<double>(1.1f));
  EXPECT_FALSE(widened.joints(1).local().has_rotation());

  // Listed joints: one JointPose per joint, rotation and translation
  // together; quantized rotations decoded.
  pose.add_joints(1);
  pose.add_joints(3);
  SetCompactRotations(std::vector<float>{0.1f, 0.2f, 0.3f, 0.9f, 0, 0, 0, 1},
                      RotationEncoding::kQuantized, pose);
  pose.add_joints(1);
  pose.add_joints(3);
  widened = WidenedPose(pose);
  EXPECT_EQ(widened.rotations_size(), 0);
  ASSERT_EQ(widened.joints_size(), 3);
  EXPECT_EQ(widened.joints(0).index(), 1);
  EXPECT_TRUE(widened.joints(0).local().has_rotation());
  EXPECT_EQ(widened.joints(0).local().translation().x(), 0.5);
  const v1::Quat& q = widened.joints(0).local().rotation();
  const Quat decoded = Unpack(
      reinterpret_cast<const std::uint8_t*>(pose.quantized_rotations().data()));
  EXPECT_EQ(q.x(), decoded.x);
  EXPECT_EQ(q.w(), decoded.w);
  EXPECT_EQ(widened.joints(1).index(), 3);
  EXPECT_EQ(widened.joints(2).index(), 5);
}

}  // namespace
}  // namespace ik
