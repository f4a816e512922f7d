// CCD (cyclic coordinate descent) for chains of 2..kMaxChainJoints joints
// (Wang & Chen 1991, "A combined optimization method for solving the
// inverse kinematics problem of mechanical manipulators"; as the CCDSolver
// of Szauer, "Hands-On C++ Game Animation Programming" (2020), ch. 13).
//
// Each iteration walks the joints from the one before the tip back to the
// root and turns each so that the joint -> tip direction points along the
// joint -> target direction (the shortest arc, or for a hinge the best turn
// about its axis), taken into the joint's own frame, then clamps it to its
// limit straight away. A zero-length joint -> target (or joint -> tip)
// direction leaves the joint alone. The sweep stops early once the tip is
// within tolerance.
//
// Two refinements keep limits from trapping the sweep:
//   - a ball-and-socket joint whose aimed rotation breaks its limit first
//     swivels about the joint -> target line (which keeps the tip on that
//     line) to the nearest rotation the limit allows; it is clamped only
//     when none does;
//   - a hinge that the aim would pin past an end of its range (typically
//     straight, unable to bend the other way round), or that sits in the
//     dead spot where tip and target lie on one line from it, takes the
//     two-bone turn instead: the one that puts the tip at the target's
//     distance from its parent joint, so the parent's turn lands it.
// The same two-bone step ends every sweep of a chain of 3 or more joints
// whose root and second joint have no limits: the second joint bends in
// the plane of the root, itself and the tip (towards the target when the
// three lie on a line) so the tip lies at the target's distance from the
// root, and the root's aim then puts the tip on the target (as near as the
// bones reach). A free 3-joint chain is solved in one sweep; longer free
// chains take far fewer sweeps than plain CCD. Chains with a limit on
// either of those joints sweep as plain CCD with the refinements above.
// Stopping rules, limits and the report: ik/solvers/chain_job.h.
//
//   ik::ChainWorkspace workspace;  // reuse it: ~11 KiB
//   ik::SolveReport report;
//   ik::CcdJob job;
//   job.parent_model = tail_parent_model;
//   job.locals = absl::MakeSpan(tail_locals);
//   job.constraints = tail_constraints;
//   job.target_model = target;
//   job.workspace = &workspace;
//   job.report = &report;
//   absl::Status status = job.Run();
#ifndef IK_CCD_H_
#define IK_CCD_H_

#include "absl/status/status.h"
#include "ik/solvers/chain_job.h"

namespace ik {

// Inputs, outputs and Validate(): ChainJob.
struct CcdJob : ChainJob {
  // Validates, then solves. Never produces NaN for valid input; an
  // unreachable target is not an error (reached = false).
  absl::Status Run() const;
};

}  // namespace ik

#endif  // IK_CCD_H_
