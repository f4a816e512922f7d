// SubstepQuad (dynamics/step_lanes.h): the lane code of
// dynamics/step_lanes_kernel.h in the four double lanes of AVX (vaddpd,
// vmulpd, vdivpd and vsqrtpd on 256-bit registers; no FMA). Every function
// this file defines after its includes is compiled for AVX (a target
// pragma, so that nothing else of the build is): none may run before
// internal::HasAvxLanes() says the processor has AVX.
#include <cmath>
#include <cstddef>
#include <cstring>
#include <type_traits>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "absl/numeric/bits.h"
#include "base/trig_lanes.h"
#include "dynamics/dynamics_internal.h"
#include "dynamics/step_lanes.h"
#include "ik/base/math.h"

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

#include "base/lanes_avx_kernel.h"       // NOLINT(build/include)
#include "base/vector_lanes_kernel.h"    // NOLINT(build/include)
#include "dynamics/step_lanes_kernel.h"  // NOLINT(build/include)

}  // namespace

namespace dynamics_internal {

void SubstepQuad(const LaneSubstep& substep) { SubstepLanesFrom(substep, 0); }

}  // namespace dynamics_internal
}  // namespace ik

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

#else  // not x86-64: HasAvxLanes() is false, and this is never called

namespace ik::dynamics_internal {

void SubstepQuad(const LaneSubstep& substep) {
  SubstepPair(substep, 0);
  SubstepPair(substep, 2);
}

}  // namespace ik::dynamics_internal

#endif
