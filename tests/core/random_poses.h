// Seeded random poses for the chain solvers' property tests and benchmarks:
// rotations drawn uniformly within a joint's limit, and the reachable
// targets that forward kinematics of such poses gives.
//
// A ball-and-socket joint draws its bone's direction uniformly (by solid
// angle) within its cone and its twist uniformly within its range (any
// angle without one); a hinge draws its angle uniformly within its range; a
// joint without a limit draws a uniformly random axis and angle.
#ifndef IK_TESTS_CORE_RANDOM_POSES_H_
#define IK_TESTS_CORE_RANDOM_POSES_H_

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <random>
#include <vector>

#include "absl/types/span.h"
#include "draws.h"
#include "ik/base/math.h"
#include "ik/rig/forward_kinematics.h"
#include "ik/rig/rig.h"

namespace ik::testing {

// A ball-and-socket's rotation relative to its rest: the bone turned to the
// direction `cosine` and `sine` away from the cone's axis at `azimuth` about
// it, then twisted by `twist` about itself.
inline Quat BallSocketRotation(const BallSocketLimit& ball, double cosine,
                               double sine, double azimuth, double twist) {
  const Vec3 across = AnyPerpendicular(ball.axis);
  const Vec3 side = glm::cross(ball.axis, across);
  const Vec3 direction =
      cosine * ball.axis +
      sine * (std::cos(azimuth) * across + std::sin(azimuth) * side);
  return FromTo(ball.twist_axis, direction) * AngleAxis(twist, ball.twist_axis);
}

// A local rotation for `joint` within its limit.
inline Quat RandomRotationWithinLimit(const JointDefinition& joint,
                                      std::mt19937_64& engine) {
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  const JointLimit& limit = joint.limit;
  Quat relative = IdentityQuat();
  switch (limit.kind) {
    case JointLimit::Kind::kHinge: {
      const AngleRange& range = limit.hinge.range;
      relative = AngleAxis(range.min + unit(engine) * (range.max - range.min),
                           limit.hinge.axis);
      break;
    }
    case JointLimit::Kind::kBallSocket: {
      const BallSocketLimit& ball = limit.ball_socket;
      const double cosine =
          1.0 - unit(engine) * (1.0 - std::cos(ball.swing_max));
      const double sine = std::sqrt(std::max(0.0, 1.0 - cosine * cosine));
      const double azimuth = 2.0 * kPi * unit(engine);
      const double twist =
          ball.has_twist ? ball.twist.min +
                               unit(engine) * (ball.twist.max - ball.twist.min)
                         : kPi * (2.0 * unit(engine) - 1.0);
      relative = BallSocketRotation(ball, cosine, sine, azimuth, twist);
      break;
    }
    case JointLimit::Kind::kNone: {
      const Vec3 axis = DrawVec3(unit, engine) - 0.5;
      relative = AngleAxis(kPi * (2.0 * unit(engine) - 1.0),
                           glm::normalize(axis + Vec3(1e-9, 0.0, 0.0)));
      break;
    }
  }
  return glm::normalize(joint.rest.rotation * relative);
}

// A local rotation for `joint` outside its limit, as an animated or blended
// pose may hold one: a hinge turned up to 1 rad beyond either end of its
// range (a hyperextended elbow or knee, or one folded too far) and off its
// axis by up to 0.3 rad; a ball-and-socket's bone up to 1 rad beyond its
// cone (or, half the time, within it) twisted up to 1 rad beyond its range.
// A joint without a limit draws any rotation.
inline Quat RandomRotationBeyondLimit(const JointDefinition& joint,
                                      std::mt19937_64& engine) {
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  const JointLimit& limit = joint.limit;
  const auto beyond = [&](const AngleRange& range) {
    const double past = 1e-3 + unit(engine);
    const double angle =
        unit(engine) < 0.5 ? range.min - past : range.max + past;
    return std::remainder(angle, 2.0 * kPi);
  };
  const auto random_axis = [&] {
    return glm::normalize(DrawVec3(unit, engine) - 0.5 + Vec3(1e-9, 0.0, 0.0));
  };
  Quat relative = IdentityQuat();
  switch (limit.kind) {
    case JointLimit::Kind::kHinge:
      relative = AngleAxis(0.3 * unit(engine), random_axis()) *
                 AngleAxis(beyond(limit.hinge.range), limit.hinge.axis);
      break;
    case JointLimit::Kind::kBallSocket: {
      const BallSocketLimit& ball = limit.ball_socket;
      const double swing =
          unit(engine) < 0.5
              ? std::min(kPi, ball.swing_max + 1e-3 + unit(engine))
              : ball.swing_max * unit(engine);
      const double azimuth = 2.0 * kPi * unit(engine);
      const double twist = ball.has_twist ? beyond(ball.twist)
                                          : kPi * (2.0 * unit(engine) - 1.0);
      relative = BallSocketRotation(ball, std::cos(swing), std::sin(swing),
                                    azimuth, twist);
      break;
    }
    case JointLimit::Kind::kNone:
      relative = AngleAxis(kPi * (2.0 * unit(engine) - 1.0), random_axis());
      break;
  }
  return glm::normalize(joint.rest.rotation * relative);
}

// A local rotation for `joint` on the boundary of its limit, as a held or
// clamped animation leaves it: a ball-and-socket's bone on the edge of its
// cone (or, a third of the time, inside it) with its twist at an end of its
// range (or, a third of the time, inside it; never both inside); a hinge at
// an end of its range. A joint without a limit draws any rotation.
inline Quat RandomRotationOnLimitBoundary(const JointDefinition& joint,
                                          std::mt19937_64& engine) {
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  const JointLimit& limit = joint.limit;
  if (limit.kind == JointLimit::Kind::kNone) {
    return RandomRotationWithinLimit(joint, engine);
  }
  const auto end = [&](const AngleRange& range) {
    return unit(engine) < 0.5 ? range.min : range.max;
  };
  Quat relative = IdentityQuat();
  if (limit.kind == JointLimit::Kind::kHinge) {
    relative = AngleAxis(end(limit.hinge.range), limit.hinge.axis);
  } else {
    const BallSocketLimit& ball = limit.ball_socket;
    const int inside = static_cast<int>(3.0 * unit(engine));  // 0, 1 or 2
    const double swing =
        inside == 1 ? ball.swing_max * unit(engine) : ball.swing_max;
    const double azimuth = 2.0 * kPi * unit(engine);
    double twist = kPi * (2.0 * unit(engine) - 1.0);
    if (ball.has_twist) {
      twist = inside == 2 ? ball.twist.min +
                                unit(engine) * (ball.twist.max - ball.twist.min)
                          : end(ball.twist);
    }
    relative = BallSocketRotation(ball, std::cos(swing), std::sin(swing),
                                  azimuth, twist);
  }
  return glm::normalize(joint.rest.rotation * relative);
}

// `rest` with every joint of `chain` but the tip turned within its limit
// (limits taken from `limits_rig`, which may differ from the rig solved).
inline std::vector<Transform> RandomChainPose(const Rig& limits_rig,
                                              const Chain& chain,
                                              absl::Span<const Transform> rest,
                                              std::mt19937_64& engine) {
  std::vector<Transform> pose(rest.begin(), rest.end());
  for (size_t k = 0; k + 1 < chain.joints.size(); ++k) {
    const int joint = chain.joints[k];
    pose[joint].rotation =
        RandomRotationWithinLimit(limits_rig.joint(joint), engine);
  }
  return pose;
}

// Model-space transforms of a pose (world space under `root`).
inline std::vector<Transform> ModelTransforms(
    const Rig& rig, absl::Span<const Transform> pose,
    const Transform& root = Transform()) {
  std::vector<Transform> models(pose.size());
  LocalToModelJob fk;
  fk.parents = rig.parents();
  fk.locals = pose;
  fk.root = root;
  fk.models = absl::MakeSpan(models);
  if (!fk.Run().ok()) std::abort();  // rigs from Rig::Create never fail
  return models;
}

// Where the chain's tip is in a random pose within the limits: a target the
// chain reaches within its limits.
inline Vec3 ReachableTarget(const Rig& rig, const Chain& chain,
                            std::mt19937_64& engine) {
  const std::vector<Transform> pose =
      RandomChainPose(rig, chain, rig.rest_pose(), engine);
  return ModelTransforms(rig, pose)[chain.joints.back()].translation;
}

}  // namespace ik::testing

#endif  // IK_TESTS_CORE_RANDOM_POSES_H_
