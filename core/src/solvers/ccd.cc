#include "ik/solvers/ccd.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>

#include "absl/status/status.h"
#include "ik/base/trig.h"
#include "ik/base/validate.h"
#include "solvers/chain_internal.h"

namespace ik {
namespace {

// The turn about a hinge's `axis` (in the joint's rotated frame) that puts
// the tip at `distance` (the target's distance) from the parent joint at
// `parent_local` (same frame), as the analytic two-bone solve's first step
// does; the parent's turn can then land the tip on the target. Of the two
// such turns, one that keeps the hinge angle (now `angle`) within `range`,
// the smaller if both do; nullopt if neither does.
std::optional<double> TriangleTurn(const Vec3& axis, const Vec3& to_tip_local,
                                   const Vec3& parent_local, double distance,
                                   double angle, const AngleRange& range) {
  // |R(turn) v - p|^2 = distance^2 with v split along / across the axis:
  // a cos(turn) + b sin(turn) = c.
  const Vec3 along = glm::dot(to_tip_local, axis) * axis;
  const Vec3 across = to_tip_local - along;
  const Vec3 side = glm::cross(axis, across);
  const double a = glm::dot(parent_local, across);
  const double b = glm::dot(parent_local, side);
  const double c =
      0.5 * (glm::dot(to_tip_local, to_tip_local) +
             glm::dot(parent_local, parent_local) - distance * distance) -
      glm::dot(parent_local, along);
  const double r = std::sqrt(a * a + b * b);
  if (!(r >= kMinDirectionLength)) return std::nullopt;
  // Out of the bones' reach: as near as they get.
  const double phase = Atan2(b, a);
  const double spread = Acos(std::clamp(c / r, -1.0, 1.0));
  std::optional<double> best;
  for (const double turn : {std::remainder(phase - spread, 2.0 * kPi),
                            std::remainder(phase + spread, 2.0 * kPi)}) {
    if (ClampAngleToRange(angle + turn, range) != angle + turn) continue;
    if (!best.has_value() || std::abs(turn) < std::abs(*best)) best = turn;
  }
  return best;
}

// Hinge angle (twist about the hinge's axis) of a local rotation.
double HingeAngle(const JointConstraint& constraint, const Quat& local) {
  return DecomposeSwingTwist(glm::conjugate(constraint.rest_rotation) * local,
                             constraint.limit->hinge.axis)
      .twist_angle;
}

// One joint's CCD turn: its new local rotation, before its limit clamps it.
// `to_tip_local`, `to_target_local` and `parent_local` (the parent joint's
// position, when the chain has one there) are relative to the joint, in its
// rotated frame; `parent_distance` is the target's distance from the parent.
Quat CcdTurn(const JointConstraint* constraint, const Quat& local,
             const Vec3& to_tip_local, const Vec3& to_target_local,
             const std::optional<Vec3>& parent_local, double parent_distance) {
  const Quat aim =
      internal::AimCorrection(constraint, to_tip_local, to_target_local);
  const Quat aimed = local * aim;
  if (constraint == nullptr) return aimed;
  if (constraint->limit->kind == JointLimit::Kind::kHinge) {
    // CCD turns a hinge to the angle that points it best. Two places where
    // that fails: the angle is past an end of the range (the hinge would be
    // pinned there, typically straight, and never bend the other way round)
    // or the tip and the target lie on one line from the joint (no turn
    // helps this joint, yet the chain is stuck straight). There the hinge
    // takes the two-bone turn instead, when its range allows one.
    if (!parent_local.has_value()) return aimed;
    const HingeLimit& hinge = constraint->limit->hinge;
    const double aimed_angle = HingeAngle(*constraint, aimed);
    const Vec3 tip_across =
        to_tip_local - glm::dot(to_tip_local, hinge.axis) * hinge.axis;
    const Vec3 target_across =
        to_target_local - glm::dot(to_target_local, hinge.axis) * hinge.axis;
    const bool in_line =
        glm::dot(tip_across, target_across) > 0.0 &&
        glm::length(glm::cross(tip_across, target_across)) <=
            1e-9 * glm::length(tip_across) * glm::length(target_across);
    if (!in_line &&
        ClampAngleToRange(aimed_angle, hinge.range) == aimed_angle) {
      return aimed;
    }
    const std::optional<double> turn =
        TriangleTurn(hinge.axis, to_tip_local, *parent_local, parent_distance,
                     HingeAngle(*constraint, local), hinge.range);
    if (!turn.has_value()) return aimed;
    return local * AngleAxis(*turn, hinge.axis);
  }
  // A ball-and-socket joint: every turn about the joint -> target line keeps
  // the tip on that line. When the aim leaves the limit, take the nearest
  // such swivel the limit allows rather than a clamp that pulls the tip off.
  const BallSocketLimit& ball = constraint->limit->ball_socket;
  const Quat relative = glm::conjugate(constraint->rest_rotation) * aimed;
  const double target_length = glm::length(to_target_local);
  if (!(target_length >= kMinDirectionLength) ||
      !ApplyBallSocketLimit(ball, relative).clamped) {
    return aimed;
  }
  // The line in the aimed joint's frame, then in its rest frame (where the
  // relative rotation acts): relative * R(a) = R(relative * a) * relative.
  const Vec3 line_aimed =
      glm::conjugate(aim) * (to_target_local / target_length);
  const Vec3 line_rest = relative * line_aimed;
  const std::optional<double> swivel =
      internal::NearestFeasibleSwivel(ball, relative, line_rest);
  if (!swivel.has_value()) return aimed;
  return constraint->rest_rotation * (AngleAxis(*swivel, line_rest) * relative);
}

// The two-bone step of joint 1 when neither it nor the root has a limit:
// the correction (post-multiplied into its local rotation) that bends it in
// the plane of its parent, itself and the tip, so that the tip lies at the
// target's `parent_distance` from the parent (as near as the bones get when
// that is out of their range); the root's aim, next, then lands the tip on
// the target. A chain lying straight bends towards the target (any
// perpendicular when that too is on the line). Arguments as CcdTurn's.
Quat TwoBoneStep(const Vec3& to_tip_local, const Vec3& to_target_local,
                 const Vec3& parent_local, double parent_distance) {
  const double a_squared = glm::dot(parent_local, parent_local);
  const double b_squared = glm::dot(to_tip_local, to_tip_local);
  const double a = std::sqrt(a_squared);
  const double b = std::sqrt(b_squared);
  if (!(a >= kMinDirectionLength) || !(b >= kMinDirectionLength)) {
    return IdentityQuat();
  }
  // Parent -> joint, unit; the tip's direction across it.
  const Vec3 along = parent_local * (-1.0 / a);
  Vec3 across = to_tip_local - glm::dot(to_tip_local, along) * along;
  double across_length = glm::length(across);
  if (!(across_length >= 1e-9 * b)) {
    across = to_target_local - glm::dot(to_target_local, along) * along;
    across_length = glm::length(across);
    if (!(across_length >= 1e-9 * glm::length(to_target_local)) ||
        !(across_length >= kMinDirectionLength)) {
      across = AnyPerpendicular(along);
      across_length = 1.0;
    }
  }
  across /= across_length;
  // |parent -> tip|^2 = a^2 + b^2 + 2 a b cos(theta), theta the angle
  // between along and the bent joint -> tip.
  const double cosine =
      std::clamp((parent_distance * parent_distance - a_squared - b_squared) /
                     (2.0 * a * b),
                 -1.0, 1.0);
  const double sine = std::sqrt(1.0 - cosine * cosine);
  const Vec3 bent = b * (cosine * along + sine * across);
  return internal::ShortestArc(to_tip_local, bent);
}

}  // namespace

namespace internal {
namespace {

// Joint j's new local rotation before its limit (`constraint`, nullptr for
// none): the two-bone step for joint 1 of an unlimited root pair, the plain
// aim without a limit, else CcdTurn. `inverse` is the conjugate of the joint's
// model rotation; the offsets are in that (rotated) frame.
Quat CcdLocalRotation(const ChainJob& job, int j,
                      const JointConstraint* constraint, bool two_bone_step,
                      const Quat& inverse, const Vec3& to_tip_local,
                      const Vec3& to_target_local) {
  const ChainWorkspace& ws = *job.workspace;
  const Vec3& position = ws.positions[j];
  const Vec3& target = job.target_model;
  if (j == 1 && two_bone_step) {
    return job.locals[1].rotation *
           TwoBoneStep(to_tip_local, to_target_local,
                       inverse * (ws.positions[0] - position),
                       glm::length(target - ws.positions[0]));
  }
  if (constraint == nullptr) {
    return job.locals[j].rotation * ShortestArc(to_tip_local, to_target_local);
  }
  std::optional<Vec3> parent_local;
  double parent_distance = 0.0;
  if (j > 0) {
    parent_local = inverse * (ws.positions[j - 1] - position);
    parent_distance = glm::length(target - ws.positions[j - 1]);
  }
  return CcdTurn(constraint, job.locals[j].rotation, to_tip_local,
                 to_target_local, parent_local, parent_distance);
}

// One sweep from the joint before the tip to the root, each joint turned
// and held to its limit; returns `mask` with each turned joint's bit set
// when its limit clamped it. The workspace holds the pose at the start of
// the sweep. Turning joint j moves only the joints after it, so joints 0..j
// are still current when the sweep reaches j; the tip is carried along as
// joints turn.
std::uint64_t SweepJoints(const ChainJob& job, bool two_bone_step,
                          double tolerance_squared, std::uint64_t mask) {
  const ChainWorkspace& ws = *job.workspace;
  const int tip = static_cast<int>(job.locals.size()) - 1;
  const Vec3& target = job.target_model;
  Vec3 tip_position = ws.positions[tip];
  for (int j = tip - 1; j >= 0; --j) {
    const Vec3& position = ws.positions[j];
    const Quat inverse = glm::conjugate(ws.rotations[j]);
    const Vec3 to_tip_local = inverse * (tip_position - position);
    const Vec3 to_target_local = inverse * (target - position);
    const JointConstraint* constraint = ConstraintOf(job, j);
    Quat local = CcdLocalRotation(job, j, constraint, two_bone_step, inverse,
                                  to_tip_local, to_target_local);
    mask &= ~(std::uint64_t{1} << j);
    if (constraint != nullptr) {
      const LimitedRotation limited = ApplyJointConstraint(*constraint, local);
      local = limited.rotation;
      if (limited.clamped) mask |= std::uint64_t{1} << j;
    }
    job.locals[j].rotation = local;
    const Quat& parent_rotation =
        j == 0 ? ws.parent_rotation : ws.rotations[j - 1];
    tip_position = position + (parent_rotation * local) * to_tip_local;
    // Early exit inside the sweep, as Szauer's CCDSolver does.
    const Vec3 miss = tip_position - target;
    if (glm::dot(miss, miss) <= tolerance_squared) break;
  }
  return mask;
}

}  // namespace

StopReason RunCcdIterations(const ChainJob& job, const Vec3& root_position,
                            int* iterations, double* best_squared,
                            LimitMasks* limits) {
  ChainWorkspace& ws = *job.workspace;
  const int tip = static_cast<int>(job.locals.size()) - 1;
  const Vec3& target = job.target_model;
  const double tolerance_squared = job.tolerance * job.tolerance;
  const bool two_bone_step = tip >= 2 && ConstraintOf(job, 0) == nullptr &&
                             ConstraintOf(job, 1) == nullptr;
  while (*iterations < job.max_iterations) {
    ++*iterations;
    SaveRotations(job);
    const std::uint64_t iteration_mask =
        SweepJoints(job, two_bone_step, tolerance_squared, limits->kept);
    ChainForwardKinematics(job, root_position);
    const double residual_squared = SquaredDistance(ws.positions[tip], target);
    const Verdict verdict =
        Judge(residual_squared, *best_squared, tolerance_squared);
    if (verdict == Verdict::kContinue) {
      *best_squared = residual_squared;
      limits->Keep(iteration_mask);
      continue;
    }
    if (verdict == Verdict::kRevertAndStop) {
      RestoreRotations(job);
      limits->Reject(iteration_mask);
      ChainForwardKinematics(job, root_position);
    } else {
      *best_squared = residual_squared;
      limits->Keep(iteration_mask);
    }
    return verdict == Verdict::kReached ? StopReason::kReached
                                        : StopReason::kNoImprovement;
  }
  return StopReason::kIterationCap;
}

}  // namespace internal

absl::Status CcdJob::Run() const {
  internal::ChainStart start;
  if (absl::Status status = internal::ValidateAndBeginChainJob(*this, &start);
      !status.ok() || start.done) {
    return status;
  }
  int iterations = 0;
  const StopReason stop =
      internal::RunCcdIterations(*this, start.root_position, &iterations,
                                 &start.best_squared, &start.limits);
  internal::FinishChainJob(*this, start.root_position, iterations, stop,
                           start.limits, /*pose_current=*/true);
  return absl::OkStatus();
}

}  // namespace ik
