#include <algorithm>
#include <cmath>
#include <optional>

#include "ik/base/joint_limits.h"
#include "ik/base/trig.h"
#include "solvers/chain_internal.h"
#include "solvers/fabrik_internal.h"

namespace ik::internal {
namespace {

// The turn of a ball-socket child's frame (`frame`, model space) that
// brings the cone's edge to the next bone when it lies outside the cone.
Quat BallSocketCorrection(const BallSocketLimit& ball, const Quat& frame,
                          const Vec3& next_direction) {
  const Vec3 axis = frame * ball.axis;
  const double angle =
      Acos(std::clamp(glm::dot(axis, next_direction), -1.0, 1.0));
  if (!(angle > ball.swing_max)) return IdentityQuat();
  // Turn the frame so the cone's edge reaches the next bone.
  Vec3 pivot = glm::cross(axis, next_direction);
  const double pivot_length = glm::length(pivot);
  pivot = pivot_length >= kMinDirectionLength ? pivot / pivot_length
                                              : AnyPerpendicular(axis);
  return AngleAxis(angle - ball.swing_max, pivot);
}

// The turn of a hinge child's frame (`frame`, model space) that lays the
// hinge's axis across the next bone; `child_bone` is the child's bone in
// its local frame (hinge angle 0).
Quat HingeCorrection(const HingeLimit& hinge, const Quat& frame,
                     const Vec3& next_direction, const Vec3& child_bone) {
  Quat correction = IdentityQuat();
  const Vec3 axis = frame * hinge.axis;
  const Vec3 across = axis - glm::dot(axis, next_direction) * next_direction;
  if (glm::length(across) >= kMinDirectionLength) {
    correction = FromTo(axis, across);
  }
  // The bend the next bone asks of the hinge, kept in its range by
  // turning this bone about the hinge's axis instead.
  const Quat hinge_frame = correction * frame;
  const Vec3 hinge_axis = hinge_frame * hinge.axis;
  const Vec3 rest_bone = hinge_frame * child_bone;  // angle 0
  const double bend = SignedAngleAbout(rest_bone, next_direction, hinge_axis);
  const double clamped = ClampAngleToRange(bend, hinge.range);
  if (clamped != bend) {
    correction = AngleAxis(bend - clamped, hinge_axis) * correction;
  }
  return correction;
}

// A candidate of AlignHingePlane held within joint i's ball-socket limit by
// a swivel about the unit joint -> target axis, and the score's parts for
// that: the swivel's size, or blocked = 1 when no swivel helps.
struct SwivelHold {
  Quat rotation = IdentityQuat();
  double blocked = 0.0;
  double swivel = 0.0;
};

SwivelHold HoldWithinBallSocket(const BallSocketLimit& ball,
                                const Quat& rest_model, const Vec3& to_target,
                                double to_target_length, const Quat& turned) {
  SwivelHold hold;
  hold.rotation = turned;
  const Quat relative = glm::conjugate(rest_model) * turned;
  if (!ApplyBallSocketLimit(ball, relative).clamped) return hold;
  const Vec3 axis = to_target / to_target_length;
  const std::optional<double> psi =
      NearestFeasibleSwivel(ball, relative, glm::conjugate(rest_model) * axis);
  if (psi.has_value()) {
    hold.swivel = std::abs(*psi);
    hold.rotation = glm::normalize(AngleAxis(*psi, axis) * turned);
  } else {
    hold.blocked = 1.0;
  }
  return hold;
}

}  // namespace

void ReachBackwardWithLimits(const ChainJob& job) {
  ChainWorkspace& ws = *job.workspace;
  const int tip = static_cast<int>(job.locals.size()) - 1;
  ws.reach_positions[tip] = job.target_model;
  for (int i = tip - 1; i >= 0; --i) {
    const Vec3 old_direction = ws.rotations[i] * (ws.bones[i] / ws.lengths[i]);
    const Vec3 toward = ws.reach_positions[i + 1] - ws.positions[i];
    const double toward_length = glm::length(toward);
    Vec3 direction = toward_length >= kMinDirectionLength
                         ? toward / toward_length
                         : old_direction;
    const JointConstraint* child =
        i + 1 < tip ? ConstraintOf(job, i + 1) : nullptr;
    if (child != nullptr) {
      const Vec3 next = ws.reach_positions[i + 2] - ws.reach_positions[i + 1];
      const double next_length = glm::length(next);
      // Joint i's frame with the bone turned to `direction`.
      const Quat frame = FromTo(old_direction, direction) * ws.rotations[i] *
                         child->rest_rotation;
      if (next_length >= kMinDirectionLength) {
        const Vec3 next_direction = next / next_length;
        const Quat correction =
            child->limit->kind == JointLimit::Kind::kBallSocket
                ? BallSocketCorrection(child->limit->ball_socket, frame,
                                       next_direction)
                : HingeCorrection(child->limit->hinge, frame, next_direction,
                                  ws.bones[i + 1]);
        direction = correction * direction;
      }
    }
    ws.reach_positions[i] =
        ws.reach_positions[i + 1] - direction * ws.lengths[i];
  }
}

Quat AlignHingePlane(const ChainJob& job, int i, const Quat& parent_rotation,
                     const Quat& model_rotation,
                     const Vec3& grandchild_target) {
  const ChainWorkspace& ws = *job.workspace;
  const JointConstraint& child = job.constraints[i + 1];
  const HingeLimit& hinge = child.limit->hinge;
  const Quat& child_local = job.locals[i + 1].rotation;
  const Vec3 bone_direction = glm::normalize(model_rotation * ws.bones[i]);
  const Vec3 child_position = ws.positions[i] + model_rotation * ws.bones[i];
  const Vec3 next = grandchild_target - child_position;
  const Vec3 normal = glm::cross(bone_direction, next);
  const double normal_length = glm::length(normal);
  if (!(normal_length >= 1e-9 * glm::length(next))) return model_rotation;
  // In joint i's rotated frame: c's hinge axis and c's bone.
  const Vec3 axis_i = child_local * hinge.axis;
  const Vec3 child_bone_i = child_local * ws.bones[i + 1];
  const double angle =
      DecomposeSwingTwist(glm::conjugate(child.rest_rotation) * child_local,
                          hinge.axis)
          .twist_angle;
  const Vec3 axis_model = model_rotation * axis_i;
  // The swivel axis, model space and joint i's rest frame.
  const JointConstraint* own = ConstraintOf(job, i);
  const BallSocketLimit* ball =
      own != nullptr && own->limit->kind == JointLimit::Kind::kBallSocket
          ? &own->limit->ball_socket
          : nullptr;
  const Vec3 to_target = grandchild_target - ws.positions[i];
  const double to_target_length = glm::length(to_target);
  const Quat rest_model =
      ball != nullptr ? parent_rotation * own->rest_rotation : IdentityQuat();
  Quat best = model_rotation;
  double best_score[4] = {0.0, 0.0, 0.0, 0.0};
  for (const double sign : {1.0, -1.0}) {
    const double turn = SignedAngleAbout(
        axis_model, normal * (sign / normal_length), bone_direction);
    const Quat turned = AngleAxis(turn, bone_direction) * model_rotation;
    const double bend =
        angle + SignedAngleAbout(turned * child_bone_i, next, turned * axis_i);
    const double clamped_bend = ClampAngleToRange(bend, hinge.range);
    const double excess =
        std::abs(std::remainder(clamped_bend - bend, 2.0 * kPi));
    SwivelHold hold;
    hold.rotation = turned;
    if (ball != nullptr && to_target_length >= kMinDirectionLength) {
      hold = HoldWithinBallSocket(*ball, rest_model, to_target,
                                  to_target_length, turned);
    }
    const double score[4] = {excess, hold.blocked, hold.swivel, std::abs(turn)};
    if (sign > 0.0 || std::lexicographical_compare(score, score + 4, best_score,
                                                   best_score + 4)) {
      best = hold.rotation;
      std::copy(score, score + 4, best_score);
    }
  }
  return best;
}

}  // namespace ik::internal
