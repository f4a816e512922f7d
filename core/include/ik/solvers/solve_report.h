// What a chain solve reports: shared by the analytic two-bone job, the
// iterative jobs (FABRIK, CCD) and SolveChainJob.
#ifndef IK_SOLVE_REPORT_H_
#define IK_SOLVE_REPORT_H_

#include "ik/base/math.h"

namespace ik {

// Bones shorter than this, metres (model space), make a solve ill-posed.
inline constexpr double kMinSolveBoneLength = 1e-9;
inline constexpr double kMinSolveBoneSquared =
    kMinSolveBoneLength * kMinSolveBoneLength;

// What a chain solve reports. The jobs fill it in model space (TwoBoneJob
// from the solution's geometry: a reachable target gives tip_model ==
// target and residual 0); SolveChainJob re-measures it in world space on the
// updated pose.
struct SolveReport {
  bool reached = false;   // residual <= tolerance
  double residual = 0.0;  // |tip - target| after the solve, metres
  // Iterations run: 1 for the analytic solver; for the iterative solvers the
  // sweeps started, including one whose result was rejected because it did
  // not improve (StopReason::kNoImprovement), 0 when the pose already reached
  // the target.
  int iterations = 0;
  Vec3 tip_model{0.0};  // where the tip ended, model space
  // The limb (a two-bone solve, or an iterative solve's last two bones) held
  // to a ball-and-socket root may not continue the incoming pose here
  // (rig/limb_circle.h): no arc the limit allows holds the incoming swivel,
  // the incoming limb pointed at the target (within 0.25 rad) and the
  // limb's root turned from it by more than max(3 x that angle, 5 degrees);
  // or two of its choices tie within 5 degrees. Expect a jump.
  bool branch_switch = false;
  // A two-bone limb whose root the limit turned to an end of its allowed
  // arc: how near that end is to one that moves without bound as the
  // request moves (the cone touching the circle of solutions, a twist test
  // nearly vanishing), radians in [0, pi/2] (rig/limb_circle.h,
  // AllowedTurn::edge_angle); pi otherwise. Taken among the singular
  // directions of the answer.
  double limit_edge_angle = kPi;
};

// Why a solve stopped.
enum class StopReason {
  kReached,        // within tolerance
  kIterationCap,   // used every iteration allowed without reaching
  kNoImprovement,  // an iteration did not bring the tip closer: stopped early
  kOutOfReach,     // beyond reach or limits (SolveChainJob: see stop_reason)
};

}  // namespace ik

#endif  // IK_SOLVE_REPORT_H_
