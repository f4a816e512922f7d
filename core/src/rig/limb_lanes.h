// Starting limited limbs' solves side by side: the middle joints'
// StartMidWithinLimit (rig/two_bone_limits.h) for a group of limbs in SIMD
// lanes. Not part of the public API.
#ifndef IK_SRC_RIG_LIMB_LANES_H_
#define IK_SRC_RIG_LIMB_LANES_H_

#include "absl/types/span.h"
#include "ik/base/math.h"
#include "ik/rig/rig.h"
#include "rig/two_bone_limits.h"

namespace ik::internal {

// Starts (TwoBoneLimbSolve::Start) each of `solves` that awaits it: those
// with a hinge middle joint four at a time in AVX lanes where the
// processor has AVX (HasAvxLanes, base/trig_lanes.h), else two at a time
// in SSE2 lanes, the others and any left over one at a time; every start
// with StartMidWithinLimit's bits, whatever the grouping.
void StartLimbs(absl::Span<TwoBoneLimbSolve* const> solves);

// StartMidWithinLimit for two hinge middle joints `mids` of incoming local
// rotations `rotations`, in SSE2 lanes (elsewhere one at a time), into
// starts[0..1].
void StartHingePair(const JointDefinition* const mids[2],
                    const Quat rotations[2], MidStart starts[2]);

// StartMidWithinLimit for four hinge middle joints `mids` of incoming local
// rotations `rotations`, in AVX lanes, into starts[0..3]. Only where
// HasAvxLanes().
void StartHingeQuad(const JointDefinition* const mids[4],
                    const Quat rotations[4], MidStart starts[4]);

}  // namespace ik::internal

#endif  // IK_SRC_RIG_LIMB_LANES_H_
