// The torque solver for chains of 2..kMaxChainJoints joints, after Hugo
// Elias's article on iterative inverse kinematics: a virtual force f pulls
// the tip towards the target, and every joint turns in proportion to the
// torque that force exerts about it. That is a Jacobian-transpose method.
//
// The torque. Elias's rule for one axis a of a joint, with b the bone
// and r perpendicular to both, is
//   torque = |f| sin(a, f) sin(b, f) sign(cos(r, f)) k,
// with b running from the joint to the tip for a twist axis (a along the
// bone). Here b is the joint -> tip vector for every axis (for Elias's
// one-bone figures the two coincide), which makes every torque the
// derivative of the tip's approach to the target: a joint free to turn about
// any axis (ball-and-socket, or no limit) turns about b x f, where Elias's
// rule is largest, by an angle proportional to |b x f|; a hinge
// turns about its axis a by a . (b x f). Summed over the joints, the
// torques move the tip by A f, where A = sum_j (|b_j|^2 I - b_j b_j^T)
// (a hinge adds (a x b)(a x b)^T instead) is a 3x3 matrix.
//
// The step. Each iteration applies the torques of a force y chosen so the
// predicted tip move matches what the target needs (all joints turn at
// once, from the pose the iteration starts from):
//   - damped (TorqueSettings::damping > 0, the default): y = (A + mu I)^-1 f
//     with mu = (damping * chain length)^2: damped least squares, which is
//     the pseudo-inverse step away from singular poses and stays bounded
//     near them (a straight chain cannot move its tip along itself);
//   - plain (damping = 0): y = alpha f with alpha = (f . A f) / |A f|^2, the
//     torques of Elias's rule with the sensitivity k chosen each iteration
//     so the predicted move best matches f (Buss and Kim's Jacobian-transpose
//     step). Converges linearly; more iterations than the damped step.
// Every turn is then scaled by `gain` and, so the linear prediction holds,
// all together by as much as keeps the largest turn within `max_step`. An
// iteration whose step leaves the tip no closer is retried a few times
// from the same pose (without the springs below, then damped with mu
// raised tenfold each time, Levenberg-Marquardt style; plain with the step
// halved) before the stopping rule judges it. Limits clamp each step; a
// clamped joint's share of the tip's move is made up by the next
// iteration. Targets beyond what the limits allow are approached slowly
// along the limits' boundaries, often until the iteration cap (the
// property test prints how many iterations).
//
// Resistance (Elias's elasticity and comfort range). Each joint j has a
// `stiffness` s_j (how hard it is to turn at all) and, beyond a `comfort`
// angle c_j from its preferred rotation, a spring of `elasticity` e_j with
// energy 1/2 e_j (bend_j - c_j)^2: no resistance inside the comfort range,
// a resisting torque e_j (bend_j - c_j) growing with the bend outside it.
// The step is the weighted least-squares (proximal Newton) step for that
// energy under the target: with d_j = s_j, plus e_j when outside comfort,
// and A weighted by 1 / d_j,
//   u_j = -e_j (bend_j - c_j) / d_j  about the bend's axis  (spring-back)
//   turn_j = u_j + torque_j(y - z) / d_j,
// y as above and z = A^-1 sum_k u_k x b_k (undamped, to a billionth): the
// torques that undo the springs' move of the tip, so each joint takes a share
// of the tip's move inversely proportional to its resistance, bent joints take
// less and spring back, and the spring moves only what the target does not
// need: bends spread along the chain and the answer stays near the preferred
// pose while the target is still reached. Joints whose limit clamped a step are
// left out of the springs' part and the step is taken again (a clamped joint
// cannot carry its share of undoing the springs' move). `root_stiffness` scales
// s_j and e_j along the chain: a uniform chain pulled at its tip bends most at
// the root (the longest lever), so a stiffer base spreads the bend evenly (as
// in Elias's dinosaur neck).
//
// Limits are applied after every iteration; stopping rules and the report:
// ik/solvers/chain_job.h. The property test
// (tests/core/torque_property_test.cc) compares the solver with FABRIK and CCD
// on the example tail.
//
//   ik::ChainWorkspace workspace;  // reuse it: ~11 KiB
//   ik::SolveReport report;
//   std::vector<ik::TorqueJointSettings> joints(tail_locals.size());
//   for (auto& joint : joints) joint.elasticity = 1.0;  // bends spread
//   ik::TorqueJob job;
//   job.parent_model = tail_parent_model;
//   job.locals = absl::MakeSpan(tail_locals);
//   job.constraints = tail_constraints;
//   job.target_model = target;
//   job.settings.joints = joints;
//   job.settings.root_stiffness = 4.0;
//   job.workspace = &workspace;
//   job.report = &report;
//   absl::Status status = job.Run();
#ifndef IK_TORQUE_H_
#define IK_TORQUE_H_

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "ik/base/math.h"
#include "ik/solvers/chain_job.h"
#include "ik/solvers/torque_settings.h"

namespace ik {

// Inputs, outputs and the chain's Validate(): ChainJob. Allocates nothing.
struct TorqueJob : ChainJob {
  TorqueSettings settings;

  // ChainJob::Validate(), then INVALID_ARGUMENT naming the field when
  // `settings.joints` is neither empty nor one per joint, or a setting is
  // out of its range (above) or not finite.
  absl::Status Validate() const;

  // Validates, then solves. Never produces NaN for valid input; an
  // unreachable target is not an error (reached = false).
  absl::Status Run() const;
};

}  // namespace ik

#endif  // IK_TORQUE_H_
