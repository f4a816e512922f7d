// A two-bone limb's middle joint on a hinge: the two bends that give the
// limb one length (mirrored about the hinge angle where the limb is
// straightest), and how near a limb is to the half-turn flip of the
// solver's plane as its bend changes side. Used by the limited two-bone
// solve (rig/two_bone_limits.h) and its singularity report
// (rig/solve_chain.cc). Not part of the public API.
#ifndef IK_SRC_RIG_HINGE_BEND_H_
#define IK_SRC_RIG_HINGE_BEND_H_

#include <optional>

#include "ik/base/math.h"
#include "ik/rig/rig.h"

namespace ik::internal {

// The middle joint `mid` (a hinge) turned from its local rotation
// `mid_turned` to the mirrored bend about the straightest (the same limb
// length, bent the other way), when the hinge's range holds it and it
// differs. `upper_local` is the middle joint's translation in the root's
// frame, `tip_translation` the tip's in the middle joint's.
std::optional<Quat> MirroredBend(const JointDefinition& mid,
                                 const Vec3& upper_local,
                                 const Vec3& tip_translation,
                                 const Quat& mid_turned);

// Where the hinge `mid`'s range holds its straightest angle inside it (the
// limb may bend either way), the two-bone solver's plane flips by a half
// turn about the root -> target line as its bend changes side: TwoBoneJob
// bends to the incoming bend's side when that side's range holds the
// bend. The nearer of two angles, radians in [0, pi/2]: the incoming bend
// (`incoming_mid`) from straight or folded, where the answer's bend
// (`answer_mid`) could also go the other way; and, for an incoming bend on
// the side with less range, the answer's bend on that side from that
// side's end of the range (where that side's solutions end). nullopt for a
// range that ends at or before straight, or neither angle. `upper_local`
// and `tip_translation` as MirroredBend's.
std::optional<double> HingeFlipAngle(const JointDefinition& mid,
                                     const Vec3& upper_local,
                                     const Vec3& tip_translation,
                                     const Quat& incoming_mid,
                                     const Quat& answer_mid);

}  // namespace ik::internal

#endif  // IK_SRC_RIG_HINGE_BEND_H_
