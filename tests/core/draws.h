// Seeded draws in a fixed order. A function's arguments, or the operands of
// + and *, are evaluated in an order the compiler picks (GCC right to left,
// clang left to right), so Vec3(d(e), d(e), d(e)) gives GCC and clang
// different samples from the same seed; draw into named values, or with
// these, so both compilers test the same inputs.
#ifndef IK_TESTS_CORE_DRAWS_H_
#define IK_TESTS_CORE_DRAWS_H_

#include <random>

#include "ik/base/math.h"

namespace ik::testing {

// Three draws of `distribution`, x then y then z.
template <typename Distribution>
Vec3 DrawVec3(Distribution& distribution, std::mt19937_64& engine) {
  const double x = distribution(engine);
  const double y = distribution(engine);
  const double z = distribution(engine);
  return Vec3(x, y, z);
}

// Four draws of `distribution` as a quaternion's x, y, z, w, in that order.
template <typename Distribution>
Quat DrawQuat(Distribution& distribution, std::mt19937_64& engine) {
  const Vec3 v = DrawVec3(distribution, engine);
  const double w = distribution(engine);
  return MakeQuat(v.x, v.y, v.z, w);
}

}  // namespace ik::testing

#endif  // IK_TESTS_CORE_DRAWS_H_
