#include "ik/ccd.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>

#include "absl/status/status.h"
#include "chain_internal.h"

namespace ik {
namespace {

using internal::kMinDirectionLength;

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
  const double phase = std::atan2(b, a);
  const double spread = std::acos(std::clamp(c / r, -1.0, 1.0));
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

}  // namespace

absl::Status CcdJob::Run() const {
  if (absl::Status status = Validate(); !status.ok()) return status;
  ChainWorkspace& ws = *workspace;
  const int tip = static_cast<int>(locals.size()) - 1;
  const Vec3 root_position = internal::PrepareChain(*this);
  std::uint64_t mask = internal::ApplyAllLimits(*this);
  internal::ChainForwardKinematics(*this, root_position);
  const double tolerance_squared = tolerance * tolerance;
  double best_squared =
      internal::SquaredDistance(ws.positions[tip], target_model);
  if (best_squared <= tolerance_squared) {
    internal::FinishChainJob(*this, root_position, 0, StopReason::kReached,
                             mask);
    return absl::OkStatus();
  }

  StopReason stop = StopReason::kIterationCap;
  int iterations = 0;
  while (iterations < max_iterations) {
    ++iterations;
    internal::SaveRotations(*this);
    // The workspace holds the pose at the start of the sweep. Turning joint
    // j moves only the joints after it, so joints 0..j are still current
    // when the sweep reaches j; the tip is carried along as joints turn.
    Vec3 tip_position = ws.positions[tip];
    std::uint64_t iteration_mask = mask;
    for (int j = tip - 1; j >= 0; --j) {
      const Vec3& position = ws.positions[j];
      const Quat inverse = glm::conjugate(ws.rotations[j]);
      const Vec3 to_tip_local = inverse * (tip_position - position);
      const JointConstraint* constraint = internal::ConstraintOf(*this, j);
      std::optional<Vec3> parent_local;
      double parent_distance = 0.0;
      if (j > 0) {
        parent_local = inverse * (ws.positions[j - 1] - position);
        parent_distance = glm::length(target_model - ws.positions[j - 1]);
      }
      Quat local = CcdTurn(constraint, locals[j].rotation, to_tip_local,
                           inverse * (target_model - position), parent_local,
                           parent_distance);
      iteration_mask &= ~(std::uint64_t{1} << j);
      if (constraint != nullptr) {
        const LimitedRotation limited =
            ApplyJointConstraint(*constraint, local);
        local = limited.rotation;
        if (limited.clamped) iteration_mask |= std::uint64_t{1} << j;
      }
      locals[j].rotation = local;
      const Quat& parent_rotation =
          j == 0 ? ws.parent_rotation : ws.rotations[j - 1];
      tip_position = position + (parent_rotation * local) * to_tip_local;
      // The seed's early exit inside the sweep.
      const Vec3 miss = tip_position - target_model;
      if (glm::dot(miss, miss) <= tolerance_squared) break;
    }
    internal::ChainForwardKinematics(*this, root_position);
    const double residual_squared =
        internal::SquaredDistance(ws.positions[tip], target_model);
    const internal::Verdict verdict =
        internal::Judge(residual_squared, best_squared, tolerance_squared);
    if (verdict == internal::Verdict::kContinue) {
      best_squared = residual_squared;
      mask = iteration_mask;
      continue;
    }
    if (verdict == internal::Verdict::kRevertAndStop) {
      internal::RestoreRotations(*this);
    } else {
      mask = iteration_mask;
    }
    stop = verdict == internal::Verdict::kReached ? StopReason::kReached
                                                  : StopReason::kNoImprovement;
    break;
  }
  internal::FinishChainJob(*this, root_position, iterations, stop, mask);
  return absl::OkStatus();
}

}  // namespace ik
