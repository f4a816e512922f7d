#include "ik/base/joint_limits.h"

#include <cmath>

#include "ik/base/trig.h"
#include "ik/base/validate.h"

namespace ik {
namespace {

constexpr double kTwoPi = 2.0 * kPi;

// Below this squared norm the twist part (w, v.t) of a rotation is zero: the
// rotation turns the twist axis half round and the twist is undefined.
constexpr double kMinTwistNormSquared = 1e-24;
// Directions shorter than this count as zero.

// The twist part of `rotation` about unit `axis`: unit, w >= 0, with its
// angle in (-pi, pi]; identity when undefined.
struct Twist {
  Quat rotation{1.0, 0.0, 0.0, 0.0};
  double angle = 0.0;
};

Twist TwistAbout(const Quat& rotation, const Vec3& axis) {
  double w = rotation.w;
  double s = rotation.x * axis.x + rotation.y * axis.y + rotation.z * axis.z;
  const double norm_squared = w * w + s * s;
  Twist twist;
  if (!(norm_squared >= kMinTwistNormSquared)) return twist;
  if (w < 0.0) {
    w = -w;
    s = -s;
  }
  const double inverse_norm = 1.0 / std::sqrt(norm_squared);
  w *= inverse_norm;
  s *= inverse_norm;
  twist.rotation = Quat(w, axis.x * s, axis.y * s, axis.z * s);
  // w >= 0: the half angle is in [-pi/2, pi/2].
  twist.angle = 2.0 * Atan2(s, w);
  if (twist.angle <= -kPi) twist.angle = kPi;
  return twist;
}

// The angle between unit vectors, radians in [0, pi].
double AngleBetween(const Vec3& a, const Vec3& b) {
  return Atan2(glm::length(glm::cross(a, b)), glm::dot(a, b));
}

// |a - b| around the circle, radians in [0, pi].
double CircularDistance(double a, double b) {
  double difference = std::fmod(std::abs(a - b), kTwoPi);
  if (difference > kPi) difference = kTwoPi - difference;
  return difference;
}

// The clamp and whether anything changed at all (unlike `clamped`, which
// ignores rounding-level moves).
struct Clamp {
  Quat rotation{1.0, 0.0, 0.0, 0.0};
  bool changed = false;
  bool clamped = false;
};

Clamp ClampBallSocket(const BallSocketLimit& limit, const Quat& relative) {
  const Vec3& bone = limit.twist_axis;
  const Vec3& axis = limit.axis;
  const Vec3 direction = relative * bone;
  const double cos_cone = glm::dot(direction, axis);
  // A cone of pi holds every direction.
  const double cos_max = limit.swing_max >= kPi ? -2.0 : Cos(limit.swing_max);
  const bool outside_cone = cos_cone < cos_max;
  const Twist twist = TwistAbout(relative, bone);
  double twist_angle = twist.angle;
  if (limit.has_twist) {
    twist_angle = ClampAngleToRange(twist.angle, limit.twist);
  }
  const bool twist_out = twist_angle != twist.angle;
  if (!outside_cone && !twist_out) return {relative, false, false};

  Clamp clamp;
  clamp.changed = true;
  Vec3 clamped_direction = direction;
  if (outside_cone) {
    clamp.clamped =
        AngleBetween(direction, axis) - limit.swing_max > kLimitClampSlack;
    Vec3 across = direction - cos_cone * axis;
    const double across_length = glm::length(across);
    across = across_length >= kMinDirectionLength ? across / across_length
                                                  : AnyPerpendicular(axis);
    clamped_direction = cos_max * axis + Sin(limit.swing_max) * across;
  }
  if (twist_out) {
    clamp.clamped |=
        CircularDistance(twist_angle, twist.angle) > kLimitClampSlack;
  }
  const Quat twist_rotation =
      twist_out ? AngleAxis(twist_angle, bone) : twist.rotation;
  clamp.rotation =
      glm::normalize(FromTo(bone, clamped_direction) * twist_rotation);
  return clamp;
}

Clamp ClampHinge(const HingeLimit& limit, const Quat& relative) {
  const Vec3& axis = limit.axis;
  const Twist twist = TwistAbout(relative, axis);
  const double angle = ClampAngleToRange(twist.angle, limit.range);
  const Vec3 vector(relative.x, relative.y, relative.z);
  const Vec3 off_axis = vector - glm::dot(vector, axis) * axis;
  if (angle == twist.angle && off_axis == Vec3(0.0)) {
    return {relative, false, false};
  }
  Clamp clamp;
  clamp.changed = true;
  const double swing_angle = AngleBetween(axis, relative * axis);
  clamp.clamped = swing_angle > kLimitClampSlack ||
                  CircularDistance(angle, twist.angle) > kLimitClampSlack;
  clamp.rotation =
      angle == twist.angle ? twist.rotation : AngleAxis(angle, axis);
  return clamp;
}

// `angle` within kLimitClampSlack of an end of `range` (narrower than a
// full turn).
bool AtRangeEnd(double angle, const AngleRange& range) {
  return range.max - range.min < kTwoPi &&
         (CircularDistance(angle, range.min) <= kLimitClampSlack ||
          CircularDistance(angle, range.max) <= kLimitClampSlack);
}

bool OnBallSocketBoundary(const BallSocketLimit& limit, const Quat& relative) {
  const Vec3 direction = relative * limit.twist_axis;
  if (limit.swing_max < kPi &&
      limit.swing_max - AngleBetween(direction, limit.axis) <=
          kLimitClampSlack) {
    return true;
  }
  return limit.has_twist &&
         AtRangeEnd(TwistAbout(relative, limit.twist_axis).angle, limit.twist);
}

}  // namespace

SwingTwist DecomposeSwingTwist(const Quat& rotation, const Vec3& twist_axis) {
  const Twist twist = TwistAbout(rotation, twist_axis);
  SwingTwist result;
  result.twist = twist.rotation;
  result.twist_angle = twist.angle;
  result.swing = rotation * glm::conjugate(twist.rotation);
  return result;
}

double ClampAngleToRange(double angle, const AngleRange& range) {
  const double width = range.max - range.min;
  if (width >= kTwoPi) return angle;
  // The angle's offset from min, in [0, 2pi): one turn added or taken for
  // the angles solvers produce, fmod only for others.
  double shift = angle - range.min;
  if (shift < 0.0) shift += kTwoPi;
  if (shift >= kTwoPi) shift -= kTwoPi;
  if (!(shift >= 0.0 && shift < kTwoPi)) {
    shift = std::fmod(angle - range.min, kTwoPi);
    if (shift < 0.0) shift += kTwoPi;
  }
  if (shift <= width) return angle;
  const double past_max = shift - width;
  const double before_min = kTwoPi - shift;
  return past_max < before_min ? range.max : range.min;
}

LimitedRotation ApplyBallSocketLimit(const BallSocketLimit& limit,
                                     const Quat& relative) {
  const Clamp clamp = ClampBallSocket(limit, relative);
  return {clamp.rotation, clamp.clamped};
}

LimitedRotation ApplyHingeLimit(const HingeLimit& limit, const Quat& relative) {
  const Clamp clamp = ClampHinge(limit, relative);
  return {clamp.rotation, clamp.clamped};
}

LimitedRotation ApplyJointLimit(const JointLimit& limit,
                                const Quat& rest_rotation,
                                const Quat& rotation_local) {
  Clamp clamp;
  switch (limit.kind) {
    case JointLimit::Kind::kNone:
      return {rotation_local, false};
    case JointLimit::Kind::kBallSocket:
      clamp = ClampBallSocket(limit.ball_socket,
                              glm::conjugate(rest_rotation) * rotation_local);
      break;
    case JointLimit::Kind::kHinge:
      clamp = ClampHinge(limit.hinge,
                         glm::conjugate(rest_rotation) * rotation_local);
      break;
  }
  if (!clamp.changed) return {rotation_local, false};
  return {glm::normalize(rest_rotation * clamp.rotation), clamp.clamped};
}

bool OnJointLimitBoundary(const JointLimit& limit, const Quat& rest_rotation,
                          const Quat& rotation_local) {
  const Quat relative = glm::conjugate(rest_rotation) * rotation_local;
  switch (limit.kind) {
    case JointLimit::Kind::kNone:
      return false;
    case JointLimit::Kind::kBallSocket:
      return OnBallSocketBoundary(limit.ball_socket, relative);
    case JointLimit::Kind::kHinge:
      return AtRangeEnd(TwistAbout(relative, limit.hinge.axis).angle,
                        limit.hinge.range);
  }
  return false;
}

}  // namespace ik
