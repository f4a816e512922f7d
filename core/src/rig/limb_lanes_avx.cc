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

#include "base/avx_target_begin.h"  // NOLINT(build/include)

namespace ik {
namespace {

#include "base/lanes_avx_kernel.h"  // NOLINT(build/include)
#include "rig/limb_lanes_kernel.h"  // NOLINT(build/include)

}  // namespace

namespace internal {

void StartHingeQuad(const JointDefinition* const mids[4],
                    const Quat rotations[4], MidStart starts[4]) {
  StartHingeLanes(mids, rotations, starts);
}

}  // namespace internal
}  // namespace ik

#include "base/avx_target_end.h"  // NOLINT(build/include)

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
