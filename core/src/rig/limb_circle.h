// The circle of a two-bone limb's exact solutions, held to a ball-and-socket
// root: turning the whole limb about the root -> target axis keeps the tip's
// distance to the target, and the root's limit allows some arcs of those
// turns. Not part of the public API (rig/two_bone_limits.cc uses it).
#ifndef IK_SRC_RIG_LIMB_CIRCLE_H_
#define IK_SRC_RIG_LIMB_CIRCLE_H_

#include <optional>

#include "ik/base/joint_limits.h"
#include "ik/base/math.h"

namespace ik::internal {

// The limb's root as the circle sees it, model space.
struct LimbCircle {
  // The model rotation of the root's parent, and the root's rest and solved
  // local rotations.
  Quat parent_rotation{1.0, 0.0, 0.0, 0.0};
  Quat rest_rotation{1.0, 0.0, 0.0, 0.0};
  Quat root_solved{1.0, 0.0, 0.0, 0.0};
  // The root -> target direction, unit.
  Vec3 axis_model{0.0, 1.0, 0.0};
};

// The root's local rotation once the limb is turned by `angle` (radians,
// right-handed about the axis).
Quat TurnedRoot(const LimbCircle& circle, double angle);

// std::remainder(x, kPi), bit for bit, for x in [-kPi, kPi] (an atan2's
// range) and NaN: x less the nearest multiple of kPi (ties, +-kPi / 2, to
// the even one, 0), which is exact (Sterbenz), without the library call. A
// zero result has x's sign, as IEEE 754's remainder gives it.
inline double RemainderOfHalfTurn(double x) {
  if (x > 0.5 * kPi) return x - kPi;
  if (x < -0.5 * kPi) return x == -kPi ? -0.0 : x + kPi;
  return x;
}

// A turn of the circle and the root's local rotation it gives
// (TurnedRoot(circle, angle)).
struct AllowedTurn {
  double angle = 0.0;
  Quat root{1.0, 0.0, 0.0, 0.0};
  // With an incoming swivel: how far the turn is from it, radians along the
  // circle (0 when the arc holds it), and whether the choice is ambiguous --
  // another arc end within 2 kBranchSwitchAngle as near the incoming swivel
  // but more than that from the chosen end, or the turn at the edge of a
  // gap the swing cone has just opened: a small change of the request may
  // then move the answer far.
  double distance = 0.0;
  bool ambiguous = false;
  // With an incoming swivel, a turn at an arc's end: how near the limit's
  // test that makes that end is to holding everywhere or nowhere on the
  // circle (the cone touching it, or a twist wave nearly vanishing), as the
  // asin of the wave's size there, radians in [0, pi/2]; the end moves as
  // the inverse of that size as the request moves. Or, where the way
  // towards 0 starts within 10 degrees of the half turn from 0 (and goes
  // part of the way), that angle, if smaller. pi otherwise.
  double edge_angle = kPi;
  // The root ends on the limit's boundary (an end of its arc, or moved into
  // the arc until the clamp leaves it alone); else the turn lies inside the
  // arc (0, or part of the way towards it: TowardZero).
  bool on_limit = false;
};

// The angle, radians, that the continuity rule treats as one: a choice
// whose alternative lies within twice this of it is not ambiguous, half
// the 5 degrees a limb may always turn in one step.
inline constexpr double kBranchSwitchAngle = 2.5 * kPi / 180.0;

// Whether `limit` allows every turn of the circle from 0 to the turn with
// cosine and sine (cos_turn, sin_turn) (unit; not a half turn), the
// shorter way round: then the continuity rule, from that turn as the
// incoming swivel, takes 0 (when the way is not nearly a half turn). Closed
// form without trigonometry; false in doubt (NearestAllowedTurn decides).
bool AllowsTheWayToZero(const LimbCircle& circle, const BallSocketLimit& limit,
                        double cos_turn, double sin_turn);

// The allowed turn the solver takes, the root rotation `limit` allows --
// its swing cone and twist range, found in closed form as arcs of the
// circle, the chosen end checked with ApplyJointConstraint (`constraint`,
// the same limit bound to the rest rotation) and moved into the arc until
// the clamp leaves it alone; nullopt when no turn is allowed.
//   - Without `incoming`: of all allowed turns in [-pi, pi], the one nearest
//     0 (the solver's own plane: the pole's, or the incoming bend plane).
//   - With `incoming` (the incoming pose's own swivel: the turn, radians,
//     from the solver's plane to where keeping the incoming bend plane puts
//     the limb), the continuity rule: the allowed arc that holds it, else
//     the arc with the end nearest it (arcs that meet across pi are one);
//     within that arc, from the incoming swivel (or that end) the shorter
//     way round towards 0, stopping at 0 or at the arc's end on that way --
//     within 10 degrees of the half turn from 0, where the shorter way
//     turns over, only that fraction of the way, none at the very opposite
//     (from an end across the half turn from the incoming swivel, the way
//     the swivel's own shorter way goes: an end may move fast).
//     The turn reports its distance from the incoming swivel and whether
//     the choice is ambiguous (above).
// Deterministic.
std::optional<AllowedTurn> NearestAllowedTurn(
    const LimbCircle& circle, const BallSocketLimit& limit,
    const JointConstraint& constraint,
    const std::optional<double>& incoming = std::nullopt);

}  // namespace ik::internal

#endif  // IK_SRC_RIG_LIMB_CIRCLE_H_
