// Simulated joint positions -> joint rotations: the last stage of the
// dynamic-bone step: each parent turns by the rotation that takes its bone
// from the old direction to the simulated one, smoothed, with the twist about
// the bone removed.
//
// Each joint keeps a world-space rotation delta D applied on top of its
// animated rotation (new world rotation = D * animated rotation). Per step:
//  - a = the animated direction from the joint to its child (for several
//    children, the sum of the unit directions to them), s = the same on the
//    simulated positions;
//  - D turns by lerp(identity, FromTo(D a, s), blend), renormalised, where
//    blend = 1 - (1 - rotation_blend)^substeps compounds the per-substep blend
//    lerp(identity, rot, rotation_blend), so the smoothing hardly depends on
//    the caller's frame rate (for a still target and slerp it would not at all;
//    lerp and a moving target leave a small difference). Blend 1 makes D a = s;
//  - with remove_twist, D is replaced by its swing about a (the swing-twist
//    decomposition D = swing * twist, twist about a, as ik/base/joint_limits.h
//    defines it): D a is unchanged, the spin about the bone is gone;
//  - a leaf (no child) takes its parent's D, so its local rotation does not
//    change.
// The outputs follow: rotations_world = D * R and corrections_local =
// R^-1 * D_parent^-1 * D * R (R the animated world rotation; the root's
// parent is not simulated, so D_parent = identity for joint 0), to be
// post-multiplied into the animated local rotation. With blend 1 and a
// single child per joint, forward kinematics of the corrected pose puts
// every joint at its simulated position (when the chain's lengths match the
// animated pose's).
//
// StepDynamicsJob::Run calls this after its substeps; it is public so that
// the conversion can be tested and reused on its own.
#ifndef IK_DYNAMIC_ROTATIONS_H_
#define IK_DYNAMIC_ROTATIONS_H_

#include "absl/types/span.h"
#include "ik/base/math.h"
#include "ik/dynamics/dynamic_chain.h"

namespace ik {

// Updates `deltas_world` (in/out, one D per joint, unit length) from the
// simulated `positions_world` and writes the optional outputs (an empty
// span skips one). `substeps` is the number of substeps simulated since the
// last update (0 leaves every D as it is). It is the caller's
// responsibility that the chain is valid and every span other than an
// empty output has one entry per chain joint, with finite values and unit
// animated rotations (StepDynamicsJob::Validate checks all of it). Never
// produces NaN for such input. Allocates nothing.
void UpdateDynamicRotations(const DynamicChain& chain,
                            absl::Span<const Transform> animated_world,
                            absl::Span<const Vec3> positions_world,
                            int substeps, absl::Span<Quat> deltas_world,
                            absl::Span<Quat> rotations_world,
                            absl::Span<Quat> corrections_local);

}  // namespace ik

#endif  // IK_DYNAMIC_ROTATIONS_H_
