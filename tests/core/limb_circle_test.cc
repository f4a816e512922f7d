// The circle of a limb's exact solutions held to a ball-and-socket root
// (rig/limb_circle.h): the exact remainder it wraps angles with, and the
// turn it returns together with the root rotation of that turn.
#include "rig/limb_circle.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <optional>
#include <random>
#include <vector>

#include "draws.h"
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

// Seeded circles about a root: random parent and solved rotations and a
// random axis, drawn in an order no compiler changes (draws.h).
class RandomCircles {
 public:
  explicit RandomCircles(std::uint64_t seed) : engine_(seed) {}

  LimbCircle Next(const JointDefinition& root) {
    LimbCircle circle;
    circle.parent_rotation = Rotation();
    circle.rest_rotation = root.rest.rotation;
    circle.root_solved = Rotation();
    circle.axis_model = glm::normalize(testing::DrawVec3(normal_, engine_));
    return circle;
  }
  std::mt19937_64& engine() { return engine_; }

 private:
  Quat Rotation() {
    return glm::normalize(testing::DrawQuat(normal_, engine_));
  }

  std::mt19937_64 engine_;
  std::normal_distribution<double> normal_;
};

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
  RandomCircles circles(1810);
  int found = 0;
  int searched = 0;
  for (int i = 0; i < 3000; ++i) {
    const LimbCircle circle = circles.Next(hip);
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

// The circle's allowed turns sampled with the clamp itself: an independent
// picture of its arcs, kSamples turns from -pi.
constexpr int kSamples = 4096;
constexpr double kSampleWidth = 2.0 * kPi / kSamples;

struct SampledCircle {
  std::vector<bool> allowed;
  static int Of(double angle) {
    const int sample =
        static_cast<int>(std::lround((angle + kPi) / kSampleWidth));
    return ((sample % kSamples) + kSamples) % kSamples;
  }
  static double Angle(int sample) { return -kPi + sample * kSampleWidth; }
  bool At(int sample) const {
    return allowed[((sample % kSamples) + kSamples) % kSamples];
  }
  // Whether every sample strictly between `from` and `to`, one way round or
  // the other, is allowed: the two lie on one arc.
  bool OneArc(int from, int to) const {
    return OneWay(from, to, 1) || OneWay(from, to, -1);
  }
  // The same, going from `from` by `step` (+1 or -1) only.
  bool OneWay(int from, int to, int step) const {
    const auto wrap = [](int x) {
      return ((x % kSamples) + kSamples) % kSamples;
    };
    if (wrap(from) == wrap(to)) return true;
    for (int s = from + step; wrap(s) != wrap(to); s += step) {
      if (!At(s)) return false;
    }
    return true;
  }
  // Whether the two samples either side of `sample` agree with it (away
  // from an arc's end by more than the sampling resolves).
  bool Clear(int sample) const {
    for (int d = -2; d <= 2; ++d) {
      if (At(sample + d) != At(sample)) return false;
    }
    return true;
  }
};

SampledCircle Sample(const LimbCircle& circle,
                     const JointConstraint& constraint) {
  SampledCircle sampled;
  sampled.allowed.resize(kSamples);
  for (int i = 0; i < kSamples; ++i) {
    sampled.allowed[i] =
        !ApplyJointConstraint(constraint,
                              TurnedRoot(circle, SampledCircle::Angle(i)))
             .clamped;
  }
  return sampled;
}

double Gap(double a, double b) {
  return std::abs(std::remainder(a - b, 2.0 * kPi));
}

// The continuity rule on seeded circles about the humanoid's shoulder and
// hip, checked against the circle sampled with the clamp: an incoming
// swivel inside an arc keeps the turn on that arc (0 itself when the
// shorter way round from the swivel reaches 0 within the arc, whatever
// other arc holds 0 too; else not 0); outside every arc, on the arc
// with the end nearest it, at the reported distance; without an incoming
// swivel, the allowed turn nearest 0.
TEST(LimbCircleTest, KeepsToTheArcThatHoldsTheIncomingSwivel) {
  const absl::StatusOr<Rig> rig = testing::HumanoidRig();
  ASSERT_TRUE(rig.ok()) << rig.status();
  RandomCircles circles(1811);
  std::uniform_real_distribution<double> uniform(-kPi, kPi);
  int kept_off_zero = 0;  // 0 allowed, yet not reached from the swivel
  int inside = 0;
  int outside = 0;
  for (const char* name : {"left_shoulder", "left_hip"}) {
    const JointDefinition& root = rig->joint(rig->FindJoint(name));
    const JointConstraint constraint = JointConstraintOf(root);
    for (int i = 0; i < 1500; ++i) {
      const LimbCircle circle = circles.Next(root);
      const SampledCircle sampled = Sample(circle, constraint);
      const double incoming = uniform(circles.engine());
      const std::optional<AllowedTurn> free =
          NearestAllowedTurn(circle, root.limit.ball_socket, constraint);
      const std::optional<AllowedTurn> turn = NearestAllowedTurn(
          circle, root.limit.ball_socket, constraint, incoming);
      ASSERT_EQ(free.has_value(), turn.has_value()) << name << " " << i;
      if (!turn.has_value()) continue;
      EXPECT_TRUE(SameBits(turn->root, TurnedRoot(circle, turn->angle)));
      EXPECT_FALSE(ApplyJointConstraint(constraint, turn->root).clamped);
      // History-free: no allowed sample nearer 0 than the turn.
      for (int s = 0; s < kSamples; ++s) {
        if (sampled.allowed[s]) {
          EXPECT_LE(std::abs(free->angle),
                    Gap(SampledCircle::Angle(s), 0.0) + 2.0 * kSampleWidth)
              << name << " " << i;
        }
      }
      const int from = SampledCircle::Of(incoming);
      if (!sampled.Clear(from)) continue;
      if (sampled.allowed[from]) {
        ++inside;
        EXPECT_TRUE(sampled.OneArc(from, SampledCircle::Of(turn->angle)))
            << name << " " << i << ": incoming " << incoming << ", turn "
            << turn->angle;
        EXPECT_EQ(turn->distance, 0.0);
        const int zero = SampledCircle::Of(0.0);
        // 0 is taken when the shorter way round from the incoming swivel
        // reaches it within the arc, even where another arc holds it too
        // (more than 10 degrees from the half turn from 0, within which the
        // rule goes part of the way: below).
        const int shorter =
            std::remainder(-incoming, 2.0 * kPi) >= 0.0 ? 1 : -1;
        if (sampled.Clear(zero) && sampled.allowed[zero] &&
            Gap(incoming, 0.0) < kPi - 0.2) {
          if (sampled.OneWay(from, zero, shorter)) {
            EXPECT_EQ(turn->angle, 0.0) << name << " " << i;
          } else {
            ++kept_off_zero;
            EXPECT_NE(turn->angle, 0.0) << name << " " << i;
          }
        }
      } else {
        ++outside;
        std::optional<int> nearest_sample;
        double nearest = kPi;
        for (int s = 0; s < kSamples; ++s) {
          const double gap = Gap(SampledCircle::Angle(s), incoming);
          if (sampled.allowed[s] && gap < nearest) {
            nearest = gap;
            nearest_sample = s;
          }
        }
        // The arc with the end nearest the incoming swivel, at that end's
        // distance; an arc narrower than the sampling (a pose touching the
        // limit) may be nearer than any sample shows.
        EXPECT_LE(turn->distance, nearest + 2.0 * kSampleWidth)
            << name << " " << i;
        if (nearest_sample.has_value() &&
            turn->distance > nearest - 2.0 * kSampleWidth) {
          EXPECT_TRUE(
              sampled.OneArc(*nearest_sample, SampledCircle::Of(turn->angle)))
              << name << " " << i;
        }
      }
    }
  }
  // Every case was met.
  EXPECT_GT(inside, 100);
  EXPECT_GT(outside, 100);
  EXPECT_GT(kept_off_zero, 1);
  std::printf(
      "[ arcs ] %d incoming swivels inside an arc (%d of them kept "
      "off an allowed 0), %d outside\n",
      inside, kept_off_zero, outside);
}

// Through the half turn from 0, where the shorter way towards 0 turns over,
// the rule goes part of the way, none of it at the very opposite: on seeded
// circles, an incoming swivel inside an arc a hair either side of the
// opposite gets the same turn, reported at that hair from the opposite
// (edge_angle), and off the limit unless the turn is an arc's end.
TEST(LimbCircleTest, TheWayRoundIsContinuousThroughTheOpposite) {
  const absl::StatusOr<Rig> rig = testing::HumanoidRig();
  ASSERT_TRUE(rig.ok()) << rig.status();
  RandomCircles circles(2412);
  int checked = 0;
  for (const char* name : {"left_shoulder", "left_hip"}) {
    const JointDefinition& root = rig->joint(rig->FindJoint(name));
    const JointConstraint constraint = JointConstraintOf(root);
    for (int i = 0; i < 1500; ++i) {
      const LimbCircle circle = circles.Next(root);
      const std::optional<AllowedTurn> above = NearestAllowedTurn(
          circle, root.limit.ball_socket, constraint, kPi - 1e-9);
      const std::optional<AllowedTurn> below = NearestAllowedTurn(
          circle, root.limit.ball_socket, constraint, -kPi + 1e-9);
      if (!above.has_value() || above->distance > 0.0 ||
          below->distance > 0.0) {
        continue;
      }
      ++checked;
      EXPECT_LT(Gap(above->angle, below->angle), 1e-6) << name << " " << i;
      EXPECT_LT(above->edge_angle, 1e-6) << name << " " << i;
      EXPECT_LT(Gap(above->angle, kPi), 1e-6) << name << " " << i;
    }
  }
  EXPECT_GT(checked, 100);
}

// AllowsTheWayToZero, the continuity rule's shortcut, against the circle
// sampled with the clamp: when it says the limit allows the whole shorter
// way from 0 to a turn, every sample on that way is allowed (but those
// within two samples of a boundary); and it says so for most ways the
// samples find open.
TEST(LimbCircleTest, TheWayToZeroIsAllowedWhereTheClampAllowsIt) {
  const absl::StatusOr<Rig> rig = testing::HumanoidRig();
  ASSERT_TRUE(rig.ok()) << rig.status();
  RandomCircles circles(1812);
  std::uniform_real_distribution<double> uniform(-3.0, 3.0);
  int said = 0;
  int open = 0;
  for (const char* name : {"left_shoulder", "left_hip"}) {
    const JointDefinition& root = rig->joint(rig->FindJoint(name));
    const JointConstraint constraint = JointConstraintOf(root);
    for (int i = 0; i < 1500; ++i) {
      const LimbCircle circle = circles.Next(root);
      const SampledCircle sampled = Sample(circle, constraint);
      const double turn = uniform(circles.engine());
      const bool allows = AllowsTheWayToZero(circle, root.limit.ball_socket,
                                             std::cos(turn), std::sin(turn));
      const int zero = SampledCircle::Of(0.0);
      const int end = SampledCircle::Of(turn);
      const int step = turn >= 0.0 ? 1 : -1;
      bool all = sampled.allowed[zero] && sampled.allowed[end];
      bool clear = sampled.Clear(zero) && sampled.Clear(end);
      for (int k = zero; k != end; k += step) {
        all = all && sampled.At(k);
        clear = clear && sampled.Clear(k);
      }
      if (allows) {
        ++said;
        EXPECT_TRUE(all || !clear) << name << " " << i << ": turn " << turn;
      }
      if (all && clear) {
        ++open;
        EXPECT_TRUE(allows) << name << " " << i << ": turn " << turn;
      }
    }
  }
  EXPECT_GT(open, 100);
  std::printf(
      "[ arcs ] the way to 0 open on %d sampled circles, said open "
      "on %d\n",
      open, said);
}

}  // namespace
}  // namespace ik::internal
