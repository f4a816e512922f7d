// Checks written independently of the core for the solver property tests:
// forward kinematics by 4x4 matrices and a joint-limit check that does not
// use ik/base/joint_limits.h, plus the tests' shared constants.
#ifndef IK_TESTS_CORE_INDEPENDENT_CHECKS_H_
#define IK_TESTS_CORE_INDEPENDENT_CHECKS_H_

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <glm/gtc/matrix_transform.hpp>
#include <vector>

#include "ik/rig/rig.h"

namespace ik::testing {

inline constexpr int kCases = 10000;
inline constexpr int kOutOfReachCases = 2000;
inline constexpr double kHitDistance = 1e-3;  // metres
inline constexpr double kRequiredHitRate = 0.999;
inline constexpr double kLimitSlack = 1e-6;   // radians
inline constexpr double kLengthSlack = 1e-5;  // relative
inline constexpr int kRepeatEvery = 50;       // determinism check
inline constexpr uint64_t kSeed = 0xc4a1'05eedULL;

inline glm::dmat4 Matrix(const Transform& t) {
  return glm::translate(glm::dmat4(1.0), t.translation) *
         glm::mat4_cast(t.rotation) * glm::scale(glm::dmat4(1.0), t.scale);
}

// World positions of every joint, by matrices.
inline std::vector<Vec3> WorldPositions(const Rig& rig,
                                        const std::vector<Transform>& locals,
                                        const Transform& root) {
  std::vector<glm::dmat4> world(locals.size());
  std::vector<Vec3> positions(locals.size());
  for (size_t i = 0; i < locals.size(); ++i) {
    const int parent = rig.parents()[i];
    world[i] = (parent == kNoParent ? Matrix(root) : world[parent]) *
               Matrix(locals[i]);
    positions[i] = Vec3(world[i][3]);
  }
  return positions;
}

// Angle of unit quaternion `q` about unit `axis` once the part of q that
// tilts `axis` is taken off: build that tilt as an axis-angle rotation and
// read the rest's angle, in (-pi, pi].
inline double AngleAbout(const Quat& q, const Vec3& axis) {
  const Vec3 turned = q * axis;
  const Vec3 cross = glm::cross(axis, turned);
  const double sine = glm::length(cross);
  Quat tilt = IdentityQuat();
  if (sine > 1e-12) {
    tilt =
        glm::angleAxis(std::atan2(sine, glm::dot(axis, turned)), cross / sine);
  }
  const Quat rest = glm::inverse(tilt) * q;  // about `axis` only
  const double angle =
      2.0 * std::atan2(glm::dot(Vec3(rest.x, rest.y, rest.z), axis), rest.w);
  return std::remainder(angle, 2.0 * kPi);
}

// How far `angle` lies outside [min, max], around the circle.
inline double OutsideRange(double angle, const AngleRange& range) {
  if (range.max - range.min >= 2.0 * kPi) return 0.0;
  const double from_min = std::remainder(angle - range.min, 2.0 * kPi);
  const double from_max = std::remainder(angle - range.max, 2.0 * kPi);
  if (from_min >= 0.0 && from_min <= range.max - range.min) return 0.0;
  return std::min(std::abs(from_min), std::abs(from_max));
}

// A ball-and-socket joint's bone: the rest direction to its first child
// (the limit's axis without one).
inline Vec3 BoneOf(const Rig& rig, int index) {
  const JointDefinition& joint = rig.joint(index);
  for (int child = index + 1; child < rig.joint_count(); ++child) {
    if (rig.parents()[child] == index) {
      const Vec3 offset = joint.rest.scale * rig.joint(child).rest.translation;
      if (glm::length(offset) >= kMinBoneLength) return glm::normalize(offset);
      break;
    }
  }
  return glm::normalize(joint.limit.ball_socket.axis);
}

// The angle, radians, of the rotation between unit quaternions a and b
// (from the relative rotation's vector and scalar parts: accurate for small
// angles too, where an arccosine of the dot product is not).
inline double RotationAngle(const Quat& a, const Quat& b) {
  const Quat relative = glm::conjugate(a) * b;
  const double sine = glm::length(Vec3(relative.x, relative.y, relative.z));
  return 2.0 * std::atan2(sine, std::abs(relative.w));
}

// Radians by which joint `index`'s local rotation breaks its limit (0 when
// within), from the rig's definitions: the bone is the rest direction to
// the first child (the limit's axis without one).
inline double LimitViolation(const Rig& rig, int index, const Quat& local) {
  const JointDefinition& joint = rig.joint(index);
  const Quat relative = glm::inverse(joint.rest.rotation) * local;
  if (joint.limit.kind == JointLimit::Kind::kHinge) {
    const HingeLimit& hinge = joint.limit.hinge;
    const Vec3 axis = glm::normalize(hinge.axis);
    const double off_axis =
        std::acos(std::clamp(glm::dot(relative * axis, axis), -1.0, 1.0));
    return std::max(off_axis,
                    OutsideRange(AngleAbout(relative, axis), hinge.range));
  }
  if (joint.limit.kind != JointLimit::Kind::kBallSocket) return 0.0;
  const BallSocketLimit& ball = joint.limit.ball_socket;
  const Vec3 bone = BoneOf(rig, index);
  const double cone = std::acos(std::clamp(
      glm::dot(relative * bone, glm::normalize(ball.axis)), -1.0, 1.0));
  double violation = std::max(0.0, cone - ball.swing_max);
  if (ball.has_twist && glm::length(relative * bone + bone) > 1e-6) {
    violation = std::max(violation,
                         OutsideRange(AngleAbout(relative, bone), ball.twist));
  }
  return violation;
}

// How far inside [min, max] `angle` lies: its distance to the nearer end,
// around the circle (a range of a full turn or more has no end).
inline double InsideRange(double angle, const AngleRange& range) {
  if (range.max - range.min >= 2.0 * kPi) return kInfinity;
  return std::min(std::abs(std::remainder(angle - range.min, 2.0 * kPi)),
                  std::abs(std::remainder(angle - range.max, 2.0 * kPi)));
}

// Radians from joint `index`'s local rotation (within its limit) to the
// limit's boundary: the smaller of its distances to the cone's edge and to
// the twist or hinge range's ends; infinity for a joint without a limit.
inline double LimitMargin(const Rig& rig, int index, const Quat& local) {
  const JointDefinition& joint = rig.joint(index);
  const Quat relative = glm::inverse(joint.rest.rotation) * local;
  if (joint.limit.kind == JointLimit::Kind::kHinge) {
    const HingeLimit& hinge = joint.limit.hinge;
    const Vec3 axis = glm::normalize(hinge.axis);
    return InsideRange(AngleAbout(relative, axis), hinge.range);
  }
  if (joint.limit.kind != JointLimit::Kind::kBallSocket) return kInfinity;
  const BallSocketLimit& ball = joint.limit.ball_socket;
  const Vec3 bone = BoneOf(rig, index);
  double margin = kInfinity;
  if (ball.swing_max < kPi) {
    margin =
        ball.swing_max -
        std::acos(std::clamp(
            glm::dot(relative * bone, glm::normalize(ball.axis)), -1.0, 1.0));
  }
  if (ball.has_twist && glm::length(relative * bone + bone) > 1e-6) {
    margin =
        std::min(margin, InsideRange(AngleAbout(relative, bone), ball.twist));
  }
  return margin;
}

struct Percentiles {
  double mean = 0.0;
  int p99 = 0;
  int max = 0;
};

inline Percentiles Summarize(std::vector<int> values) {
  Percentiles out;
  std::sort(values.begin(), values.end());
  for (const int value : values) out.mean += value;
  out.mean /= values.size();
  out.p99 = values[(values.size() * 99) / 100];
  out.max = values.back();
  return out;
}

}  // namespace ik::testing

#endif  // IK_TESTS_CORE_INDEPENDENT_CHECKS_H_
