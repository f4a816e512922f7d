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

#include "base/avx_target_begin.h"  // NOLINT(build/include)

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

#include "base/avx_target_end.h"  // NOLINT(build/include)

#else  // not x86-64: HasAvxLanes() is false, and this is never called

namespace ik::dynamics_internal {

void SubstepQuad(const LaneSubstep& substep) {
  SubstepPair(substep, 0);
  SubstepPair(substep, 2);
}

}  // namespace ik::dynamics_internal

#endif
