#include "ik/dynamics/colliders.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "ik/base/validate.h"

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

absl::Status ValidateCollider(const Collider& collider, absl::string_view path,
                              bool sphere) {
  // A sphere's one point is its "center"; a capsule's are "start" and "end".
  if (absl::Status status = CheckPoint(
          collider.start, absl::StrCat(path, sphere ? ".center" : ".start"));
      !status.ok()) {
    return status;
  }
  if (!sphere) {
    if (absl::Status status =
            CheckPoint(collider.end, absl::StrCat(path, ".end"));
        !status.ok()) {
      return status;
    }
  }
  if (!(collider.radius >= 0.0 && collider.radius <= kMaxColliderRadius)) {
    return OutOfRange(absl::StrCat(path, ".radius"), collider.radius, 0.0,
                      kMaxColliderRadius, " m");
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
  // A contact sits on the simulation's critical path, so this works with
  // squared distances, with one division and one square root on the way to
  // the answer (and a second division beside them). With c = center -
  // parent at distance d, the circle where the spheres meet lies in the
  // plane at along = (d^2 + length^2 - reach^2) / (2 d) from the parent (law
  // of cosines): its center is parent + k c with k = along / d, its radius
  // sqrt(length^2 - k^2 d^2). When that radius is not positive (|along| >=
  // length) the spheres do not meet, or touch in one point: the point of the
  // bone's sphere towards the center when along > 0, away from it when
  // along < 0 (the bone's sphere inside the collider's).
  const Vec3 to_center = center - parent;
  const Vec3 to_near = near - parent;
  const double distance_sq = glm::dot(to_center, to_center);
  if (!(distance_sq >= kMinDistance * kMinDistance)) {
    // Concentric: no circle. Keep the joint's direction from the parent.
    const double out_length = glm::length(to_near);
    const Vec3 direction =
        out_length >= kMinDistance ? to_near / out_length : Vec3(0.0, 1.0, 0.0);
    return parent + length * direction;
  }
  const double inverse_distance_sq = 1.0 / distance_sq;
  const double length_sq = length * length;
  const double k =
      (distance_sq + (length_sq - reach * reach)) * (0.5 * inverse_distance_sq);
  const double circle_radius_sq = length_sq - (k * k) * distance_sq;
  if (!(circle_radius_sq > 0.0)) {
    const double toward = k > 0.0 ? length : -length;
    return parent + (toward / std::sqrt(distance_sq)) * to_center;
  }
  // `near`'s offset from the line through parent and center: the direction
  // from the circle's center to the point sought.
  const Vec3 across =
      to_near -
      (glm::dot(to_near, to_center) * inverse_distance_sq) * to_center;
  const double across_sq = glm::dot(across, across);
  const Vec3 circle_center = parent + k * to_center;
  if (!(across_sq >= kMinDistance * kMinDistance)) {
    return circle_center +
           std::sqrt(circle_radius_sq) * AnyPerpendicular(to_center);
  }
  // across * circle_radius / |across|, as sqrt(r^2 |across|^2) / |across|^2.
  const double inverse_across_sq = 1.0 / across_sq;
  return circle_center +
         across * (std::sqrt(circle_radius_sq * across_sq) * inverse_across_sq);
}

namespace {

// Bisections along the bone's sphere that end a capsule push the iterations
// left inside: the arc shrinks to 2^-50 of its length.
constexpr int kArcBisections = 50;

// When the sphere iterations leave the joint still inside the capsule (a
// grazing contact, where the closest point of the segment keeps moving):
// the point of the bone's sphere straight away from the segment at the
// parent (`parent_closest`, the segment's point nearest the parent) is
// outside whenever the bone can leave at all, so the joint walks the great
// circle from where it is towards it, by bisection, to the grown surface.
// The bone length is kept (every point is on the bone's sphere); a joint
// whose bone cannot leave stays where the iterations put it.
void FinishCapsulePush(const Collider& collider, double inner_reach,
                       const Vec3& parent, double bone_length,
                       const Vec3& parent_closest, Vec3* position) {
  const Vec3 away = parent - parent_closest;
  const double away_length = glm::length(away);
  if (!(away_length >= kMinDirectionLength) || !(bone_length > 0.0)) return;
  const Vec3 out_direction = away / away_length;
  if (IsWithinReach(collider, parent + bone_length * out_direction,
                    inner_reach)) {
    return;  // the bone cannot leave the capsule
  }
  const Vec3 in_direction = (*position - parent) / bone_length;
  const auto on_arc = [&](double s) {
    const Vec3 mixed = (1.0 - s) * in_direction + s * out_direction;
    const double length = glm::length(mixed);
    return length >= kMinDirectionLength ? mixed / length : out_direction;
  };
  double inside = 0.0;
  double outside = 1.0;
  for (int i = 0; i < kArcBisections; ++i) {
    const double middle = 0.5 * (inside + outside);
    (IsWithinReach(collider, parent + bone_length * on_arc(middle), inner_reach)
         ? inside
         : outside) = middle;
  }
  *position = parent + bone_length * on_arc(outside);
}

}  // namespace

bool PushOutOfCollider(const Collider& collider, double joint_radius,
                       const Vec3& parent, double bone_length, Vec3* position) {
  const double reach = collider.radius + joint_radius;
  if (!IsWithinReach(collider, *position, reach)) return false;
  if (collider.start == collider.end) {  // a sphere: one exact placement
    *position =
        PlaceOnSpheres(parent, bone_length, collider.start, reach, *position);
    return true;
  }
  // The closest point of the segment, start + t (end - start) with t the
  // projection clamped to [0, 1], with the division taken out of the loop.
  // A segment too short to invert its squared length (under about 1e-154 m)
  // counts as its start.
  const Vec3 axis = collider.end - collider.start;
  const double axis_sq = glm::dot(axis, axis);
  const double inverse_axis_sq =
      axis_sq >= std::numeric_limits<double>::min() ? 1.0 / axis_sq : 0.0;
  const double inner_reach = reach * (1.0 - kSurfaceTolerance);
  const auto closest_to = [&](const Vec3& point) {
    const double t = std::clamp(
        glm::dot(point - collider.start, axis) * inverse_axis_sq, 0.0, 1.0);
    return collider.start + t * axis;
  };
  for (int iteration = 0; iteration < kCapsulePushIterations; ++iteration) {
    *position = PlaceOnSpheres(parent, bone_length, closest_to(*position),
                               reach, *position);
    if (!IsWithinReach(collider, *position, inner_reach)) return true;
  }
  FinishCapsulePush(collider, inner_reach, parent, bone_length,
                    closest_to(parent), position);
  return true;
}

}  // namespace ik
