// FABRIK's steps used by fabrik.cc: without joint limits (fabrik_free.cc)
// and with them (fabrik_limits.cc). Not part of the public API.
#ifndef IK_SRC_FABRIK_INTERNAL_H_
#define IK_SRC_FABRIK_INTERNAL_H_

#include "ik/base/math.h"
#include "ik/solvers/chain_job.h"

namespace ik::internal {

// A target beyond reach: every bone along root -> target, into `points`.
void ReachStraight(const ChainJob& job, const Vec3& root_position,
                   Vec3* points);

// Without limits, before the first iteration: whether FABRIK's "aim"
// initialisation (fabrik_free.cc) applies to the pose in `points` (model
// positions of the chain's joints), whose bones add up to `chain_length`.
bool AimApplies(const ChainJob& job, const Vec3& root_position,
                double chain_length, const Vec3* points);

// Two bones without limits: from the pose in `points` (forward kinematics
// of the locals), the pose FABRIK's passes converge to, into `apex` (root,
// elbow, target); false, writing nothing, where that closed form does not
// apply (fabrik_triangle.cc).
bool TriangleApex(const ChainJob& job, const Vec3& root_position,
                  const Vec3* points, Vec3* apex);

// TriangleApex's pose turned into the locals (the workspace holding the
// forward kinematics of the current ones), and the workspace's forward
// kinematics set to the result's.
void SetTriangle(const ChainJob& job, const Vec3& root_position,
                 const Vec3* apex);

// Without limits, two bones (three joints) and the workspace holding the
// forward kinematics of the locals: when the first iteration (the closed form
// of where FABRIK's passes converge, see IterateFree) reaches the target within
// tolerance, which is its common outcome, sets the locals to it, fills the
// outputs as FinishChainJob would and returns true; otherwise touches nothing
// and returns false (IterateFree then makes the same first iteration and goes
// on).
bool ReachTriangleAtOnce(const ChainJob& job, const Vec3& root_position);

// Without limits: the iterations on positions from the workspace's pose
// (forward kinematics of the locals, missing the target by
// sqrt(`best_squared`)), turned into rotations once at the end, or when
// they reach the target, to confirm that on the rotations (fabrik.h).
// Counts on from *iterations; leaves the locals and the workspace's forward
// kinematics on the answer and returns why it stopped.
StopReason IterateFree(const ChainJob& job, const Vec3& root_position,
                       bool out_of_reach, double chain_length,
                       double best_squared, int* iterations);

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
