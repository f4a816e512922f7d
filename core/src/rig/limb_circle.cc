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

// A gap the swing cone opens in the circle is young while its deepest point
// lies below the cone's edge by less than this fraction of the swing wave's
// amplitude: it opens as the square root of that depth, so its edges move
// fast, and an answer stopped at one may have stood far away a step before.
constexpr double kYoungGapDepth = 0.1;

// Within this of the half turn from 0, radians, the continuity rule's way
// towards 0 is taken only in part (TowardZero): 10 degrees, the default flip
// warning, within which the answer reports it.
constexpr double kOppositeRamp = 10.0 * kPi / 180.0;

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
// The swing test along the circle: B1 cos + B2 sin of the turn must be at
// least `needed`.
struct SwingWave {
  double b1 = 0.0;
  double b2 = 0.0;
  double needed = 0.0;
};
SwingWave WaveOfSwing(const LimbCircle& circle, const ModelRotations& model,
                      const BallSocketLimit& limit) {
  const Vec3& axis = circle.axis_model;
  const Vec3 bone = model.solved * limit.twist_axis;
  const Vec3 cone_axis = model.rest * limit.axis;
  const double along = glm::dot(bone, axis);
  const Vec3 across = bone - along * axis;
  const double constant = along * glm::dot(axis, cone_axis);
  const double cos_max = std::isnan(limit.cos_swing_max) ? Cos(limit.swing_max)
                                                         : limit.cos_swing_max;
  return {glm::dot(across, cone_axis),
          glm::dot(glm::cross(axis, across), cone_axis), cos_max - constant};
}

Arcs SwingArcs(const LimbCircle& circle, const ModelRotations& model,
               const BallSocketLimit& limit) {
  const SwingWave wave = WaveOfSwing(circle, model, limit);
  const double b1 = wave.b1;
  const double b2 = wave.b2;
  const double amplitude = std::sqrt(b1 * b1 + b2 * b2);
  const double needed = wave.needed;
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

// Whether `twist`'s test holds at the half turn with cosine and sine
// (c, s) (TwistArcs' `allowed`).
bool TwistAllows(const TwistWaves& twist, double c, double s) {
  const double sign = twist.w.At(c, s) < 0.0 ? -1.0 : 1.0;
  return sign * twist.above.At(c, s) >= 0.0 &&
         sign * twist.below.At(c, s) >= 0.0;
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
    return TwistAllows(waves, Cos(theta), Sin(theta));
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

// Whether a wave keeps its sign (or touches 0 only at an end) from the half
// turn 0 to the one with cosine and sine (c, s), less than a quarter turn
// away: one sign change at most per half turn, so its ends tell.
bool KeepsSign(const Wave& wave, double c, double s) {
  const double at_zero = wave.a;
  const double at_end = wave.At(c, s);
  return !(at_zero > 0.0 && at_end < 0.0) && !(at_zero < 0.0 && at_end > 0.0);
}

// The arcs both the swing cone and the twist range allow, up to 16, an
// arc that ends at pi and one that starts at -pi joined into one (its high
// end then beyond pi).
struct AllowedArcs {
  std::array<Arc, 16> arc;
  int count = 0;
};

AllowedArcs Intersect(const Arcs& swing, const Arcs& twist) {
  AllowedArcs allowed;
  for (int i = 0; i < swing.count; ++i) {
    for (int j = 0; j < twist.count; ++j) {
      double low = std::max(swing.arc[i].low, twist.arc[j].low);
      double high = std::min(swing.arc[i].high, twist.arc[j].high);
      // Arcs that meet at a point within rounding (a pose on both the cone's
      // edge and an end of its twist) share that point.
      if (low > high && low - high <= kMeetSlack)
        low = high = 0.5 * (low + high);
      if (low <= high) allowed.arc[allowed.count++] = {low, high};
    }
  }
  return allowed;
}

// Joins the arc ending at pi to the one starting at -pi (the same arc of
// the circle), unless one arc is the whole circle.
void JoinAcrossPi(AllowedArcs& allowed) {
  int upper = -1;
  int lower = -1;
  for (int i = 0; i < allowed.count; ++i) {
    if (allowed.arc[i].high == kPi && allowed.arc[i].low > -kPi) upper = i;
    if (allowed.arc[i].low == -kPi && allowed.arc[i].high < kPi) lower = i;
  }
  if (upper < 0 || lower < 0) return;
  allowed.arc[upper].high = allowed.arc[lower].high + 2.0 * kPi;
  allowed.arc[lower] = allowed.arc[--allowed.count];
}

// |a - b| around the circle, radians in [0, pi].
double CircularGap(double a, double b) {
  return std::abs(std::remainder(a - b, 2.0 * kPi));
}

// The distance, radians along the circle, from `angle` to `arc` (0 inside).
double DistanceToArc(double angle, const Arc& arc) {
  for (const double shifted : {angle, angle + 2.0 * kPi}) {
    if (arc.low <= shifted && shifted <= arc.high) return 0.0;
  }
  return std::min(CircularGap(angle, arc.low), CircularGap(angle, arc.high));
}

// The end of `arc` nearest `angle` along the circle.
double EndNearest(const Arc& arc, double angle) {
  return CircularGap(angle, arc.low) <= CircularGap(angle, arc.high) ? arc.low
                                                                     : arc.high;
}

// Where the continuity rule leaves the limb in `arc`: from `incoming` (or
// the end nearest it, outside the arc) the shorter way round towards 0,
// stopping at 0 or at the arc's end on that way (0 reached only the longer
// way round is not taken: the answer would jump as the arc's far end
// passes it). In the arc's own range (0 may be 2 pi there). `ambiguous`:
// the way is undecided within kBranchSwitchAngle (0 nearly opposite where
// it starts) and it stops at an end.
double TowardZero(const Arc& arc, double incoming, bool& ambiguous,
                  double& opposite) {
  double start = incoming;
  // The way round is decided where the limb starts, the incoming swivel's
  // own unless the limb starts at the arc's end across the half turn from
  // it: an arc's end may move fast, the incoming swivel moves with the
  // request.
  double decides = incoming;
  if (DistanceToArc(incoming, arc) > 0.0) {
    start = EndNearest(arc, incoming);
    if (!(std::abs(std::remainder(start, 2.0 * kPi) - incoming) > kPi)) {
      decides = start;
    }
  } else if (!(arc.low <= incoming && incoming <= arc.high)) {
    start = incoming + 2.0 * kPi;  // the arc runs on past pi
  }
  const double decided = std::remainder(-decides, 2.0 * kPi);
  double way = std::remainder(-start, 2.0 * kPi);
  if ((decided >= 0.0) != (way >= 0.0)) {
    way += way >= 0.0 ? -2.0 * kPi : 2.0 * kPi;  // the longer way round
  }
  const double zero = std::round((start + way) / (2.0 * kPi)) * (2.0 * kPi);
  const bool reached = way >= 0.0 ? zero <= arc.high : zero >= arc.low;
  // The other way round: 0 a full turn further on, unless the arc's end
  // comes first.
  const double other_zero = way >= 0.0 ? zero - 2.0 * kPi : zero + 2.0 * kPi;
  const bool other_reached =
      way >= 0.0 ? other_zero >= arc.low : other_zero <= arc.high;
  const double stop = reached ? zero : (way >= 0.0 ? arc.high : arc.low);
  // Where the limb starts nearly opposite 0 the way round turns over: there
  // the limb goes only part of the way, none of it at the very opposite, so
  // the answer is continuous through it (AllowedTurn::edge_angle reports
  // it). 0 reached either way round needs no choice.
  opposite = kPi - std::abs(decided);
  ambiguous = false;
  if (opposite < kOppositeRamp && !(reached && other_reached)) {
    return start + (stop - start) * (opposite / kOppositeRamp);
  }
  opposite = kPi;
  return stop;
}

// The arc and turn NearestAllowedTurn takes, before the clamp checks it.
struct Choice {
  int arc = 0;
  double turn = 0.0;    // the turn taken (0, never a full turn, for 0)
  double toward = 0.0;  // the same turn in the arc's own range
  double distance = 0.0;
  bool ambiguous = false;
  double opposite = kPi;  // TowardZero's, within kOppositeRamp; else pi
};

// Without an incoming swivel: of all allowed turns, the one nearest 0.
Choice NearestZeroChoice(const AllowedArcs& allowed) {
  Choice choice;
  for (int i = 0; i < allowed.count; ++i) {
    const double nearest =
        std::clamp(0.0, allowed.arc[i].low, allowed.arc[i].high);
    if (i == 0 || std::abs(nearest) < std::abs(choice.turn)) {
      choice.arc = i;
      choice.turn = nearest;
    }
  }
  choice.toward = choice.turn;
  return choice;
}

// The continuity rule (NearestAllowedTurn with `incoming`), on arcs joined
// across pi.
Choice ContinuingChoice(const AllowedArcs& allowed, double incoming) {
  Choice choice;
  for (int i = 0; i < allowed.count; ++i) {
    const double distance = DistanceToArc(incoming, allowed.arc[i]);
    if (i == 0 || distance < choice.distance) {
      choice.arc = i;
      choice.distance = distance;
    }
  }
  const Arc& arc = allowed.arc[choice.arc];
  choice.toward = TowardZero(arc, incoming, choice.ambiguous, choice.opposite);
  if (choice.distance > 0.0) {
    // Outside every arc: ambiguous when another end, far from the chosen
    // one, is nearly as near.
    const double start = EndNearest(arc, incoming);
    for (int i = 0; i < allowed.count; ++i) {
      for (const double end : {allowed.arc[i].low, allowed.arc[i].high}) {
        if (CircularGap(end, start) > 2.0 * kBranchSwitchAngle &&
            CircularGap(end, incoming) - choice.distance <
                2.0 * kBranchSwitchAngle) {
          choice.ambiguous = true;
        }
      }
    }
  }
  // A full turn is no turn: the same rotation, its own bits.
  choice.turn = choice.toward == 2.0 * kPi ? 0.0 : choice.toward;
  return choice;
}

// What the limit's tests say of the continuity rule's answer `toward` (in
// `arc`'s range) at an end of the arc: whether it is the edge of a young
// gap of the swing cone (kYoungGapDepth: the way on from it, or the
// incoming swivel, lies in a gap that was not there a little earlier along
// the path), and AllowedTurn::edge_angle -- the size of the test that makes
// that end, the swing's sqrt(A^2 - needed^2) (A its wave's amplitude: 0
// where the cone touches the circle) or the amplitude of the twist wave
// that changes sign there, as an asin. {false, pi} inside the arc.
struct ArcEnd {
  bool young_gap = false;
  double edge_angle = kPi;
};
ArcEnd AtArcEnd(const LimbCircle& circle, const ModelRotations& model,
                const BallSocketLimit& limit, const Arc& arc, double toward) {
  ArcEnd end;
  if (toward != arc.low && toward != arc.high) return end;
  // The half turn's cosine and sine (the twist's waves), and the turn's
  // from them.
  const double half_c = Cos(0.5 * toward);
  const double half_s = Sin(0.5 * toward);
  const double c = half_c * half_c - half_s * half_s;
  const double s = 2.0 * half_s * half_c;
  double size = 2.0;
  const SwingWave swing = WaveOfSwing(circle, model, limit);
  const double amplitude2 = swing.b1 * swing.b1 + swing.b2 * swing.b2;
  const double amplitude = std::sqrt(amplitude2);
  if (std::abs(swing.b1 * c + swing.b2 * s - swing.needed) <=
      1e-9 * (1.0 + amplitude)) {
    size = std::sqrt(std::max(0.0, amplitude2 - swing.needed * swing.needed));
    const double depth = swing.needed + amplitude;
    end.young_gap = depth > 0.0 && depth < kYoungGapDepth * amplitude;
  }
  if (limit.has_twist) {
    const TwistWaves twist = WavesOfTwist(circle, model, limit);
    for (const Wave& wave : {twist.w, twist.above, twist.below}) {
      const double wave_size = std::sqrt(wave.a * wave.a + wave.b * wave.b);
      if (std::abs(wave.At(half_c, half_s)) <= 1e-9 * (1.0 + wave_size)) {
        size = std::min(size, wave_size);
      }
    }
  }
  if (size < 1.0) end.edge_angle = Asin(size);
  return end;
}

}  // namespace

bool AllowsTheWayToZero(const LimbCircle& circle, const BallSocketLimit& limit,
                        double cos_turn, double sin_turn) {
  const ModelRotations model(circle);
  // The swing test, B1 cos + B2 sin >= needed, a wave with one minimum, at
  // the direction -(B1, B2): on the way, its least value is that minimum if
  // the way passes it, else at an end.
  const SwingWave swing = WaveOfSwing(circle, model, limit);
  if (swing.b1 < swing.needed ||
      swing.b1 * cos_turn + swing.b2 * sin_turn < swing.needed) {
    return false;
  }
  // (-b1, -b2) between 0 and the turn, the shorter way.
  const double side = sin_turn >= 0.0 ? 1.0 : -1.0;
  const bool passes =
      side * -swing.b2 >= 0.0 &&
      side * (-swing.b1 * sin_turn + swing.b2 * cos_turn) >= 0.0;
  if (passes &&
      -std::sqrt(swing.b1 * swing.b1 + swing.b2 * swing.b2) < swing.needed) {
    return false;
  }
  if (!limit.has_twist) return true;
  // The twist's waves in the half turn, from 0 to half the turn (less than
  // a quarter turn: cos > 0).
  const double c = std::sqrt(0.5 * (1.0 + cos_turn));
  if (!(c > 0.0)) return false;
  const double s = sin_turn / (2.0 * c);
  const TwistWaves twist = WavesOfTwist(circle, model, limit);
  return TwistAllows(twist, 1.0, 0.0) && KeepsSign(twist.w, c, s) &&
         KeepsSign(twist.above, c, s) && KeepsSign(twist.below, c, s);
}

Quat TurnedRoot(const LimbCircle& circle, double angle) {
  return glm::normalize(glm::conjugate(circle.parent_rotation) *
                        AngleAxis(angle, circle.axis_model) *
                        circle.parent_rotation * circle.root_solved);
}

std::optional<AllowedTurn> NearestAllowedTurn(
    const LimbCircle& circle, const BallSocketLimit& limit,
    const JointConstraint& constraint, const std::optional<double>& incoming) {
  const ModelRotations model(circle);
  AllowedArcs allowed = Intersect(SwingArcs(circle, model, limit),
                                  TwistArcs(circle, model, limit));
  if (allowed.count == 0) return std::nullopt;
  if (incoming.has_value()) JoinAcrossPi(allowed);
  Choice choice = incoming.has_value() ? ContinuingChoice(allowed, *incoming)
                                       : NearestZeroChoice(allowed);
  const ArcEnd end = incoming.has_value()
                         ? AtArcEnd(circle, model, limit,
                                    allowed.arc[choice.arc], choice.toward)
                         : ArcEnd{};
  choice.ambiguous |= end.young_gap;

  const double best = choice.turn;
  const double toward = choice.toward;
  const double chosen_distance = choice.distance;
  const bool ambiguous = choice.ambiguous;
  const Arc& arc = allowed.arc[choice.arc];
  const double middle = 0.5 * (arc.low + arc.high);
  // Whether the clamp leaves the root turned by `turn.angle` alone; sets
  // turn.root to that rotation.
  const auto within = [&](AllowedTurn& turn) {
    turn.root = TurnedRoot(circle, turn.angle);
    return !ApplyJointConstraint(constraint, turn.root).clamped;
  };
  const double edge_angle = std::min(end.edge_angle, choice.opposite);
  // Stopped at an end of the arc: the limit holds the root there.
  const bool on_limit = toward == arc.low || toward == arc.high;
  AllowedTurn nearest{best,      IdentityQuat(), chosen_distance,
                      ambiguous, edge_angle,     on_limit};
  if (within(nearest)) return nearest;
  // Into the arc until the clamp leaves the root alone.
  double outside = toward;
  AllowedTurn inside{middle,    IdentityQuat(), chosen_distance,
                     ambiguous, edge_angle,     true};
  if (!within(inside)) return std::nullopt;
  for (int i = 0; i < kInwardSteps; ++i) {
    AllowedTurn half{0.5 * (outside + inside.angle),
                     IdentityQuat(),
                     chosen_distance,
                     ambiguous,
                     edge_angle,
                     true};
    if (within(half)) {
      inside = half;
    } else {
      outside = half.angle;
    }
  }
  return inside;
}

}  // namespace ik::internal
