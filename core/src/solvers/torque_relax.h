// The torque solver's relaxation towards a preferred pose: the continuity
// pass of SolveChainJob's iterative answers (rig/solve_iterative.cc). Not
// part of the public API.
#ifndef IK_SRC_SOLVERS_TORQUE_RELAX_H_
#define IK_SRC_SOLVERS_TORQUE_RELAX_H_

#include "absl/status/status.h"
#include "ik/solvers/torque.h"

namespace ik::internal {

// From the chain in job.locals (the incoming pose, or an answer with its
// tip at the target): each iteration is the torque solver's damped step
// towards the target with springs turning every joint back towards its
// settings.joints[j].preferred_rotation in the null space of the tip's
// move (only what the target does not need); limits are applied after
// every step, a joint its limit clamped leaving the springs' part by the
// share of its turn the clamp took back. It stops once a step moves no
// joint by 2e-3 rad, or after job.max_iterations iterations, and then
// takes at most 32 steps without springs until the tip is within a tenth
// of the tolerance. From the
// preferred pose itself this walks the chain onto the target along a path
// that moves smoothly with the target; from an answer it relaxes it
// towards the exact solution nearest the preferred pose reached without
// leaving the target (a local minimum of the distance to it). Outputs as
// TorqueJob::Run (iterations: the relaxation's; kReached when the tip
// ends within tolerance, else kNoImprovement).
absl::Status RelaxTowardsPreferred(const TorqueJob& job);

// From the chain in job.locals (the incoming pose), the tip led towards
// job.target_model along the shortest arc about the chain's start, its
// distance from there changing evenly on the way: one damped step of the
// torque solver (no springs; limits applied) onto each of a sequence of
// stages on the arc, a stage for every 0.2 rad of the arc and every 1/16
// of the chain's length of the distance's change, the last one short of
// the target (RelaxTowardsPreferred finishes). The stages follow the
// exact answers continuously as the arc moves with the target: a walk
// straight onto the target lets the damped steps settle in whichever
// basin they reach, which jumps between neighbouring targets from a far
// incoming pose. The arc is undefined where the target lies opposite the
// incoming tip; there the pose jumps. Leaves job's outputs unset.
absl::Status ApproachAlongArc(const TorqueJob& job);

}  // namespace ik::internal

#endif  // IK_SRC_SOLVERS_TORQUE_RELAX_H_
