#include "ik/dynamics/wind_noise.h"

#include <cmath>
#include <cstdint>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "ik/base/validate.h"

namespace ik {
namespace {

// Noise channels: independent streams of knot values for one seed.
constexpr uint64_t kGustChannel = 0;
constexpr uint64_t kFineGustChannel = 1;
constexpr uint64_t kDirectionChannelX = 2;
constexpr uint64_t kDirectionChannelY = 3;
constexpr uint64_t kDirectionChannelZ = 4;

// The second gust octave runs this much faster and weighs this much.
constexpr double kFineGustRate = 2.0;
constexpr double kFineGustWeight = 0.35;

// SplitMix64's finaliser (Steele, Lea, Flood 2014): a bijective 64-bit mix
// whose every output bit depends on every input bit.
uint64_t Mix(uint64_t x) {
  x ^= x >> 30;
  x *= 0xBF58476D1CE4E5B9ULL;
  x ^= x >> 27;
  x *= 0x94D049BB133111EBULL;
  x ^= x >> 31;
  return x;
}

// The hash of a seed, mixed once per wind evaluation.
uint64_t SeedHash(uint64_t seed) { return Mix(seed + 0x9E3779B97F4A7C15ULL); }

// A knot value in [-1, 1] for a channel of a seed.
double KnotValue(uint64_t channel_hash, uint64_t knot) {
  const uint64_t h = Mix(channel_hash ^ knot);
  // The top 53 bits as a double in [0, 1), exactly representable.
  const double unit = static_cast<double>(h >> 11) * 0x1.0p-53;
  return 2.0 * unit - 1.0;
}

// 6t^5 - 15t^4 + 10t^3 (Perlin's fade): 0 and 1 at the knots with zero first
// and second derivatives there, so the noise is C2.
double Fade(double t) { return t * t * t * (t * (t * 6.0 - 15.0) + 10.0); }

// The hash of one channel of a seed (SeedHash), mixed once per channel.
inline uint64_t ChannelHash(uint64_t seed_hash, uint64_t channel) {
  return Mix(seed_hash ^ (channel * 0xD1B54A32D192ED03ULL));
}

// Where `x` falls on the lattice: its knot and the faded fraction past it,
// shared by every channel sampled at the same x.
struct LatticePoint {
  uint64_t knot;
  double fade;
};

inline LatticePoint LatticePointAt(double x) {
  const double knot = std::floor(x);
  return LatticePoint{static_cast<uint64_t>(knot), Fade(x - knot)};
}

// The noise of the channel whose hash is `channel_hash` at `point`: three
// chained mixes in all (seed, channel, knot), so that no two input triples
// are likely to collide.
inline double NoiseAt(uint64_t channel_hash, const LatticePoint& point) {
  const double before = KnotValue(channel_hash, point.knot);
  const double after = KnotValue(channel_hash, point.knot + 1);
  return before + (after - before) * point.fade;
}

bool InRange(double value, double low, double high) {
  return value >= low && value <= high;  // false for NaN
}

}  // namespace

double ValueNoise(uint64_t seed, uint64_t channel, double x) {
  return NoiseAt(ChannelHash(SeedHash(seed), channel), LatticePointAt(x));
}

absl::Status WindSettings::Validate(absl::string_view path) const {
  if (!InRange(strength, 0.0, kMaxWindStrength)) {
    return OutOfRange(FieldPath(path, "strength"), strength, 0.0,
                      kMaxWindStrength, " m/s²");
  }
  if (!IsFinite(direction) || !IsWithinRange(direction)) {
    return InvalidField(FieldPath(path, "direction"), "not finite");
  }
  if (strength > 0.0 && !(glm::length(direction) >= kMinWindDirectionLength)) {
    return InvalidField(FieldPath(path, "direction"),
                        "zero length with a non-zero strength");
  }
  if (!InRange(turbulence, 0.0, 1.0)) {
    return OutOfRange(FieldPath(path, "turbulence"), turbulence, 0.0, 1.0);
  }
  if (!(gust_frequency > 0.0 && gust_frequency <= kMaxGustFrequency)) {
    return InvalidField(FieldPath(path, "gust_frequency"),
                        absl::StrCat("must be within (0, ", kMaxGustFrequency,
                                     "] Hz, got ", gust_frequency));
  }
  return absl::OkStatus();
}

Vec3 WindAcceleration(const WindSettings& wind, double time) {
  if (wind.strength == 0.0) return Vec3(0.0);
  const Vec3 mean_direction = glm::normalize(wind.direction);
  if (wind.turbulence == 0.0) return wind.strength * mean_direction;

  const uint64_t seed_hash = SeedHash(wind.seed);
  const double x = time * wind.gust_frequency;
  const LatticePoint point = LatticePointAt(x);
  // Gusts: two octaves, normalised back into [-1, 1].
  const double gust =
      (NoiseAt(ChannelHash(seed_hash, kGustChannel), point) +
       kFineGustWeight * NoiseAt(ChannelHash(seed_hash, kFineGustChannel),
                                 LatticePointAt(kFineGustRate * x))) /
      (1.0 + kFineGustWeight);
  const double strength = wind.strength * (1.0 + wind.turbulence * gust);

  const Vec3 wander(NoiseAt(ChannelHash(seed_hash, kDirectionChannelX), point),
                    NoiseAt(ChannelHash(seed_hash, kDirectionChannelY), point),
                    NoiseAt(ChannelHash(seed_hash, kDirectionChannelZ), point));
  const Vec3 direction = mean_direction + wind.turbulence * wander;
  const double length = glm::length(direction);
  // The wander can cancel the mean direction (turbulence near 1): keep the
  // mean then rather than divide by (almost) zero.
  if (!(length >= kMinWindDirectionLength)) return strength * mean_direction;
  return (strength / length) * direction;
}

}  // namespace ik
