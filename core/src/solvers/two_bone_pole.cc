#include "solvers/two_bone_pole.h"

#include <cmath>

#include "ik/base/math.h"
#include "ik/base/validate.h"

namespace ik::internal {
namespace {

// The rotation about unit `axis` whose angle has the given cosine and sine
// (scaled alike by any positive factor). Uses the half-angle identities
// q ~ (1 + cos, sin * axis) or, equivalently and better conditioned near a
// half turn, q ~ (sin, (1 - cos) * axis).
Quat RotationFromCosSin(double cosine, double sine, double scale,
                        const Vec3& axis) {
  if (cosine >= 0.0) {
    const double w = scale + cosine;
    const double inverse_norm = 1.0 / std::sqrt(w * w + sine * sine);
    const double s = sine * inverse_norm;
    return Quat(w * inverse_norm, axis.x * s, axis.y * s, axis.z * s);
  }
  const double v = scale - cosine;
  const double inverse_norm = 1.0 / std::sqrt(v * v + sine * sine);
  const double s = v * inverse_norm;
  return Quat(sine * inverse_norm, axis.x * s, axis.y * s, axis.z * s);
}

}  // namespace

Quat TwistTowardsPole(const Vec3& pole_offset, const Vec3& to_target,
                      double target_length, const Quat& swing,
                      const Vec3& upper, const Vec3& root_to_tip,
                      const Vec3& bend_axis, double upper_sq) {
  Vec3 twist_axis(0.0);
  if (target_length >= kMinDirectionLength) {
    twist_axis = to_target / target_length;
  } else {
    const Vec3 tip_direction = swing * root_to_tip;
    const double tip_length = glm::length(tip_direction);
    if (!(tip_length >= kMinDirectionLength)) return IdentityQuat();
    twist_axis = tip_direction / tip_length;
  }
  const Vec3 pole_across =
      pole_offset - glm::dot(pole_offset, twist_axis) * twist_axis;
  const double pole_across_sq = glm::dot(pole_across, pole_across);
  if (!(pole_across_sq >
        kOnLineSine * kOnLineSine * glm::dot(pole_offset, pole_offset)) ||
      !(pole_across_sq > kMinDirectionLength * kMinDirectionLength)) {
    return IdentityQuat();
  }
  const Vec3 mid_offset = swing * upper;
  Vec3 mid_across = mid_offset - glm::dot(mid_offset, twist_axis) * twist_axis;
  if (glm::dot(mid_across, mid_across) <=
      kOnLineSine * kOnLineSine * upper_sq) {
    mid_across = glm::cross(twist_axis, swing * bend_axis);
  }
  const double mid_across_sq = glm::dot(mid_across, mid_across);
  if (!(mid_across_sq > kMinDirectionLength * kMinDirectionLength)) {
    return IdentityQuat();
  }
  return RotationFromCosSin(
      glm::dot(mid_across, pole_across),
      glm::dot(twist_axis, glm::cross(mid_across, pole_across)),
      std::sqrt(mid_across_sq * pole_across_sq), twist_axis);
}

}  // namespace ik::internal
