// StartLimbs' groups of four (rig/limb_lanes.h): the lane code
// of rig/limb_lanes_kernel.h in the four double lanes of AVX (vmulpd, vdivpd
// and vsqrtpd on 256-bit registers; no FMA), the angles through the two-lane
// atan2 of base/trig_lanes.h. Every function this file defines after its
// includes is compiled for AVX (a target pragma, so that nothing else of the
// build is): none may run before internal::HasAvxLanes() says the processor has
// AVX.
#include <cmath>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "base/trig_lanes.h"
#include "ik/base/joint_limits.h"
#include "ik/base/math.h"
#include "ik/rig/rig.h"
#include "rig/limb_lanes.h"
#include "rig/two_bone_limits.h"

#if defined(__x86_64__)

#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx"))), \
                             apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx")
#endif

namespace ik {
namespace {

using internal::JointConstraintOf;
using internal::MidStart;
using internal::StartMidWithinLimit;

// Four lanes of AVX.
using D = double __attribute__((vector_size(32)));
constexpr int kLanes = 4;
inline D Sqrt(D v) { return D(_mm256_sqrt_pd(__m256d(v))); }
// Atan2, Sin and Cos through the two-lane SSE2 functions on each half, as
// in solvers/two_bone_lanes_avx.cc (the halves' ABI both compilers share).
inline D Atan2Lanes(D y, D x) {
  const internal::Lanes2 low = internal::Atan2Lanes(
      internal::Lanes2{y[0], y[1]}, internal::Lanes2{x[0], x[1]});
  const internal::Lanes2 high = internal::Atan2Lanes(
      internal::Lanes2{y[2], y[3]}, internal::Lanes2{x[2], x[3]});
  return D{low[0], low[1], high[0], high[1]};
}
inline D SinLanes(D x) {
  const internal::Lanes2 low = internal::SinLanes(internal::Lanes2{x[0], x[1]});
  const internal::Lanes2 high =
      internal::SinLanes(internal::Lanes2{x[2], x[3]});
  return D{low[0], low[1], high[0], high[1]};
}
inline D CosLanes(D x) {
  const internal::Lanes2 low = internal::CosLanes(internal::Lanes2{x[0], x[1]});
  const internal::Lanes2 high =
      internal::CosLanes(internal::Lanes2{x[2], x[3]});
  return D{low[0], low[1], high[0], high[1]};
}

#include "base/vector_lanes_kernel.h"  // NOLINT(build/include)
#include "rig/limb_lanes_kernel.h"     // NOLINT(build/include)

}  // namespace

namespace internal {

void StartHingeQuad(const JointDefinition* const mids[4],
                    const Quat rotations[4], MidStart starts[4]) {
  StartHingeLanes(mids, rotations, starts);
}

}  // namespace internal
}  // namespace ik

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

#else  // not x86-64: HasAvxLanes() is false, and this is never called

namespace ik::internal {

void StartHingeQuad(const JointDefinition* const mids[4],
                    const Quat rotations[4], MidStart starts[4]) {
  for (int i = 0; i < 4; ++i) {
    starts[i] = StartMidWithinLimit(*mids[i], JointConstraintOf(*mids[i]),
                                    rotations[i]);
  }
}

}  // namespace ik::internal

#endif
