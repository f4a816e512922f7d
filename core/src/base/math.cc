#include "ik/base/math.h"

#include <algorithm>
#include <cmath>

#include "ik/base/trig.h"
#include "ik/base/validate.h"

namespace ik {

double ScaledNorm(const Quat& q) {
  const double largest = std::max(std::max(std::abs(q.x), std::abs(q.y)),
                                  std::max(std::abs(q.z), std::abs(q.w)));
  if (!(largest > 0.0) || !std::isfinite(largest)) {
    return std::sqrt(q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w);
  }
  const double x = q.x / largest;
  const double y = q.y / largest;
  const double z = q.z / largest;
  const double w = q.w / largest;
  return largest * std::sqrt(x * x + y * y + z * z + w * w);
}

namespace {

// Vectors shorter than this count as zero directions (metres or unitless).

// Shortest arc between two unit vectors that are not (nearly) opposite.
Quat FromToUnit(const Vec3& from, const Vec3& to) {
  const Vec3 axis = glm::cross(from, to);
  return glm::normalize(Quat(1.0 + glm::dot(from, to), axis.x, axis.y, axis.z));
}

}  // namespace

Quat FromTo(const Vec3& from, const Vec3& to) {
  const double from_length = glm::length(from);
  const double to_length = glm::length(to);
  if (!(from_length >= kMinDirectionLength) ||
      !(to_length >= kMinDirectionLength)) {
    return IdentityQuat();
  }
  const Vec3 from_unit = from / from_length;
  const Vec3 to_unit = to / to_length;
  if (1.0 + glm::dot(from_unit, to_unit) >= kOppositeThreshold) {
    return FromToUnit(from_unit, to_unit);
  }
  // (Nearly) opposite: a half turn about a fixed perpendicular takes `from`
  // to -from; the remaining tiny arc from -from to `to` is well conditioned.
  const Vec3 axis = AnyPerpendicular(from_unit);
  const Quat half_turn(0.0, axis.x, axis.y, axis.z);
  return glm::normalize(FromToUnit(-from_unit, to_unit) * half_turn);
}

Vec3 AnyPerpendicular(const Vec3& v) {
  const Vec3 magnitude(std::abs(v.x), std::abs(v.y), std::abs(v.z));
  // Cross with the basis vector of v's smallest component (first one on
  // ties): that cross product is the longest available, so well conditioned.
  Vec3 basis(0.0);
  if (magnitude.x <= magnitude.y && magnitude.x <= magnitude.z) {
    basis.x = 1.0;
  } else if (magnitude.y <= magnitude.z) {
    basis.y = 1.0;
  } else {
    basis.z = 1.0;
  }
  return glm::normalize(glm::cross(v, basis));
}

double SignedAngleAbout(const Vec3& from, const Vec3& to, const Vec3& axis) {
  const Vec3 from_planar = from - glm::dot(from, axis) * axis;
  const Vec3 to_planar = to - glm::dot(to, axis) * axis;
  if (glm::length(from_planar) < kMinDirectionLength ||
      glm::length(to_planar) < kMinDirectionLength) {
    return 0.0;
  }
  const double angle = Atan2(glm::dot(axis, glm::cross(from_planar, to_planar)),
                             glm::dot(from_planar, to_planar));
  // atan2 yields -pi for a negative zero sine; the contract is (-pi, pi].
  return angle <= -kPi ? kPi : angle;
}

Quat AngleAxis(double angle, const Vec3& axis) {
  const double half = 0.5 * angle;
  const double sine = Sin(half);
  return Quat(Cos(half), axis.x * sine, axis.y * sine, axis.z * sine);
}

Quat Slerp(const Quat& from, const Quat& to, double t) {
  // The shorter arc: q and -q are the same rotation.
  double cosine = glm::dot(from, to);
  const Quat target = cosine < 0.0 ? -to : to;
  cosine = std::abs(cosine);
  // Nearly equal: sin(angle) would divide by almost zero; the chord and the
  // arc agree there to rounding.
  if (cosine > 1.0 - std::numeric_limits<double>::epsilon()) {
    return from + t * (target - from);
  }
  const double angle = Acos(cosine);
  return (Sin((1.0 - t) * angle) * from + Sin(t * angle) * target) / Sin(angle);
}

}  // namespace ik
