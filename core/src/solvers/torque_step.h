// The torque solver's step (torque_step.cc), shared with its relaxation
// (torque_relax.cc): the scratch one solve uses, how a step is taken and
// what it did. Not part of the public API.
#ifndef IK_SRC_SOLVERS_TORQUE_STEP_H_
#define IK_SRC_SOLVERS_TORQUE_STEP_H_

#include <array>
#include <cstdint>

#include "ik/base/defaults.h"
#include "ik/base/math.h"
#include "ik/solvers/torque.h"

namespace ik::torque_internal {

// The per-iteration state of the turned joints, on the stack: Run()
// allocates nothing.
struct TorqueScratch {
  // Each joint's stiffness and elasticity with the root profile applied.
  std::array<double, kMaxChainJoints> stiffness;
  std::array<double, kMaxChainJoints> elasticity;
  // tan(comfort / 2): a bend of sine s and cosine w (halves, w >= 0) is
  // beyond comfort when s > this w, told without an arctangent.
  std::array<double, kMaxChainJoints> comfort_tangent;
  // Model space: the spring-back turn u_j.
  std::array<Vec3, kMaxChainJoints> springs;
  // 1 / d_j: the inverse of the joint's resistance this iteration.
  std::array<double, kMaxChainJoints> inverse_resistance;
  // The turns in each joint's own rotated frame (post-multiplied).
  std::array<Vec3, kMaxChainJoints> turns_local;
  // A = sum_j (1 / d_j) J_j J_j^T, upper triangle (xx, xy, xz, yy, yz, zz).
  std::array<double, 6> a;
  // The force f (tip -> target) and the force whose torques undo the
  // springs' move of the tip (so they act in the null space).
  Vec3 force{0.0};
  Vec3 spring_cancel{0.0};
  // Each joint's share in the springs' part of the step: 1 free, 0 left
  // out (a limit clamped it), between for a joint a limit partly held.
  std::array<double, kMaxChainJoints> free_share;
  // The last step's scale of the turns (gain and max_step).
  double scale = 0.0;
};

// How one step is taken: the damped step's mu (0: plain), the springs'
// weight and the plain step's factor.
struct StepParameters {
  double mu = 0.0;
  double spring_weight = 1.0;
  double halving = 1.0;
};

struct StepOutcome {
  bool moved = false;         // false: no joint could turn
  std::uint64_t clamped = 0;  // the limit pass's mask
  double largest = 0.0;       // the largest turn taken, radians
};

// The chain's length and whether any joint has a spring.
struct ChainProfile {
  double chain_length = 0.0;
  bool springs = false;
};

// Fills scratch's stiffness and elasticity, the root profile applied.
ChainProfile ProfileJoints(const TorqueJob& job, TorqueScratch& scratch);

// The damped step's mu for the job's chain: (damping * chain length)^2.
double BaseMu(const TorqueJob& job, const ChainProfile& profile);

// Back to the pose the iteration started at (its saved rotations, forward
// kinematics run).
void Restore(const TorqueJob& job, const Vec3& root_position);

// How far apart two rotations are: the distance between their quaternions
// taken on the same hemisphere, half the angle between them to first
// order.
double QuatChord(const Quat& a, const Quat& b);

// One step from the pose in the workspace (its forward kinematics current,
// its rotations saved): turns, limits, forward kinematics; with `springs`,
// a clamping loop (after Baerlocher and Boulic): the joints whose limit
// clamped the step are left out of the springs' part and the step is taken
// again, a few times at most.
StepOutcome TakeClampedStep(const TorqueJob& job, const Vec3& root_position,
                            const StepParameters& step, bool springs,
                            TorqueScratch& scratch);

// TakeClampedStep with springs, the joints a limit clamped left out of the
// springs' part by the share of their turn the clamp took back (graded:
// a joint that barely touches its limit keeps nearly its whole share), so
// that the step moves continuously with the pose where a joint meets its
// limit.
StepOutcome TakeGradedStep(const TorqueJob& job, const Vec3& root_position,
                           const StepParameters& step, TorqueScratch& scratch);

}  // namespace ik::torque_internal

#endif  // IK_SRC_SOLVERS_TORQUE_STEP_H_
