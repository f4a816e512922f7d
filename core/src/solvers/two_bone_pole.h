// Step 3 of the two-bone solve (two_bone.cc): the twist of the root towards
// the pole. Not part of the public API.
#ifndef IK_SRC_TWO_BONE_POLE_H_
#define IK_SRC_TWO_BONE_POLE_H_

#include "ik/base/math.h"

namespace ik::internal {

// A pole (or middle joint) closer to the root-target line than this fraction
// of its distance counts as on the line.
inline constexpr double kOnLineSine = 1e-9;

// Step 3 of the solve: the twist about the root-target axis that brings the
// middle joint into the plane of root, target and pole, on the pole's side.
// Identity when the pole (or the middle joint) is on the axis. Arguments are
// model-space offsets from the root; `bend_axis` is n times the bend's sign,
// used when the solved limb is straight: the middle joint's side is then
// k x n, which the bent solutions approach, so the twist stays continuous.
Quat TwistTowardsPole(const Vec3& pole_offset, const Vec3& to_target,
                      double target_length, const Quat& swing,
                      const Vec3& upper, const Vec3& root_to_tip,
                      const Vec3& bend_axis, double upper_sq);

}  // namespace ik::internal

#endif  // IK_SRC_TWO_BONE_POLE_H_
