// StrandDeltasQuad and StrandOutputsQuad (dynamics/dynamics_internal.h): the
// lane code of dynamics/strand_rotations_kernel.h in the four double lanes
// of AVX (vaddpd, vmulpd, vdivpd and vsqrtpd on 256-bit registers; no FMA).
// Every function this file defines after its includes is compiled for AVX
// (a target pragma, so that nothing else of the build is): none may run
// before internal::HasAvxLanes() says the processor has AVX.
#include <cmath>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "base/trig_lanes.h"
#include "dynamics/dynamics_internal.h"
#include "ik/base/math.h"
#include "ik/base/validate.h"

#if defined(__x86_64__)

#include "base/avx_target_begin.h"  // NOLINT(build/include)

namespace ik {
namespace {

#include "base/lanes_avx_kernel.h"             // NOLINT(build/include)
#include "base/vector_lanes_kernel.h"          // NOLINT(build/include)
#include "dynamics/strand_rotations_kernel.h"  // NOLINT(build/include)

}  // namespace

namespace dynamics_internal {

int StrandDeltasQuad(int i, int count, const Transform* animated,
                     const Vec3* positions, Quat* deltas) {
  return StrandDeltasFrom(i, count, animated, positions, deltas);
}
int StrandOutputsQuad(int j, int count, const Transform* animated,
                      const Quat* deltas, Quat* rotations_out,
                      Quat* corrections_out) {
  return StrandOutputsFrom(j, count, animated, deltas, rotations_out,
                           corrections_out);
}

}  // namespace dynamics_internal
}  // namespace ik

#include "base/avx_target_end.h"  // NOLINT(build/include)

#else  // not x86-64: HasAvxLanes() is false, and these are never called

namespace ik::dynamics_internal {

int StrandDeltasQuad(int i, int, const Transform*, const Vec3*, Quat*) {
  return i;
}
int StrandOutputsQuad(int j, int, const Transform*, const Quat*, Quat*, Quat*) {
  return j;
}

}  // namespace ik::dynamics_internal

#endif
