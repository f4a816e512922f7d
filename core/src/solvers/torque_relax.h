// The torque solver's relaxation towards a preferred pose: the continuity
// pass of SolveChainJob's iterative answers (rig/solve_iterative.cc). Not
// part of the public API.
#ifndef IK_SRC_SOLVERS_TORQUE_RELAX_H_
#define IK_SRC_SOLVERS_TORQUE_RELAX_H_

#include "absl/status/status.h"
#include "ik/solvers/torque.h"

namespace ik::internal {

// From the chain in job.locals (an answer with its tip at the target):
// each iteration springs every joint back towards its
// settings.joints[j].preferred_rotation in the null space of the tip's
// move (the torque solver's step with springs: only what the target does
// not need), then takes one damped step back onto the target; limits are
// applied after every step. It stops once the springs turn no joint by
// 1e-4 rad, or after job.max_iterations iterations, and then takes at
// most 8 steps without springs until the tip is within a tenth of the
// tolerance. The pose ends near the exact solution nearest the preferred
// pose that is reached from the answer without leaving the target: a
// local minimum of the distance to it. Outputs as TorqueJob::Run
// (iterations: the relaxation's; kReached when the tip ends within
// tolerance, else kNoImprovement).
absl::Status RelaxTowardsPreferred(const TorqueJob& job);

}  // namespace ik::internal

#endif  // IK_SRC_SOLVERS_TORQUE_RELAX_H_
