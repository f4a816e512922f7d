#include "rig/limb_circle.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <utility>

#include "ik/base/trig.h"

namespace ik::internal {
namespace {

// Bisections that move a turn from an arc's computed end into the arc until
// the clamp leaves it alone (the ends carry the rounding of acos and atan2).
constexpr int kInwardSteps = 48;
// Rounding allowances: a cosine short of the cone's edge by this still
// touches it; arcs apart by this many radians still meet.
constexpr double kTouchSlack = 1e-12;
constexpr double kMeetSlack = 1e-9;

// a cos(theta) + b sin(theta): the form every test along the circle takes
// in the half turn theta = angle / 2.
struct Wave {
  double a = 0.0;
  double b = 0.0;
  double At(double cos_theta, double sin_theta) const {
    return a * cos_theta + b * sin_theta;
  }
};

// An arc of turns, radians, low <= high.
struct Arc {
  double low = 0.0;
  double high = 0.0;
};

// Up to four arcs within [-pi, pi].
struct Arcs {
  std::array<Arc, 4> arc;
  int count = 0;
  void Add(double low, double high) {
    if (low <= high && count < static_cast<int>(arc.size())) {
      arc[count++] = {low, high};
    }
  }
};

// The root's rest and solved rotations in model space (what both kinds of
// arc start from).
struct ModelRotations {
  explicit ModelRotations(const LimbCircle& circle)
      : rest(circle.parent_rotation * circle.rest_rotation),
        solved(circle.parent_rotation * circle.root_solved) {}
  Quat rest;
  Quat solved;
};

// The swing cone's arc: the bone's model direction D turns about the axis,
// so its cosine to the cone's model axis C is A + B1 cos + B2 sin of the
// turn; at least cos(swing_max) on centre +- half_width.
Arcs SwingArcs(const LimbCircle& circle, const ModelRotations& model,
               const BallSocketLimit& limit) {
  const Vec3& axis = circle.axis_model;
  const Vec3 bone = model.solved * limit.twist_axis;
  const Vec3 cone_axis = model.rest * limit.axis;
  const double along = glm::dot(bone, axis);
  const Vec3 across = bone - along * axis;
  const double constant = along * glm::dot(axis, cone_axis);
  const double b1 = glm::dot(across, cone_axis);
  const double b2 = glm::dot(glm::cross(axis, across), cone_axis);
  const double amplitude = std::sqrt(b1 * b1 + b2 * b2);
  const double cos_max = std::isnan(limit.cos_swing_max) ? Cos(limit.swing_max)
                                                         : limit.cos_swing_max;
  const double needed = cos_max - constant;
  Arcs arcs;
  if (needed <= -amplitude) {
    arcs.Add(-kPi, kPi);
    return arcs;
  }
  // Touching the cone's edge within rounding: the single point of contact
  // (the arc of a pose held on its limit).
  if (!(needed < amplitude + kTouchSlack)) return arcs;
  const double centre = Atan2(b2, b1);
  const double half_width = needed < amplitude ? Acos(needed / amplitude) : 0.0;
  const double low = centre - half_width;
  const double high = centre + half_width;
  // Wrapped into [-pi, pi]: one or two arcs.
  if (low < -kPi) {
    arcs.Add(-kPi, high);
    arcs.Add(low + 2.0 * kPi, kPi);
  } else if (high > kPi) {
    arcs.Add(low, kPi);
    arcs.Add(-kPi, high - 2.0 * kPi);
  } else {
    arcs.Add(low, high);
  }
  return arcs;
}

// TwistArcs' waves in the half turn theta for the twist range [2m, 2M]: w,
// the twist's scalar part; above = s cos m - w sin m; below = w sin M -
// s cos M (s the twist's vector part along the bone).
struct TwistWaves {
  Wave w, above, below;
};
TwistWaves WavesOfTwist(const LimbCircle& circle, const ModelRotations& model,
                        const BallSocketLimit& limit) {
  const Quat& rest_model = model.rest;
  const Quat& solved_model = model.solved;
  const Quat q0 = glm::conjugate(rest_model) * solved_model;
  const Vec3& a = circle.axis_model;
  const Quat q1 =
      glm::conjugate(rest_model) * Quat(0.0, a.x, a.y, a.z) * solved_model;
  const Vec3& t = limit.twist_axis;
  const Wave w{q0.w, q1.w};
  const Wave s{q0.x * t.x + q0.y * t.y + q0.z * t.z,
               q1.x * t.x + q1.y * t.y + q1.z * t.z};
  // Half the range's ends: their cosines and sines as Create derived them
  // (the same functions), or computed here for a limit it did not derive.
  const HalfAngleTrig& trig = limit.twist_half_trig;
  const bool derived = !std::isnan(trig.cos_min);
  const double m = 0.5 * limit.twist.min;
  const double big_m = 0.5 * limit.twist.max;
  const double cos_m = derived ? trig.cos_min : Cos(m);
  const double sin_m = derived ? trig.sin_min : Sin(m);
  const double cos_big_m = derived ? trig.cos_max : Cos(big_m);
  const double sin_big_m = derived ? trig.sin_max : Sin(big_m);
  const Wave above{s.a * cos_m - w.a * sin_m, s.b * cos_m - w.b * sin_m};
  const Wave below{w.a * sin_big_m - s.a * cos_big_m,
                   w.b * sin_big_m - s.b * cos_big_m};
  return {w, above, below};
}

// The twist range's arcs. In the half turn theta, the root's rotation
// relative to its rest is cos(theta) Q0 + sin(theta) Q1, so the twist's
// (w, s) (w the scalar part, s the vector part along the bone) are waves,
// and with w made >= 0 its half angle atan(s / w) lies in [min, max] / 2
// when sign(w) (s cos m - w sin m) >= 0 and sign(w) (w sin M - s cos M) >=
// 0. Each wave changes sign once per half turn: the arcs lie between those
// points.
Arcs TwistArcs(const LimbCircle& circle, const ModelRotations& model,
               const BallSocketLimit& limit) {
  Arcs arcs;
  if (!limit.has_twist) {
    arcs.Add(-kPi, kPi);
    return arcs;
  }
  const TwistWaves waves = WavesOfTwist(circle, model, limit);
  const Wave w = waves.w;
  const Wave above = waves.above;
  const Wave below = waves.below;
  // The sign changes in (-pi/2, pi/2), sorted, between the ends.
  std::array<double, 5> points{-0.5 * kPi};
  int count = 1;
  for (const Wave& wave : {w, above, below}) {
    if (wave.a == 0.0 && wave.b == 0.0) continue;
    const double zero = RemainderOfHalfTurn(Atan2(-wave.a, wave.b));
    if (zero > -0.5 * kPi && zero < 0.5 * kPi) points[count++] = zero;
  }
  for (int i = 2; i < count; ++i) {  // insertion sort of at most 3
    for (int j = i; j > 1 && points[j] < points[j - 1]; --j) {
      std::swap(points[j], points[j - 1]);
    }
  }
  points[count++] = 0.5 * kPi;
  const auto allowed = [&](double theta) {
    const double c = Cos(theta);
    const double si = Sin(theta);
    const double sign = w.At(c, si) < 0.0 ? -1.0 : 1.0;
    return sign * above.At(c, si) >= 0.0 && sign * below.At(c, si) >= 0.0;
  };
  double open = 0.0;
  bool inside = false;
  for (int i = 0; i + 1 < count; ++i) {
    const bool segment = allowed(0.5 * (points[i] + points[i + 1]));
    if (segment && !inside) open = points[i];
    if (!segment && inside) arcs.Add(2.0 * open, 2.0 * points[i]);
    inside = segment;
  }
  if (inside) arcs.Add(2.0 * open, 2.0 * points[count - 1]);
  return arcs;
}

}  // namespace

Quat TurnedRoot(const LimbCircle& circle, double angle) {
  return glm::normalize(glm::conjugate(circle.parent_rotation) *
                        AngleAxis(angle, circle.axis_model) *
                        circle.parent_rotation * circle.root_solved);
}

std::optional<AllowedTurn> NearestAllowedTurn(
    const LimbCircle& circle, const BallSocketLimit& limit,
    const JointConstraint& constraint) {
  const ModelRotations model(circle);
  const Arcs swing = SwingArcs(circle, model, limit);
  const Arcs twist = TwistArcs(circle, model, limit);
  // Of the arcs both allow, the turn nearest 0, and the middle of its arc.
  bool found = false;
  double best = 0.0;
  double middle = 0.0;
  for (int i = 0; i < swing.count; ++i) {
    for (int j = 0; j < twist.count; ++j) {
      double low = std::max(swing.arc[i].low, twist.arc[j].low);
      double high = std::min(swing.arc[i].high, twist.arc[j].high);
      // Arcs that meet at a point within rounding (a pose on both the cone's
      // edge and an end of its twist) share that point.
      if (low > high && low - high <= kMeetSlack)
        low = high = 0.5 * (low + high);
      if (!(low <= high)) continue;
      const double nearest = std::clamp(0.0, low, high);
      if (!found || std::abs(nearest) < std::abs(best)) {
        found = true;
        best = nearest;
        middle = 0.5 * (low + high);
      }
    }
  }
  if (!found) return std::nullopt;
  // Whether the clamp leaves the root turned by `turn.angle` alone; sets
  // turn.root to that rotation.
  const auto allowed = [&](AllowedTurn& turn) {
    turn.root = TurnedRoot(circle, turn.angle);
    return !ApplyJointConstraint(constraint, turn.root).clamped;
  };
  AllowedTurn nearest{best};
  if (allowed(nearest)) return nearest;
  // Into the arc until the clamp leaves the root alone.
  double outside = best;
  AllowedTurn inside{middle};
  if (!allowed(inside)) return std::nullopt;
  for (int i = 0; i < kInwardSteps; ++i) {
    AllowedTurn half{0.5 * (outside + inside.angle)};
    if (allowed(half)) {
      inside = half;
    } else {
      outside = half.angle;
    }
  }
  return inside;
}

}  // namespace ik::internal
