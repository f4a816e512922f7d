// The grounding pass's rays and the foot's turn (ik/ground/grounding.h,
// steps 1 and 5): where a leg's ray and its toe ray meet the ground, the
// goals they give and how the toe ray turns the foot.
#include <algorithm>
#include <cmath>
#include <optional>

#include "ground/grounding_internal.h"
#include "ik/base/trig.h"
#include "ik/geometry/ray.h"

namespace ik::internal {
namespace {

// A forward axis with a horizontal part shorter than this gives the foot no
// direction.
constexpr double kMinForwardLength = 1e-6;

const Vec3 kUp(0.0, 1.0, 0.0);

// How far a goal moves from the animated point along the ground's normal
// (negated): the whole clearance when the animation sinks the point into
// the ground (the clamped goal), else the weight's share of it (towards the
// planted goal).
double Correction(double clearance, double weight) {
  return clearance <= 0.0 ? clearance : weight * clearance;
}

// Every ray of the pass goes straight down: one ray's direction constants
// serve them all (Ray::WithOrigin).
const Ray& DownRay() {
  static const Ray ray = *Ray::Make(Vec3(0.0), Vec3(0.0, -1.0, 0.0));
  return ray;
}

}  // namespace

// The leg ray of Szauer's foot grounding: straight down through `through`, from
// ray_above_hip above `top` to ray_below_ankle below `through`. A miss for an
// origin beyond kMaxCoordinate.
RayHit CastDown(const Ground& ground, const Vec3& through, double top,
                const LegSettings& settings) {
  const Vec3 origin(through.x, top + settings.ray_above_hip, through.z);
  const std::optional<Ray> ray = DownRay().WithOrigin(origin);
  if (!ray.has_value()) return RayHit();
  return ground.Raycast(*ray,
                        (origin.y - through.y) + settings.ray_below_ankle);
}

// The toe point's offset from the ankle (`ankle_world`, of the leg posed
// as `pose` under `root`), world space, in the sole's plane through the
// ankle (the plane the rest pose holds horizontal, turned as the foot is
// turned from its rest): the toe joint's offset flattened into that plane,
// or toe_forward along the forward axis as the foot carries it. Zero when
// neither gives a direction.
Vec3 ToeOffset(const Rig& rig, const Leg& leg, const Transform& root,
               const LegPose& pose, const Vec3& ankle_world) {
  // Model-space rest directions of the foot -> world-space posed ones.
  const Quat foot_turn = root.rotation * pose.ankle.rotation *
                         glm::conjugate(leg.ankle_rest_model);
  if (leg.toe != kNoParent) {
    const Vec3 sole_up = foot_turn * kUp;
    Vec3 run = TransformPoint(root, pose.toe) - ankle_world;
    run -= sole_up * glm::dot(run, sole_up);
    if (glm::length(run) >= kMinToeRun) return run;
  }
  const Vec3 forward(rig.forward().x, 0.0, rig.forward().z);
  const double length = glm::length(forward);
  if (!(length >= kMinForwardLength)) return Vec3(0.0);
  return foot_turn * (forward * (leg.settings.toe_forward / length));
}

// How far the sole under an animated point (ankle or toe point) is above
// the ground `hit` found under it, along the ground's normal: negative
// when the animation sinks it in.
double Clearance(const RayHit& hit, const Vec3& point_world,
                 const LegSettings& settings) {
  return glm::dot(point_world - hit.point, hit.normal) - settings.ankle_height;
}

// The point's goal minus the point: along the ground's normal, by the
// clearance's correction.
Vec3 GoalOffset(const RayHit& hit, double clearance, double weight) {
  return hit.normal * -Correction(clearance, weight);
}

// The toe ray's turn of the foot (step 5 in ik/ground/grounding.h), world
// space, about the ankle: from ankle -> toe point to ankle goal -> toe goal, on
// the animated pose. `ankle_offset` is the ankle's goal offset (before
// smoothing, which does not turn the foot).
FootTurn AlignFoot(const Ground& ground, const LegSettings& settings,
                   double weight, const Vec3& ankle_world,
                   const Vec3& knee_world, const Vec3& toe_offset,
                   const Vec3& ankle_offset) {
  FootTurn turn;
  const Vec3 toe_world = ankle_world + toe_offset;
  const RayHit hit = CastDown(ground, toe_world,
                              std::max(toe_world.y, knee_world.y), settings);
  if (!hit.hit) return turn;
  const Vec3 toe_goal_offset =
      GoalOffset(hit, Clearance(hit, toe_world, settings), weight);
  Quat rotation =
      FromTo(toe_offset, toe_offset + (toe_goal_offset - ankle_offset));
  const Vec3 vector_part(rotation.x, rotation.y, rotation.z);
  const double half_sine = glm::length(vector_part);
  turn.angle = 2.0 * Atan2(half_sine, std::abs(rotation.w));
  if (turn.angle > settings.max_foot_tilt) {
    turn.clamped = turn.angle > settings.max_foot_tilt + kClampSlack;
    const double sign = rotation.w < 0.0 ? -1.0 : 1.0;
    rotation =
        AngleAxis(settings.max_foot_tilt, vector_part * (sign / half_sine));
    turn.angle = settings.max_foot_tilt;
  }
  turn.rotation = rotation;
  return turn;
}

}  // namespace ik::internal
