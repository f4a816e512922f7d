// FABRIK's steps that deal with joint limits (fabrik_limits.cc), used by
// fabrik.cc. Not part of the public API.
#ifndef IK_SRC_FABRIK_INTERNAL_H_
#define IK_SRC_FABRIK_INTERNAL_H_

#include "ik/base/math.h"
#include "ik/solvers/chain_job.h"

namespace ik::internal {

// Part one (tip to root) with limits: as the plain backward pass, but each
// bone's direction is kept where the next joint's limit lets the next bone
// be: inside its cone, or in its hinge's plane at a bend within the range.
// Joint frames are carried along by the shortest arc from the bone's
// direction at the start of the iteration (the workspace's pose). This is
// Aristidou and Lasenby's constrained FABRIK, with our limits in place of
// their cones between bones; part two with limits is the conversion to
// rotations itself. Writes the workspace's reach_positions.
void ReachBackwardWithLimits(const ChainJob& job);

// For joint i whose child c = i + 1 is a hinge and not the tip: its model
// rotation `model_rotation` (the shortest-arc aim at c's reaching
// position), turned about its own bone so that c's hinge plane holds the
// direction from c to `grandchild_target`. There are two such planes (the
// hinge bending either way); when joint i's own ball-and-socket limit
// forbids a plane, the pair swivels about the line from joint i to
// `grandchild_target` (which keeps that target in the plane) to the nearest
// turn the limit allows. Preferred, in order: c's bend within its range, a
// plane joint i's limit allows, the smaller swivel, the smaller turn.
Quat AlignHingePlane(const ChainJob& job, int i, const Quat& parent_rotation,
                     const Quat& model_rotation, const Vec3& grandchild_target);

}  // namespace ik::internal

#endif  // IK_SRC_FABRIK_INTERNAL_H_
