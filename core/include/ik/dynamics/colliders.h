// Sphere and capsule colliders for the dynamic-bone simulation, and the
// push-out that keeps a simulated joint outside them without changing its
// bone length (collisions resolved by projection, then the length constraint
// restored, as in Jakobsen 2001, "Advanced Character Physics").
//
// A rig attaches colliders to joints, in the joint's space; the simulation
// wants them in its own (world) space for the step. PlaceCollider does that
// move:
//
//   ik::Collider head_local = ik::SphereCollider({0.0, 0.1, 0.0}, 0.11);
//   ik::Collider head_world = ik::PlaceCollider(head_local, head_world_xf);
//
//   ik::Vec3 joint = ...;  // already at `length` from `parent`
//   ik::PushOutOfCollider(head_world, /*joint_radius=*/0.02, parent, length,
//                         &joint);
#ifndef IK_COLLIDERS_H_
#define IK_COLLIDERS_H_

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "ik/base/math.h"

namespace ik {

// Collider radii beyond this, metres, are rejected.
inline constexpr double kMaxColliderRadius = 1e6;

// A capsule: every point within `radius` of the segment start..end. A sphere
// is a capsule whose ends coincide. The space of the points is the caller's:
// joint-local in a rig, world space for a simulation step.
struct Collider {
  Vec3 start{0.0};
  Vec3 end{0.0};
  double radius = 0.0;  // metres, in [0, kMaxColliderRadius]
};

inline Collider SphereCollider(const Vec3& center, double radius) {
  return Collider{center, center, radius};
}

inline Collider CapsuleCollider(const Vec3& start, const Vec3& end,
                                double radius) {
  return Collider{start, end, radius};
}

// `collider_local`, given in the space of a joint whose transform is
// `joint_world`, in world space. The radius scales by the largest absolute
// component of the joint's scale (exact for uniform scale; a conservative
// bound otherwise).
Collider PlaceCollider(const Collider& collider_local,
                       const Transform& joint_world);

// INVALID_ARGUMENT "<path>.start: not finite" (or .end, .radius) when the
// collider's points are not finite or beyond kMaxCoordinate, or its radius is
// negative, not finite or beyond kMaxColliderRadius. A `sphere` (start ==
// end) names its point "<path>.center" and has no end.
absl::Status ValidateCollider(const Collider& collider, absl::string_view path,
                              bool sphere = false);

// The point of segment start..end closest to `point` (start when the segment
// has zero length).
Vec3 ClosestPointOnSegment(const Vec3& point, const Vec3& start,
                           const Vec3& end);

// Whether `point` is closer than `reach` to the collider's segment (that is,
// a sphere of radius reach - collider.radius about it overlaps the
// collider). Inline and division-free: with w = point - start, e = end - start
// and t = w.e, the squared distance to an interior point of the segment is
// |w|^2 - t^2 / |e|^2, compared here multiplied through by |e|^2.
inline bool IsWithinReach(const Collider& collider, const Vec3& point,
                          double reach) {
  const double reach_sq = reach * reach;
  const Vec3 w = point - collider.start;
  const Vec3 e = collider.end - collider.start;
  const double t = glm::dot(w, e);
  if (t <= 0.0) return glm::dot(w, w) < reach_sq;
  const double e_sq = glm::dot(e, e);
  if (t >= e_sq) {
    const Vec3 from_end = point - collider.end;
    return glm::dot(from_end, from_end) < reach_sq;
  }
  return glm::dot(w, w) * e_sq - t * t < reach_sq * e_sq;
}

// The point at distance `length` from `parent` and `reach` from `center`
// (the circle where those two spheres meet) that is closest to `near`. This
// is the push-out followed by the length correction made exact: the joint
// ends on the collider's surface *and* keeps its bone length. Degenerate
// cases, never NaN for finite input:
//  - the bone's sphere lies inside the collider's (the parent is deep
//    inside): the point of the bone's sphere farthest from `center`;
//  - the spheres do not meet: the point of the bone's sphere nearest to
//    `center` (when too far, or when the collider's sphere lies inside the
//    bone's);
//  - `near` on the line through parent and center: a fixed perpendicular
//    direction (AnyPerpendicular) picks the point, deterministically.
// `length` and `reach` must be >= 0.
Vec3 PlaceOnSpheres(const Vec3& parent, double length, const Vec3& center,
                    double reach, const Vec3& near);

// Iterations PushOutOfCollider spends on a capsule at most (a sphere needs
// one).
inline constexpr int kCapsulePushIterations = 4;

// When the joint at `*position`, a sphere of `joint_radius`, overlaps
// `collider`, moves it onto the surface of the collider grown by
// joint_radius while keeping it at distance `bone_length` from `parent`, and
// returns true; otherwise leaves it and returns false. For a sphere the
// result is exact (PlaceOnSpheres). For a capsule the collider is treated as
// the sphere about the point of its segment closest to the joint, and that
// is repeated up to kCapsulePushIterations times while the joint is still
// deeper than 1e-9 of the reach (the closest point moves as the joint
// does); a grazing contact those iterations leave inside is finished by
// walking the bone's sphere towards the point straight away from the
// segment, to the surface. Whenever the bone can leave the capsule, the
// joint ends outside it to 1e-9 of the reach (over 200,000 seeded random
// contacts at centimetre-to-decimetre sizes, at most 4.2e-10 m inside;
// colliders_test.cc). The bone length is kept exactly (up to rounding) in
// every case. A parent inside the collider does not produce NaN: the joint
// goes as far out as its bone allows.
bool PushOutOfCollider(const Collider& collider, double joint_radius,
                       const Vec3& parent, double bone_length, Vec3* position);

}  // namespace ik

#endif  // IK_COLLIDERS_H_
