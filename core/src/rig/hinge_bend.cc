#include "rig/hinge_bend.h"

#include <cmath>

#include "base/trig_lanes.h"
#include "ik/base/joint_limits.h"
#include "ik/base/trig.h"

namespace ik::internal {
namespace {

// The hinge's effect on the limb's length. The lower bone at hinge angle a
// is R(a) l about k (the hinge's axis and the lower bone in the middle
// joint's rest frame, as the root sees them), so with u the upper bone
// u . R(a) l = A cos a + B sin a + C: largest, the limb straightest, at
// atan2(B, A); and a bend's lower bone `lower` (= R(a) l) lies
// atan2(-u . (k x lower), u . lower - C) from the straightest.
struct HingeGeometry {
  HingeGeometry(const JointDefinition& mid, const Vec3& upper_local,
                const Vec3& tip_translation)
      : u(upper_local),
        k(mid.rest.rotation * mid.limit.hinge.axis),
        l(mid.rest.rotation * tip_translation),
        a(glm::dot(u, l) - glm::dot(k, u) * glm::dot(k, l)),
        b(glm::dot(u, glm::cross(k, l))),
        c(glm::dot(k, u) * glm::dot(k, l)) {}
  Vec3 u, k, l;
  double a, b, c;
};

// The mirrored bend of hinge angle `angle` about `straightest`, when
// `range` holds it and it differs from `angle`.
std::optional<double> MirroredAngle(const AngleRange& range, double straightest,
                                    double angle) {
  const double mirrored = std::remainder(2.0 * straightest - angle, 2.0 * kPi);
  if (!(std::abs(mirrored - angle) > 1e-9) ||
      ClampAngleToRange(mirrored, range) != mirrored) {
    return std::nullopt;
  }
  return mirrored;
}

}  // namespace

std::optional<Quat> MirroredBend(const JointDefinition& mid,
                                 const Vec3& upper_local,
                                 const Vec3& tip_translation,
                                 const Quat& mid_turned) {
  const HingeLimit& hinge = mid.limit.hinge;
  const double angle = TwistAngleAbout(
      glm::conjugate(mid.rest.rotation) * mid_turned, hinge.axis);
  const HingeGeometry geometry(mid, upper_local, tip_translation);
  const std::optional<double> mirrored =
      MirroredAngle(hinge.range, Atan2(geometry.b, geometry.a), angle);
  if (!mirrored.has_value()) return std::nullopt;
  return NormalizeNearUnit(mid_turned *
                           AngleAxis(*mirrored - angle, hinge.axis));
}

std::optional<double> HingeFlipAngle(const JointDefinition& mid,
                                     const Vec3& upper_local,
                                     const Vec3& tip_translation,
                                     const Quat& incoming_mid,
                                     const Quat& answer_mid) {
  const AngleRange& range = mid.limit.hinge.range;
  const HingeGeometry g(mid, upper_local, tip_translation);
  if (!(g.a * g.a + g.b * g.b >
        1e-24 * glm::dot(g.u, g.u) * glm::dot(g.l, g.l))) {
    return std::nullopt;  // the hinge does not change the limb's length
  }
  const double straightest = Atan2(g.b, g.a);
  if (!(range.min < straightest && straightest < range.max)) {
    return std::nullopt;
  }
  // Both bends from the straightest in one pair of lanes.
  const Vec3 lower_in = incoming_mid * tip_translation;
  const Vec3 lower_out = answer_mid * tip_translation;
  const Lanes2 from = Atan2Lanes(
      Lanes2{-glm::dot(g.u, glm::cross(g.k, lower_in)),
             -glm::dot(g.u, glm::cross(g.k, lower_out))},
      Lanes2{glm::dot(g.u, lower_in) - g.c, glm::dot(g.u, lower_out) - g.c});
  const double incoming = std::remainder(straightest + from[0], 2.0 * kPi);
  const double answer = std::remainder(straightest + from[1], 2.0 * kPi);
  std::optional<double> angle;
  const auto nearer = [&](double x) {
    x = std::abs(std::remainder(x, kPi));
    if (!angle.has_value() || x < *angle) angle = x;
  };
  // The answer could bend the other way.
  if (MirroredAngle(range, straightest, answer).has_value()) nearer(from[0]);
  // The side with less range: where its solutions end, the answer goes over.
  const bool lower_minor = straightest - range.min < range.max - straightest;
  const bool incoming_lower = incoming < straightest;
  if (incoming_lower == lower_minor) {
    const double on_side = (answer < straightest) == incoming_lower
                               ? answer
                               : 2.0 * straightest - answer;
    nearer(on_side - (lower_minor ? range.min : range.max));
  }
  return angle;
}

}  // namespace ik::internal
