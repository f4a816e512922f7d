// The torque solver's step (solvers/torque_step.h): the damped,
// spring-loaded turns of one iteration, their limits and clamping loops.
#include "solvers/torque_step.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>

#include "ik/base/trig.h"
#include "ik/base/validate.h"
#include "solvers/chain_internal.h"

namespace ik {
namespace torque_internal {
namespace {

// How many times a step is retaken leaving the joints its limits clamped
// out of the springs' part.
constexpr int kMaxHoldPasses = 3;

// Turns smaller than this, radians, count as none.
constexpr double kMinTurn = 1e-15;

// The rotation by |v| radians about v.
Quat RotationVector(const Vec3& v) {
  const double angle = glm::length(v);
  const double half = 0.5 * angle;
  // sin(half) / angle tends to 1/2; below 1e-8 it is 1/2 to rounding.
  const double scale = angle < 1e-8 ? 0.5 : Sin(half) / angle;
  return Quat(Cos(half), v.x * scale, v.y * scale, v.z * scale);
}

// Solves (A + mu I) y = f for symmetric A (upper triangle) by Cholesky;
// false when a pivot is not positive (A + mu I not positive definite: only
// for mu = 0 or on overflow).
bool SolveDamped(const std::array<double, 6>& a, double mu, const Vec3& f,
                 Vec3* y) {
  const double a00 = a[0] + mu;
  const double a11 = a[3] + mu;
  const double a22 = a[5] + mu;
  if (!(a00 > 0.0)) return false;
  const double l00 = std::sqrt(a00);
  const double l10 = a[1] / l00;
  const double l20 = a[2] / l00;
  const double p11 = a11 - l10 * l10;
  if (!(p11 > 0.0)) return false;
  const double l11 = std::sqrt(p11);
  const double l21 = (a[4] - l20 * l10) / l11;
  const double p22 = a22 - l20 * l20 - l21 * l21;
  if (!(p22 > 0.0)) return false;
  const double l22 = std::sqrt(p22);
  const double z0 = f.x / l00;
  const double z1 = (f.y - l10 * z0) / l11;
  const double z2 = (f.z - l20 * z0 - l21 * z1) / l22;
  y->z = z2 / l22;
  y->y = (z1 - l21 * y->z) / l11;
  y->x = (z0 - l10 * y->y - l20 * y->z) / l00;
  return IsFinite(*y);
}

Vec3 MultiplySymmetric(const std::array<double, 6>& a, const Vec3& v) {
  return Vec3(a[0] * v.x + a[1] * v.y + a[2] * v.z,
              a[1] * v.x + a[3] * v.y + a[4] * v.z,
              a[2] * v.x + a[4] * v.y + a[5] * v.z);
}

// Chain joint j's hinge, or nullptr when it is not a hinge (it then turns
// about any axis).
const HingeLimit* HingeOf(const ChainJob& job, int j) {
  const JointConstraint* constraint = internal::ConstraintOf(job, j);
  if (constraint == nullptr ||
      constraint->limit->kind != JointLimit::Kind::kHinge) {
    return nullptr;
  }
  return &constraint->limit->hinge;
}

// Adds (1 / d) J_j J_j^T of a joint with lever b (joint -> tip) to `a`
// (upper triangle): a hinge's one column a x b, or for a joint turning
// about any axis |b|^2 I - b b^T.
void AddJoint(const Vec3* hinge_axis, const Vec3& lever, double inverse,
              std::array<double, 6>& a) {
  if (hinge_axis != nullptr) {
    const Vec3 column = glm::cross(*hinge_axis, lever);
    a[0] += inverse * column.x * column.x;
    a[1] += inverse * column.x * column.y;
    a[2] += inverse * column.x * column.z;
    a[3] += inverse * column.y * column.y;
    a[4] += inverse * column.y * column.z;
    a[5] += inverse * column.z * column.z;
    return;
  }
  const double squared = glm::dot(lever, lever);
  a[0] += inverse * (squared - lever.x * lever.x);
  a[1] -= inverse * lever.x * lever.y;
  a[2] -= inverse * lever.x * lever.z;
  a[3] += inverse * (squared - lever.y * lever.y);
  a[4] -= inverse * lever.y * lever.z;
  a[5] += inverse * (squared - lever.z * lever.z);
}

// Joint j's bend from its preferred rotation: local = preferred * q, q
// with w >= 0; a turn about q's axis (in the joint's rotated frame,
// post-multiplied) changes the bend alone. `axis` is q's vector part,
// `sine` its length, and `excess` the bend's angle past the joint's
// comfort (radians; 0 within it).
struct ComfortExcess {
  Vec3 axis;
  double sine;
  double excess;
};
ComfortExcess ExcessOverComfort(const TorqueJob& job, int j,
                                const TorqueScratch& scratch) {
  const TorqueJointSettings& joint = job.settings.joints[j];
  Quat q = glm::conjugate(joint.preferred_rotation) * job.locals[j].rotation;
  if (q.w < 0.0) q = -q;
  ComfortExcess out;
  out.axis = Vec3(q.x, q.y, q.z);
  out.sine = glm::length(out.axis);
  out.excess = out.sine > scratch.comfort_tangent[j] * q.w
                   ? 2.0 * Atan2(out.sine, q.w) - joint.comfort
                   : 0.0;
  return out;
}

// The first half of a step, from the pose in the workspace (forward
// kinematics current): each joint's resistance and spring-back, the matrix
// A and the force that undoes the springs' move of the tip. The springs
// and that undoing involve each joint by its scratch.free_share (0 for one
// a limit clamped: its share would be lost to the clamp and the springs'
// move would go undone).
void PrepareStep(const TorqueJob& job, TorqueScratch& scratch) {
  const ChainWorkspace& ws = *job.workspace;
  const int tip = static_cast<int>(job.locals.size()) - 1;
  const Vec3& tip_position = ws.positions[tip];
  scratch.a = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0};
  std::array<double, 6> spring_a = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0};
  // Where the springs alone would move the tip, to first order.
  Vec3 moved(0.0);
  for (int j = 0; j < tip; ++j) {
    const Vec3 lever = tip_position - ws.positions[j];
    const HingeLimit* hinge = HingeOf(job, j);
    Vec3 hinge_axis(0.0);
    if (hinge != nullptr) hinge_axis = ws.rotations[j] * hinge->axis;
    double resistance = scratch.stiffness[j];
    Vec3 spring(0.0);
    const double elasticity = scratch.elasticity[j];
    if (elasticity > 0.0) {
      const ComfortExcess comfort = ExcessOverComfort(job, j, scratch);
      const Vec3& v = comfort.axis;
      const double sine = comfort.sine;
      const double excess = comfort.excess;
      if (excess > 0.0 && sine >= kMinDirectionLength) {
        resistance += elasticity;
        const double share = scratch.free_share[j];
        if (share > 0.0) {
          Vec3 back = v * (-elasticity * excess / (resistance * sine));
          if (hinge != nullptr) {
            back = glm::dot(back, hinge->axis) * hinge->axis;
          }
          spring = ws.rotations[j] * back;
          if (share < 1.0) spring *= share;
          moved += glm::cross(spring, lever);
        }
      }
    }
    const double inverse = 1.0 / resistance;
    scratch.inverse_resistance[j] = inverse;
    scratch.springs[j] = spring;
    const Vec3* axis = hinge != nullptr ? &hinge_axis : nullptr;
    AddJoint(axis, lever, inverse, scratch.a);
    if (scratch.free_share[j] > 0.0) {
      AddJoint(axis, lever, inverse * scratch.free_share[j], spring_a);
    }
  }
  scratch.force = job.target_model - tip_position;
  // The springs act in the null space of the tip's move: their move is
  // undone by the free joints' torques of A_free^-1 moved (damped by a
  // billionth of the trace: the torques of its null space are zero
  // anyway).
  scratch.spring_cancel = Vec3(0.0);
  const double trace = spring_a[0] + spring_a[3] + spring_a[5];
  if (glm::dot(moved, moved) > 0.0 &&
      !SolveDamped(spring_a, 1e-9 * trace, moved, &scratch.spring_cancel)) {
    scratch.spring_cancel = Vec3(0.0);
  }
}

// The second half: fills scratch.turns_local with the turns for the pull
// `pull` (the force whose torques turn the joints) and the springs scaled
// by `spring_weight`, before gain and the max_step scale; returns the
// largest turn's angle, radians.
double ComputeTurns(const TorqueJob& job, const Vec3& pull,
                    double spring_weight, TorqueScratch& scratch) {
  const ChainWorkspace& ws = *job.workspace;
  const int tip = static_cast<int>(job.locals.size()) - 1;
  const Vec3& tip_position = ws.positions[tip];
  const Vec3 free_pull = pull - spring_weight * scratch.spring_cancel;
  double largest = 0.0;
  for (int j = 0; j < tip; ++j) {
    const double share = scratch.free_share[j];
    const Vec3 torque = glm::cross(
        tip_position - ws.positions[j],
        share == 1.0 ? free_pull
        : share == 0.0
            ? pull
            : pull - (share * spring_weight) * scratch.spring_cancel);
    Vec3 turn;
    if (const HingeLimit* hinge = HingeOf(job, j); hinge != nullptr) {
      const Vec3 axis = ws.rotations[j] * hinge->axis;
      turn = axis * (glm::dot(axis, torque) * scratch.inverse_resistance[j]);
    } else {
      turn = torque * scratch.inverse_resistance[j];
    }
    turn += spring_weight * scratch.springs[j];
    largest = std::max(largest, glm::length(turn));
    scratch.turns_local[j] = glm::conjugate(ws.rotations[j]) * turn;
  }
  return IsFinite(largest) ? largest : 0.0;
}

// The plain step's pull: the multiple of the force whose predicted move
// A y best matches it (zero when A f is).
Vec3 PlainPull(const TorqueScratch& scratch) {
  const Vec3 predicted = MultiplySymmetric(scratch.a, scratch.force);
  const double predicted_squared = glm::dot(predicted, predicted);
  if (!(predicted_squared > 0.0) || !IsFinite(predicted_squared)) {
    return Vec3(0.0);
  }
  return scratch.force *
         (glm::dot(scratch.force, predicted) / predicted_squared);
}

// Sets every turned joint's rotation to its saved one turned by `scale`
// times its turn, clamps them to their limits and runs forward kinematics;
// returns the limit pass's mask.
std::uint64_t ApplyTurns(const TorqueJob& job, const Vec3& root_position,
                         const TorqueScratch& scratch, double scale) {
  const ChainWorkspace& ws = *job.workspace;
  const int tip = static_cast<int>(job.locals.size()) - 1;
  for (int j = 0; j < tip; ++j) {
    job.locals[j].rotation = internal::Renormalized(
        ws.saved_rotations[j] * RotationVector(scratch.turns_local[j] * scale));
  }
  const std::uint64_t mask = internal::ApplyAllLimits(job);
  internal::ChainForwardKinematics(job, root_position);
  return mask;
}

// One step from the pose the iteration started at (in the workspace, its
// rotations saved), each joint in the springs' part by its
// scratch.free_share: turns, limits, forward kinematics.
StepOutcome TakeStep(const TorqueJob& job, const Vec3& root_position,
                     const StepParameters& step, TorqueScratch& scratch) {
  PrepareStep(job, scratch);
  Vec3 pull(0.0);
  if (!(step.mu > 0.0) ||
      !SolveDamped(scratch.a, step.mu, scratch.force, &pull)) {
    pull = PlainPull(scratch);
  }
  const double largest = ComputeTurns(job, pull, step.spring_weight, scratch);
  if (!(largest > kMinTurn)) return {};
  const double scale = step.halving * job.settings.gain *
                       std::min(1.0, job.settings.max_step / largest);
  scratch.scale = scale;
  return {true, ApplyTurns(job, root_position, scratch, scale),
          largest * scale};
}

// Every turned joint of the job wholly in the springs' part.
void FreeAllJoints(const TorqueJob& job, TorqueScratch& scratch) {
  const size_t tip = job.locals.size() - 1;
  std::fill(scratch.free_share.begin(), scratch.free_share.begin() + tip, 1.0);
}

// The share of joint j's last turn its limit took back: the distance
// between the rotation the turn made and the clamped one (half the angle
// between them, to first order) over half the turn's angle, at most 1.
double ClampedShare(const TorqueJob& job, int j, const TorqueScratch& scratch) {
  const ChainWorkspace& ws = *job.workspace;
  const Vec3 turn = scratch.turns_local[j] * scratch.scale;
  const double half_turn = 0.5 * glm::length(turn);
  if (!(half_turn > 0.0)) return 1.0;
  const Quat made =
      internal::Renormalized(ws.saved_rotations[j] * RotationVector(turn));
  return std::min(1.0, QuatChord(made, job.locals[j].rotation) / half_turn);
}

}  // namespace

double QuatChord(const Quat& a, const Quat& b) {
  return Norm(glm::dot(a, b) < 0.0 ? a + b : a - b);
}

void Restore(const TorqueJob& job, const Vec3& root_position) {
  internal::RestoreRotations(job);
  internal::ChainForwardKinematics(job, root_position);
}

// TakeStep, then, with springs, a clamping loop (after Baerlocher and
// Boulic): the joints whose limit clamped the step are left out of the
// springs' part and the step is taken again, up to kMaxHoldPasses times.
// A clamped joint cannot carry its share of undoing the springs' move of
// the tip, which would otherwise pull the tip away each iteration.
StepOutcome TakeClampedStep(const TorqueJob& job, const Vec3& root_position,
                            const StepParameters& step, bool springs,
                            TorqueScratch& scratch) {
  FreeAllJoints(job, scratch);
  std::uint64_t held = 0;
  StepOutcome outcome = TakeStep(job, root_position, step, scratch);
  for (int pass = 0; springs && pass < kMaxHoldPasses; ++pass) {
    const std::uint64_t newly = outcome.clamped & ~held;
    if (!outcome.moved || newly == 0) break;
    held |= newly;
    for (size_t j = 0; j + 1 < job.locals.size(); ++j) {
      if ((newly >> j) & 1) scratch.free_share[j] = 0.0;
    }
    Restore(job, root_position);
    outcome = TakeStep(job, root_position, step, scratch);
  }
  return outcome;
}

StepOutcome TakeGradedStep(const TorqueJob& job, const Vec3& root_position,
                           const StepParameters& step, TorqueScratch& scratch) {
  FreeAllJoints(job, scratch);
  StepOutcome outcome = TakeStep(job, root_position, step, scratch);
  for (int pass = 0; pass < kMaxHoldPasses; ++pass) {
    if (!outcome.moved || outcome.clamped == 0) break;
    bool lowered = false;
    for (size_t j = 0; j + 1 < job.locals.size(); ++j) {
      if (!((outcome.clamped >> j) & 1)) continue;
      const double share =
          1.0 - ClampedShare(job, static_cast<int>(j), scratch);
      if (share < scratch.free_share[j]) {
        scratch.free_share[j] = share;
        lowered = true;
      }
    }
    if (!lowered) break;
    Restore(job, root_position);
    outcome = TakeStep(job, root_position, step, scratch);
  }
  return outcome;
}

// Fills scratch's stiffness and elasticity, the root profile applied.
ChainProfile ProfileJoints(const TorqueJob& job, TorqueScratch& scratch) {
  const ChainWorkspace& ws = *job.workspace;
  const int tip = static_cast<int>(job.locals.size()) - 1;
  ChainProfile profile;
  // Joint j of the tip turned joints: root_stiffness^((tip-1-j)/(tip-1)),
  // root_stiffness at the root and 1 at the joint before the tip; a
  // geometric run from the tip end (one Pow per solve, not per joint), the
  // root's set exactly.
  const double root_stiffness = job.settings.root_stiffness;
  const double ratio = root_stiffness == 1.0 || tip == 1
                           ? 1.0
                           : Pow(root_stiffness, 1.0 / (tip - 1));
  for (int j = 0; j < tip; ++j) profile.chain_length += ws.lengths[j];
  double root_profile = 1.0;
  for (int j = tip - 1; j >= 0; --j) {
    if (j == 0 && tip > 1) root_profile = root_stiffness;
    const TorqueJointSettings joint = job.settings.joints.empty()
                                          ? TorqueJointSettings()
                                          : job.settings.joints[j];
    scratch.stiffness[j] = root_profile * joint.stiffness;
    scratch.elasticity[j] = root_profile * joint.elasticity;
    if (joint.elasticity > 0.0) {
      scratch.comfort_tangent[j] =
          Sin(0.5 * joint.comfort) / Cos(0.5 * joint.comfort);
      profile.springs = true;
    }
    root_profile *= ratio;
  }
  return profile;
}

// The damped step's mu for the job's chain: (damping * chain length)^2.
double BaseMu(const TorqueJob& job, const ChainProfile& profile) {
  const double lambda = job.settings.damping * profile.chain_length;
  return lambda * lambda;
}

}  // namespace torque_internal

}  // namespace ik
