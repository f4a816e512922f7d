// How the continuity rules swing an incoming pose onto a target: a limb or
// chain whose tip points at `from` (seen from its root) is turned to point
// at `to`. By the shortest arc, the turn about the target line moves
// tan(b / 2) times as fast as `from` or `to` does, b the angle between
// them, which nears pi wherever an incoming pose far from the goal (a fixed
// pose, a separate animation) points away from it: a singular direction
// that moves with the animation. Through a fixed direction (a `centre`: the
// rest pose's tip) it moves at most tan(a / 2) times as fast, a the angle
// of `from` or `to` from the centre: the centre's opposite, which a limited
// limb can hardly reach, is then the one singular direction. Near the goal
// the shortest arc is the natural turn, so the route goes through a
// waypoint moved from the arc's midpoint towards the centre by
// SwingCentreWeight. Shared by the two-bone limbs' continuity rule
// (rig/two_bone_limits.cc) and the iterative chains' continuity pass
// (solvers/torque_relax.cc). Not part of the public API.
#ifndef IK_SRC_BASE_SWING_H_
#define IK_SRC_BASE_SWING_H_

#include <algorithm>

#include "ik/base/math.h"
#include "ik/base/trig.h"
#include "ik/base/validate.h"

namespace ik::internal {

// The angle, radians, between `from` and `to` from which the swing wholly
// goes through the centre.
inline constexpr double kSwingCentreFrom = 0.25;
inline constexpr double kSwingCentreBy = 1.25;

// How much of the way from the shortest arc the swing goes through the
// centre: 0 for `from` along `to`, 1 from kSwingCentreBy apart, smoothly
// (3 s^2 - 2 s^3 of the angle's share) between. Neither need be unit.
inline double SwingCentreWeight(const Vec3& from, const Vec3& to) {
  const double angle =
      Atan2(glm::length(glm::cross(from, to)), glm::dot(from, to));
  const double s = std::clamp(
      (angle - kSwingCentreFrom) / (kSwingCentreBy - kSwingCentreFrom), 0.0,
      1.0);
  return s * s * (3.0 - 2.0 * s);
}

// The route's waypoint for unit `from`, `to` and `centre`: the shortest
// arc's midpoint moved by `weight` (SwingCentreWeight) towards the centre;
// the centre itself at weight 1 (where the midpoint may be undefined).
inline Vec3 SwingWaypoint(const Vec3& from, const Vec3& to, const Vec3& centre,
                          double weight) {
  if (!(weight < 1.0)) return centre;
  const Vec3 middle = glm::normalize(from + to);
  const Vec3 moved = middle + weight * (centre - middle);
  const double length = glm::length(moved);
  return length >= kMinDirectionLength ? moved / length : centre;
}

// An angle in [0, pi] as the arguments of its atan2 (y >= 0), so that two
// angles can be taken in one pair of SIMD lanes.
struct AngleArguments {
  double y = 0.0;
  double x = 1.0;
};

// The angle from the route's singular direction, for `from` and `to` (any
// length): with a centre (unit; at a SwingCentreWeight above 0), from the
// centre's opposite to the nearer of the two (a direction of no length
// counting as the centre); else (the shortest arc) from `to` to the
// opposite of `from`.
inline AngleArguments SwingSingularity(const Vec3& from, const Vec3& to,
                                       const Vec3* centre, double weight) {
  if (centre == nullptr || !(weight > 0.0)) {
    return AngleArguments{glm::length(glm::cross(from, to)),
                          -glm::dot(from, to)};
  }
  const auto cosine = [&](const Vec3& direction) {
    const double length = glm::length(direction);
    return length >= kMinDirectionLength ? glm::dot(direction, *centre) / length
                                         : 1.0;
  };
  const double from_cosine = cosine(from);
  const double to_cosine = cosine(to);
  const Vec3& nearer = from_cosine < to_cosine ? from : to;
  const double length = glm::length(nearer);
  if (!(length >= kMinDirectionLength)) return AngleArguments{0.0, -1.0};
  return AngleArguments{glm::length(glm::cross(*centre, nearer)) / length,
                        -std::min(from_cosine, to_cosine)};
}

}  // namespace ik::internal

#endif  // IK_SRC_BASE_SWING_H_
