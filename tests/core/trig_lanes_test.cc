// The lanes of base/trig_lanes.h against ik/base/trig.h's scalar functions:
// the same bits on every lane, for seeded arguments across the magnitudes
// the solvers see (and far beyond), both lanes drawn independently, and for
// the special values (signed zeros, infinities, NaN, the ends of acos's and
// asin's domain, subnormals).
#include "base/trig_lanes.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "gtest/gtest.h"
#include "ik/base/trig.h"

namespace ik::internal {
namespace {

using Limits = std::numeric_limits<double>;

// The bits of a double: NaNs compare by their bits too.
std::uint64_t Bits(double x) {
  std::uint64_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  return bits;
}

// Seeded arguments: uniform in [-1, 1] (acos's and asin's domain, the
// cosines the solvers take angles of), in [-4 pi, 4 pi] (angles), and
// sign * 2^e for e in [-60, 60] (ratios of tiny and huge lengths), then the
// special values.
std::vector<double> Arguments(std::uint64_t seed, int count) {
  std::mt19937_64 engine(seed);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  std::uniform_real_distribution<double> exponent(-60.0, 60.0);
  std::vector<double> arguments;
  for (int i = 0; i < count; ++i) {
    const double u = unit(engine);
    switch (i % 3) {
      case 0:
        arguments.push_back(u);
        break;
      case 1:
        arguments.push_back(4.0 * 3.141592653589793 * u);
        break;
      default:
        arguments.push_back(std::copysign(std::exp2(exponent(engine)), u));
    }
  }
  for (const double special :
       {0.0, -0.0, 1.0, -1.0, 0.5, -0.5, Limits::infinity(),
        -Limits::infinity(), Limits::quiet_NaN(), Limits::denorm_min(),
        -Limits::denorm_min(), Limits::min(), Limits::max(), -Limits::max(),
        1.0 + Limits::epsilon(), -1.0 - Limits::epsilon(), 1e300, 1e-300}) {
    arguments.push_back(special);
  }
  return arguments;
}

// One argument's function: each lane against the scalar, for every pair
// of arguments taken in order and against a shuffled partner.
template <typename LaneFunction, typename ScalarFunction>
void ExpectSameBits(const char* name, LaneFunction lanes,
                    ScalarFunction scalar) {
  const std::vector<double> x = Arguments(20261128, 300000);
  for (size_t i = 0; i < x.size(); ++i) {
    const double partner = x[(i * 7919) % x.size()];
    const Lanes2 result = lanes(Lanes2{x[i], partner});
    ASSERT_EQ(Bits(result[0]), Bits(scalar(x[i])))
        << name << "(" << x[i] << ")";
    ASSERT_EQ(Bits(result[1]), Bits(scalar(partner)))
        << name << "(" << partner << ")";
  }
}

TEST(TrigLanesTest, SinCosAcosAsinGiveTheScalarBitsOnEachLane) {
  ExpectSameBits("sin", SinLanes, Sin);
  ExpectSameBits("cos", CosLanes, Cos);
  ExpectSameBits("acos", AcosLanes, Acos);
  ExpectSameBits("asin", AsinLanes, Asin);
}

TEST(TrigLanesTest, Atan2GivesTheScalarBitsOnEachLane) {
  const std::vector<double> y = Arguments(20261129, 300000);
  const std::vector<double> x = Arguments(20261130, 300000);
  ASSERT_EQ(x.size(), y.size());
  for (size_t i = 0; i < x.size(); ++i) {
    // Every special value against every other one, and the draws paired.
    const size_t j = (i * 104729) % x.size();
    const Lanes2 result = Atan2Lanes(Lanes2{y[i], y[j]}, Lanes2{x[i], x[j]});
    ASSERT_EQ(Bits(result[0]), Bits(Atan2(y[i], x[i])))
        << "atan2(" << y[i] << ", " << x[i] << ")";
    ASSERT_EQ(Bits(result[1]), Bits(Atan2(y[j], x[j])))
        << "atan2(" << y[j] << ", " << x[j] << ")";
  }
  const std::vector<double> special = Arguments(0, 0);
  for (const double a : special) {
    for (const double b : special) {
      const Lanes2 result = Atan2Lanes(Lanes2{a, b}, Lanes2{b, a});
      ASSERT_EQ(Bits(result[0]), Bits(Atan2(a, b)))
          << "atan2(" << a << ", " << b << ")";
      ASSERT_EQ(Bits(result[1]), Bits(Atan2(b, a)))
          << "atan2(" << b << ", " << a << ")";
    }
  }
}

}  // namespace
}  // namespace ik::internal
