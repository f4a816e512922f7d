// FABRIK (forward and backward reaching inverse kinematics) for chains of
// 2..kMaxChainJoints joints (Aristidou & Lasenby 2011, "FABRIK: A fast,
// iterative solver for the Inverse Kinematics problem"; as the FABRIKSolver
// of Szauer, "Hands-On C++ Game Animation Programming" (2020), ch. 13).
//
// Each iteration works on model-space positions: the backward pass puts
// the tip on the target and walks to the root keeping the bone lengths; the
// forward pass puts the root back and walks out again. A target farther
// from the root than the chain is long is reached for in a straight line.
// The positions are then turned back into local rotations root first: each
// joint takes the correction that turns its bone towards where the passes
// put the next joint (the shortest arc, or for a hinge the turn about its
// axis), in the joint's own frame. Without limits the iterations stay on
// positions and are converted once, at the end (or when they reach the
// target, to confirm that on the rotations). Before them, when the target
// is in reach and about as far from the root as the tip or farther (at
// least 99.5% as far) and the chain is bent, the chain is first turned
// rigidly about the root so that the root -> tip line points at the
// target (the "aim" initialisation: the passes then only have to bend or
// unbend it, which near full reach saves many iterations). The conversion:
// each bone swings by the shortest arc in model space from its direction
// under the locals' current rotations onto the one the passes gave it, and
// each joint's local rotation follows from its and its parent's new model
// rotations.
//
// On two bones (three joints) without limits, the first iteration goes
// straight to where the passes converge, in closed form: every point they
// place stays in the half-plane bounded by the root -> target line that
// holds the elbow they start from (after the aim), and the one pose there
// with both bones' lengths and the tip on the target has its elbow at the
// apex of the triangle the two bones make with that line. It counts as one
// iteration; when it reaches the target (its common outcome: the tip lands
// on it to rounding) the solve stops there, otherwise the iterations go on
// from it. It is skipped (the iterations as above) when the target is not
// strictly within the ring the bones reach or the elbow lies on the
// root -> target line (within 1e-6 of its distance from the root), where
// the passes never leave that line.
//
// With limits, every iteration goes positions -> rotations -> limits ->
// positions, as Szauer's constrained FABRIKSolver does, and is shaped by
// them the way Aristidou and Lasenby's constrained FABRIK is:
//   - the backward pass keeps each bone where the next joint's limit lets
//     the next bone be (inside its cone; in its hinge's plane at a bend
//     within the range), carrying joint frames along by shortest arcs;
//   - the forward pass is the conversion itself: each joint aims, is
//     clamped to its limit at once, and the next joint starts from where it
//     really is;
//   - a joint whose child is a hinge also turns about its own bone so the
//     hinge's plane holds the bend the passes asked for (a shortest arc
//     would leave the hinge unable to bend that way); when its own limit
//     forbids that plane, the pair swivels about the line to the
//     grandchild's target to the nearest turn the limit allows.
// With limits, FABRIK can stall in a corner of a limit (typically the
// shoulder's twist and cone together), where the passes keep leading the
// chain into the limit: an iteration stops improving though the target is
// in reach. When that happens short of the tolerance and iterations
// remain, the solve goes on with CCD sweeps (ik/solvers/ccd.h, whose swivels
// about the joint -> target line get out of such corners) under the same cap
// and stopping rules, and reports as FABRIK: `iterations` counts the FABRIK
// iterations and the CCD sweeps together (a rejected one included), and the
// stop reason and clamped joints are those of the last of them.
// Stopping rules, limits and the report: ik/solvers/chain_job.h. The property
// test (tests/core/chain_property_test.cc) measures how often targets in reach
// within the example rigs' limits are met.
//
//   ik::ChainWorkspace workspace;  // reuse it: ~11 KiB
//   ik::SolveReport report;
//   ik::FabrikJob job;
//   job.parent_model = shoulder_parent_model;
//   job.locals = absl::MakeSpan(arm_locals);  // shoulder, elbow, wrist
//   job.target_model = target;
//   job.workspace = &workspace;
//   job.report = &report;
//   absl::Status status = job.Run();
#ifndef IK_FABRIK_H_
#define IK_FABRIK_H_

#include "absl/status/status.h"
#include "ik/solvers/chain_job.h"

namespace ik {

// Inputs, outputs and Validate(): ChainJob.
struct FabrikJob : ChainJob {
  // Validates, then solves. Never produces NaN for valid input; an
  // unreachable target is not an error (reached = false).
  absl::Status Run() const;
};

}  // namespace ik

#endif  // IK_FABRIK_H_
