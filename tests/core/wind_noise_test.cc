#include "ik/dynamics/wind_noise.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "gtest/gtest.h"

namespace ik {
namespace {

constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

WindSettings Gusty(uint64_t seed) {
  WindSettings wind;
  wind.strength = 4.0;
  wind.direction = Vec3(1.0, 0.0, 1.0);
  wind.turbulence = 0.7;
  wind.gust_frequency = 1.5;
  wind.seed = seed;
  return wind;
}

bool SameBits(const Vec3& a, const Vec3& b) {
  return std::memcmp(&a, &b, sizeof(Vec3)) == 0;
}

TEST(WindAccelerationTest, SameSettingsAndTimeGiveTheSameBits) {
  const WindSettings wind = Gusty(42);
  for (double time = 0.0; time < 20.0; time += 0.37) {
    EXPECT_TRUE(SameBits(WindAcceleration(wind, time),
                         WindAcceleration(Gusty(42), time)))
        << time;
  }
}

TEST(WindAccelerationTest, DifferentSeedsGiveDifferentWinds) {
  double largest_difference = 0.0;
  for (double time = 0.0; time < 20.0; time += 0.5) {
    largest_difference = std::max(
        largest_difference, glm::length(WindAcceleration(Gusty(1), time) -
                                        WindAcceleration(Gusty(2), time)));
  }
  EXPECT_GT(largest_difference, 1.0);
}

TEST(WindAccelerationTest, NoStrengthMeansNoWind) {
  WindSettings wind = Gusty(3);
  wind.strength = 0.0;
  EXPECT_EQ(WindAcceleration(wind, 12.5), Vec3(0.0));
}

TEST(WindAccelerationTest, NoTurbulenceGivesASteadyWind) {
  WindSettings wind = Gusty(3);
  wind.turbulence = 0.0;
  const Vec3 expected = 4.0 * glm::normalize(Vec3(1.0, 0.0, 1.0));
  for (double time : {0.0, 0.3, 7.0, 1e6}) {
    const Vec3 acceleration = WindAcceleration(wind, time);
    EXPECT_NEAR(glm::length(acceleration - expected), 0.0, 1e-12) << time;
  }
}

TEST(WindAccelerationTest, StrengthStaysWithinItsTurbulenceBand) {
  const WindSettings wind = Gusty(9);
  double weakest = 1e9;
  double strongest = 0.0;
  double mean_alignment = 0.0;
  int samples = 0;
  for (double time = 0.0; time < 200.0; time += 0.05) {
    const Vec3 acceleration = WindAcceleration(wind, time);
    const double strength = glm::length(acceleration);
    weakest = std::min(weakest, strength);
    strongest = std::max(strongest, strength);
    mean_alignment +=
        glm::dot(acceleration / strength, glm::normalize(wind.direction));
    ++samples;
  }
  EXPECT_GE(weakest, 4.0 * (1.0 - 0.7) - 1e-12);
  EXPECT_LE(strongest, 4.0 * (1.0 + 0.7) + 1e-12);
  // It does gust: the strength uses a good part of the band.
  EXPECT_LT(weakest, 3.0);
  EXPECT_GT(strongest, 5.0);
  // And it blows along the mean direction on average.
  EXPECT_GT(mean_alignment / samples, 0.8);
}

TEST(WindAccelerationTest, VariesSmoothlyIncludingAcrossKnots) {
  const WindSettings wind = Gusty(5);
  // Knots fall every 1 / 1.5 s (and every 1 / 3 s for the fine gusts).
  for (int knot = 1; knot < 30; ++knot) {
    const double time = knot / 3.0;
    const double h = 1e-6;
    const Vec3 before = WindAcceleration(wind, time - h);
    const Vec3 at = WindAcceleration(wind, time);
    const Vec3 after = WindAcceleration(wind, time + h);
    // |dW/dt| is bounded by a few times strength * frequency.
    EXPECT_LT(glm::length(at - before), 100.0 * h) << time;
    EXPECT_LT(glm::length(after - at), 100.0 * h) << time;
  }
}

TEST(ValueNoiseTest, StaysInRangeAndHitsTheKnotValues) {
  for (double x = 0.0; x < 50.0; x += 0.013) {
    const double value = ValueNoise(77, 2, x);
    EXPECT_GE(value, -1.0);
    EXPECT_LE(value, 1.0);
  }
  // At a knot both neighbouring cells agree (continuity).
  for (double knot = 1.0; knot < 20.0; knot += 1.0) {
    EXPECT_NEAR(ValueNoise(77, 2, knot - 1e-12), ValueNoise(77, 2, knot), 1e-9);
  }
  // Channels are independent streams.
  EXPECT_NE(ValueNoise(77, 2, 3.5), ValueNoise(77, 3, 3.5));
}

TEST(WindAccelerationTest, IsFiniteAtTheEndOfItsTimeRange) {
  WindSettings wind = Gusty(1);
  wind.gust_frequency = kMaxGustFrequency;
  wind.turbulence = 1.0;
  EXPECT_TRUE(IsFinite(WindAcceleration(wind, kMaxWindTime)));
}

void ExpectInvalid(const WindSettings& wind, const char* field) {
  const absl::Status status = wind.Validate();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << field;
  EXPECT_TRUE(absl::StartsWith(status.message(), field)) << status.message();
}

TEST(WindSettingsTest, DefaultsAndGustySettingsAreValid) {
  EXPECT_TRUE(WindSettings().Validate().ok());
  EXPECT_TRUE(Gusty(1).Validate().ok());
  WindSettings calm;
  calm.direction = Vec3(0.0);  // fine without strength
  EXPECT_TRUE(calm.Validate().ok());
}

TEST(WindSettingsTest, RejectsEachBadFieldByName) {
  for (double strength : {-1.0, kNan, kInf, 2.0 * kMaxWindStrength}) {
    WindSettings wind = Gusty(1);
    wind.strength = strength;
    ExpectInvalid(wind, "strength: ");
  }
  for (const Vec3& direction :
       {Vec3(kNan, 0.0, 0.0), Vec3(0.0, kInf, 0.0), Vec3(0.0)}) {
    WindSettings wind = Gusty(1);
    wind.direction = direction;
    ExpectInvalid(wind, "direction: ");
  }
  for (double turbulence : {-0.1, 1.5, kNan}) {
    WindSettings wind = Gusty(1);
    wind.turbulence = turbulence;
    ExpectInvalid(wind, "turbulence: ");
  }
  for (double frequency : {0.0, -1.0, kNan, kInf, 2.0 * kMaxGustFrequency}) {
    WindSettings wind = Gusty(1);
    wind.gust_frequency = frequency;
    ExpectInvalid(wind, "gust_frequency: ");
  }
}

}  // namespace
}  // namespace ik
