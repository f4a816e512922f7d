// Seeded, deterministic wind for the dynamic-bone simulation: a disturbance
// acceleration of varying direction, strength and duration.
//
// The wind is a pure function of (settings, time): smooth value noise over a
// lattice in time whose knot values come from an integer hash of (seed,
// channel, knot index). No global or std:: random generator is involved, so
// the same settings and time give the same bits on every call and replica,
// and a stateless caller only has to carry the time.
//
//   ik::WindSettings wind;
//   wind.strength = 3.0;                  // m/s²
//   wind.direction = {1.0, 0.0, 0.0};
//   wind.turbulence = 0.5;
//   wind.seed = 42;
//   ik::Vec3 acceleration = ik::WindAcceleration(wind, /*time=*/1.25);
#ifndef IK_WIND_NOISE_H_
#define IK_WIND_NOISE_H_

#include <cstdint>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "ik/base/math.h"

namespace ik {

// Bounds Validate() enforces: they keep every product in the simulation far
// from overflow.
inline constexpr double kMaxWindStrength = 1e4;   // m/s²
inline constexpr double kMaxGustFrequency = 1e3;  // Hz
inline constexpr double kMaxWindTime = 1e9;       // s, about 31 years
inline constexpr double kMinWindDirectionLength = 1e-9;

// Wind as an acceleration field that varies in time only (every joint of a
// chain feels the same wind at the same instant; per-joint scale is a
// dynamic-chain setting). Plain data with in-class defaults: no wind.
struct WindSettings {
  // Mean acceleration, m/s², in [0, kMaxWindStrength]. 0 turns wind off.
  double strength = 0.0;
  // Mean direction, world space (the simulation's frame). Need not be unit
  // length; must be at least kMinWindDirectionLength long when strength > 0.
  Vec3 direction{0.0, 0.0, 1.0};
  // In [0, 1]: how much the wind varies. Strength varies within
  // strength * [1 - turbulence, 1 + turbulence] (two octaves of gusts), and
  // the direction is the mean direction plus up to `turbulence` per axis
  // (unit-direction units), renormalised. 0: a steady wind.
  double turbulence = 0.0;
  // How often the noise lattice has a new knot, Hz, in (0,
  // kMaxGustFrequency]: the typical rate of gusts and direction changes.
  double gust_frequency = 0.5;
  // Selects the noise: different seeds give unrelated winds.
  uint64_t seed = 0;

  // INVALID_ARGUMENT naming the field under `path` ("<path>.strength: ...",
  // or "strength: ..." for an empty path) when a value is not finite or out
  // of range.
  absl::Status Validate(absl::string_view path = "") const;
};

// The wind's acceleration at `time` (seconds, in [0, kMaxWindTime]), world
// space. Continuous in time with continuous first and second derivatives
// (quintic interpolation between knots). Zero when strength is 0. The
// settings must be valid (Validate()); the result is then finite.
Vec3 WindAcceleration(const WindSettings& wind, double time);

// Value noise in [-1, 1] of one channel at lattice coordinate `x` (knots at
// integers, x in [0, 2^62)): the building block of WindAcceleration,
// exposed for tests. Deterministic in (seed, channel, x).
double ValueNoise(uint64_t seed, uint64_t channel, double x);

}  // namespace ik

#endif  // IK_WIND_NOISE_H_
