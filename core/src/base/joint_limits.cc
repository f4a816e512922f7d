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

// The twist part of `rotation` about unit `axis`: unit, w >= 0 (its angle,
// TwistAngle, in (-pi, pi]); identity when undefined.
struct Twist {
  double w = 1.0;  // cos(angle / 2)
  double s = 0.0;  // sin(angle / 2)
  bool defined = false;
  // The rotation, built only where a caller needs it (a clamp's fast path
  // does not).
  Quat RotationAbout(const Vec3& axis) const {
    if (!defined) return Quat(1.0, 0.0, 0.0, 0.0);
    return Quat(w, axis.x * s, axis.y * s, axis.z * s);
  }
};

double TwistAngle(const Twist& twist) {
  // w >= 0: the half angle is in [-pi/2, pi/2].
  const double angle = 2.0 * Atan2(twist.s, twist.w);
  return angle <= -kPi ? kPi : angle;
}

// Whether the twist's angle is within the range whose half-angle tangents
// are `tangents` (false when they are NaN: not known to be within).
bool WithinByTangents(const Twist& twist, const HalfTangents& tangents) {
  return tangents.min * twist.w <= twist.s && twist.s <= tangents.max * twist.w;
}

// A twist's angle clamped into a range (ClampAngleToRange). When the
// range's half-angle tangents show the twist within it, nothing is
// computed: `out` is false and the angles stay 0.
struct RangeClamp {
  double angle = 0.0;    // the twist's angle (0 when not computed)
  double clamped = 0.0;  // where the range puts it
  bool out = false;      // clamped != angle
};

RangeClamp ClampTwistToRange(const Twist& twist, const AngleRange& range,
                             const HalfTangents& tangents) {
  RangeClamp result;
  if (WithinByTangents(twist, tangents)) return result;
  result.angle = TwistAngle(twist);
  result.clamped = ClampAngleToRange(result.angle, range);
  result.out = result.clamped != result.angle;
  return result;
}

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
  twist.defined = true;
  twist.w = w;
  twist.s = s;
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
  const bool derived = !std::isnan(limit.cos_swing_max);
  const double cos_max = derived ? limit.cos_swing_max : Cos(limit.swing_max);
  // A cone of pi holds every direction.
  const bool outside_cone = limit.swing_max < kPi && cos_cone < cos_max;
  const Twist twist = TwistAbout(relative, bone);
  RangeClamp twist_clamp;
  if (limit.has_twist) {
    twist_clamp = ClampTwistToRange(twist, limit.twist, limit.twist_tangents);
  }
  const bool twist_out = twist_clamp.out;
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
    const double sin_max = derived ? limit.sin_swing_max : Sin(limit.swing_max);
    clamped_direction = cos_max * axis + sin_max * across;
  }
  if (twist_out) {
    clamp.clamped |= CircularDistance(twist_clamp.clamped, twist_clamp.angle) >
                     kLimitClampSlack;
  }
  const Quat twist_rotation = twist_out ? AngleAxis(twist_clamp.clamped, bone)
                                        : twist.RotationAbout(bone);
  clamp.rotation =
      glm::normalize(FromTo(bone, clamped_direction) * twist_rotation);
  return clamp;
}

Clamp ClampHinge(const HingeLimit& limit, const Quat& relative) {
  const Vec3& axis = limit.axis;
  const Twist twist = TwistAbout(relative, axis);
  const RangeClamp range =
      ClampTwistToRange(twist, limit.range, limit.range_tangents);
  const Vec3 vector(relative.x, relative.y, relative.z);
  const Vec3 off_axis = vector - glm::dot(vector, axis) * axis;
  if (!range.out && off_axis == Vec3(0.0)) return {relative, false, false};
  Clamp clamp;
  clamp.changed = true;
  // For a unit rotation |off_axis| = sin(swing / 2): within 0.4 of the
  // slack of the axis the swing is below the slack without its angle (a
  // solve's turn about the hinge leaves rounding-level swings, every time).
  constexpr double kNearAxis = 0.4 * kLimitClampSlack;
  const bool swing_within_slack =
      glm::dot(off_axis, off_axis) <= kNearAxis * kNearAxis;
  clamp.clamped = (!swing_within_slack &&
                   AngleBetween(axis, relative * axis) > kLimitClampSlack) ||
                  (range.out && CircularDistance(range.clamped, range.angle) >
                                    kLimitClampSlack);
  clamp.rotation =
      range.out ? AngleAxis(range.clamped, axis) : twist.RotationAbout(axis);
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
         AtRangeEnd(TwistAngle(TwistAbout(relative, limit.twist_axis)),
                    limit.twist);
}

}  // namespace

SwingTwist DecomposeSwingTwist(const Quat& rotation, const Vec3& twist_axis) {
  const Twist twist = TwistAbout(rotation, twist_axis);
  SwingTwist result;
  result.twist = twist.RotationAbout(twist_axis);
  result.twist_angle = TwistAngle(twist);
  result.swing = rotation * glm::conjugate(result.twist);
  return result;
}

double TwistAngleAbout(const Quat& rotation, const Vec3& twist_axis) {
  return TwistAngle(TwistAbout(rotation, twist_axis));
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
      return AtRangeEnd(TwistAngle(TwistAbout(relative, limit.hinge.axis)),
                        limit.hinge.range);
  }
  return false;
}

namespace {

HalfTangents HalfTangentsOf(const AngleRange& range) {
  HalfTangents tangents;
  if (range.max - range.min >= 2.0 * kPi) {  // no ends: every twist
    tangents.min = -kInfinity;
    tangents.max = kInfinity;
    return tangents;
  }
  tangents.min = Sin(0.5 * range.min) / Cos(0.5 * range.min);
  tangents.max = Sin(0.5 * range.max) / Cos(0.5 * range.max);
  return tangents;
}

}  // namespace

void DeriveLimitValues(JointLimit* limit) {
  BallSocketLimit& ball = limit->ball_socket;
  ball.cos_swing_max = Cos(ball.swing_max);
  ball.sin_swing_max = Sin(ball.swing_max);
  ball.twist_tangents = HalfTangentsOf(ball.twist);
  ball.twist_half_trig = {Cos(0.5 * ball.twist.min), Sin(0.5 * ball.twist.min),
                          Cos(0.5 * ball.twist.max), Sin(0.5 * ball.twist.max)};
  limit->hinge.range_tangents = HalfTangentsOf(limit->hinge.range);
}

}  // namespace ik
