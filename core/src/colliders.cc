#include "ik/colliders.h"

#include <algorithm>
#include <cmath>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "ik/validate.h"

namespace ik {
namespace {

// Distances below this, metres, count as zero (no usable direction).
constexpr double kMinDistance = 1e-12;

// A capsule push stops once the joint is within this fraction of the reach
// from the surface: the exact answer for the current closest point, up to
// rounding.
constexpr double kSurfaceTolerance = 1e-9;

}  // namespace

Collider PlaceCollider(const Collider& collider_local,
                       const Transform& joint_world) {
  const Vec3 scale = glm::abs(joint_world.scale);
  Collider placed;
  placed.start = TransformPoint(joint_world, collider_local.start);
  placed.end = TransformPoint(joint_world, collider_local.end);
  placed.radius =
      collider_local.radius * std::max(scale.x, std::max(scale.y, scale.z));
  return placed;
}

absl::Status ValidateCollider(const Collider& collider,
                              absl::string_view path) {
  if (absl::Status status =
          CheckPoint(collider.start, absl::StrCat(path, ".start"));
      !status.ok()) {
    return status;
  }
  if (absl::Status status =
          CheckPoint(collider.end, absl::StrCat(path, ".end"));
      !status.ok()) {
    return status;
  }
  if (!(collider.radius >= 0.0 && collider.radius <= kMaxColliderRadius)) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ".radius: must be within [0, ", kMaxColliderRadius,
                     "] m, got ", collider.radius));
  }
  return absl::OkStatus();
}

Vec3 ClosestPointOnSegment(const Vec3& point, const Vec3& start,
                           const Vec3& end) {
  const Vec3 e = end - start;
  const double t = glm::dot(point - start, e);
  if (t <= 0.0) return start;
  const double e_sq = glm::dot(e, e);
  if (t >= e_sq) return end;
  return start + (t / e_sq) * e;
}

Vec3 PlaceOnSpheres(const Vec3& parent, double length, const Vec3& center,
                    double reach, const Vec3& near) {
  // Square roots and divisions dominate the cost, and a contact sits on the
  // simulation's critical path: three roots, two divisions.
  const Vec3 to_center = center - parent;
  const double distance = std::sqrt(glm::dot(to_center, to_center));
  if (!(distance >= kMinDistance)) {
    // Concentric: no circle. Keep the joint's direction from the parent.
    const Vec3 out = near - parent;
    const double out_length = glm::length(out);
    const Vec3 direction =
        out_length >= kMinDistance ? out / out_length : Vec3(0.0, 1.0, 0.0);
    return parent + length * direction;
  }
  const double inverse_distance = 1.0 / distance;
  const Vec3 axis = to_center * inverse_distance;
  if (distance + length <= reach) {
    // The bone's whole sphere is inside the collider: as far out as it goes.
    return parent - length * axis;
  }
  // Circle of the two spheres: its plane is at `along` from the parent along
  // the axis (law of cosines), its radius sqrt(length^2 - along^2). Out of
  // [-length, length] the spheres do not meet; clamping gives the nearest
  // or farthest point of the bone's sphere, as documented.
  const double along =
      std::clamp((distance * distance + (length * length - reach * reach)) *
                     (0.5 * inverse_distance),
                 -length, length);
  const double circle_radius =
      std::sqrt(std::max(0.0, length * length - along * along));
  const Vec3 circle_center = parent + along * axis;
  Vec3 across = near - circle_center;
  across -= glm::dot(across, axis) * axis;
  const double across_sq = glm::dot(across, across);
  if (!(across_sq >= kMinDistance * kMinDistance)) {
    return circle_center + circle_radius * AnyPerpendicular(axis);
  }
  return circle_center + across * (circle_radius / std::sqrt(across_sq));
}

bool PushOutOfCollider(const Collider& collider, double joint_radius,
                       const Vec3& parent, double bone_length, Vec3* position) {
  const double reach = collider.radius + joint_radius;
  if (!IsWithinReach(collider, *position, reach)) return false;
  if (collider.start == collider.end) {  // a sphere: one exact placement
    *position =
        PlaceOnSpheres(parent, bone_length, collider.start, reach, *position);
    return true;
  }
  const double inner_reach = reach * (1.0 - kSurfaceTolerance);
  for (int iteration = 0; iteration < kCapsulePushIterations; ++iteration) {
    const Vec3 closest =
        ClosestPointOnSegment(*position, collider.start, collider.end);
    *position = PlaceOnSpheres(parent, bone_length, closest, reach, *position);
    if (!IsWithinReach(collider, *position, inner_reach)) break;
  }
  return true;
}

}  // namespace ik
