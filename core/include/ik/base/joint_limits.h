// Joint limits: what "within a limit" means, and how the solvers clamp a
// rotation back into one. Every solver applies these after each iteration
// (as the constrained CCD and FABRIK solvers of Szauer, "Hands-On C++ Game
// Animation Programming" (2020), ch. 13, do), so one definition serves them
// all.
//
// Definitions. A limit is relative to the joint's rest local rotation: with
// `local` the joint's local rotation and `rest` its rest local rotation,
//   q_rel = rest^-1 * local
// (identity at rest). Every axis lives in the joint's rest local frame (the
// frame q_rel acts in). The swing-twist decomposition of q_rel about a unit
// axis t is
//   q_rel = swing * twist,
// where twist is a rotation about t by the twist angle tau in (-pi, pi] and
// swing is the shortest arc taking t to q_rel * t (its axis is
// perpendicular to t). Computed as twist = normalise(w, (v.t) t) for
// q_rel = (w, v); when that is zero (q_rel turns t half round), twist is the
// identity.
//
// Ball-and-socket (BallSocketLimit), t = twist_axis (the bone, see rig.h):
//   within when the bone's direction d = q_rel * t makes an angle of at most
//   swing_max with `axis` (the swing cone), and, if the limit has a twist
//   range, tau is within [twist.min, twist.max].
//   Clamp: d moves along the great circle towards `axis` onto the cone (for
//   d = -axis, towards a fixed perpendicular), tau goes to the nearer end of
//   its range, and q_rel' = FromTo(t, d') * AngleAxis(tau', t).
// Hinge (HingeLimit), t = axis:
//   within when q_rel turns only about `axis` (its swing is the identity)
//   and tau is within `range`.
//   Clamp: drop the swing (realigning the joint's hinge axis with its
//   parent's by a from-to correction, as Szauer's hinge constraint does, is
//   exactly this) and take tau to the nearer end:
//   q_rel' = AngleAxis(tau', axis).
// "Nearer end" is measured around the circle: an angle outside [min, max]
// goes to whichever end it reaches first turning either way (min on a tie).
//
//   const JointDefinition& elbow = rig.joint(rig.FindJoint("left_elbow"));
//   LimitedRotation limited = ApplyJointLimit(
//       elbow.limit, elbow.rest.rotation, locals[elbow_index].rotation);
//   locals[elbow_index].rotation = limited.rotation_local;
#ifndef IK_JOINT_LIMITS_H_
#define IK_JOINT_LIMITS_H_

#include <limits>

#include "ik/base/math.h"

namespace ik {

// A closed interval of angles, radians.
struct AngleRange {
  double min = 0.0;
  double max = 0.0;
};

// The tangents of half of each end of an AngleRange within [-pi, pi], so a
// clamp can tell that a twist (w >= 0, s) lies within the range without an
// arctangent: tan(min / 2) w <= s <= tan(max / 2) w. NaN until
// DeriveLimitValues fills them; a clamp then takes the exact path.
struct HalfTangents {
  double min = std::numeric_limits<double>::quiet_NaN();
  double max = std::numeric_limits<double>::quiet_NaN();
};

// The cosines and sines of half of each end of an AngleRange.
struct HalfAngleTrig {
  double cos_min = std::numeric_limits<double>::quiet_NaN();
  double sin_min = std::numeric_limits<double>::quiet_NaN();
  double cos_max = std::numeric_limits<double>::quiet_NaN();
  double sin_max = std::numeric_limits<double>::quiet_NaN();
};

// Swing cone about `axis` (rest local frame of the joint, unit length after
// Create) plus an optional twist range about the bone. Exact definitions and
// the clamp: ik/base/joint_limits.h.
struct BallSocketLimit {
  Vec3 axis{0.0, 1.0, 0.0};
  double swing_max = 0.0;  // (0, pi]
  bool has_twist = false;
  AngleRange twist;  // within [-pi, pi], min <= max
  // The bone, which the cone constrains and the twist turns about: the unit
  // rest direction from the joint to its first child, in the joint's rest
  // local frame; `axis` for a joint without a child (or whose first child
  // sits on it). Filled in by Create (any input value is ignored).
  Vec3 twist_axis{0.0, 1.0, 0.0};
  // Derived from swing_max and twist by DeriveLimitValues (Create calls
  // it), so clamps call no trig; NaN until then, and clamps compute them.
  double cos_swing_max = std::numeric_limits<double>::quiet_NaN();
  double sin_swing_max = std::numeric_limits<double>::quiet_NaN();
  HalfTangents twist_tangents;
  // Cosine and sine of half of each end of `twist` (the limb circle's twist
  // test), derived likewise.
  HalfAngleTrig twist_half_trig;
};

// Rotation only about `axis` (rest local frame, unit length after Create) by
// an angle in `range`, relative to the rest rotation (ik/base/joint_limits.h).
struct HingeLimit {
  Vec3 axis{1.0, 0.0, 0.0};
  AngleRange range;             // within [-pi, pi], min <= max
  HalfTangents range_tangents;  // derived from `range` (DeriveLimitValues)
};

struct JointLimit {
  enum class Kind { kNone, kBallSocket, kHinge };
  Kind kind = Kind::kNone;
  // When true for a ball-and-socket limit, the axis is taken from the rest
  // direction to the joint's first child (filled in by Create).
  bool axis_from_child = false;
  BallSocketLimit ball_socket;  // valid when kind == kBallSocket
  HingeLimit hinge;             // valid when kind == kHinge
};

// A clamp moved by more than this many radians (cone, twist or, for a hinge,
// swing) counts as clamping the joint: the `clamped` flag ignores the
// rounding-level corrections of a rotation already sitting on its limit.
inline constexpr double kLimitClampSlack = 1e-9;

// A joint's limit bound to the joint's rest rotation, as the chain solvers
// take it: one per chain joint. Owns nothing.
struct JointConstraint {
  // The joint's limit; nullptr, or kind kNone: the joint turns freely. The
  // caller keeps it alive while a job runs.
  const JointLimit* limit = nullptr;
  // The joint's rest local rotation (unit), which the limit is relative to.
  Quat rest_rotation{1.0, 0.0, 0.0, 0.0};
};

// The swing-twist decomposition of a rotation about an axis (see above).
struct SwingTwist {
  Quat swing{1.0, 0.0, 0.0, 0.0};
  Quat twist{1.0, 0.0, 0.0, 0.0};
  double twist_angle = 0.0;  // radians, (-pi, pi]
};

// Decomposes unit `rotation` about unit `twist_axis`.
SwingTwist DecomposeSwingTwist(const Quat& rotation, const Vec3& twist_axis);

// DecomposeSwingTwist(rotation, twist_axis).twist_angle, bit for bit,
// without building the swing and twist rotations.
double TwistAngleAbout(const Quat& rotation, const Vec3& twist_axis);

// Result of a clamp: the rotation (the input, bit for bit, when it was
// within the limit) and whether the limit moved it by more than
// kLimitClampSlack.
struct LimitedRotation {
  Quat rotation{1.0, 0.0, 0.0, 0.0};
  bool clamped = false;
};

// Clamps `relative` (q_rel, unit) into a ball-and-socket limit whose axes are
// unit length (as Rig::Create leaves them).
LimitedRotation ApplyBallSocketLimit(const BallSocketLimit& limit,
                                     const Quat& relative);

// Clamps `relative` (q_rel, unit) into a hinge limit with a unit axis.
LimitedRotation ApplyHingeLimit(const HingeLimit& limit, const Quat& relative);

// Clamps a joint's local rotation (unit) into `limit`, relative to the
// joint's unit `rest_rotation`. Returns `rotation_local` itself when it is
// within the limit (or the limit is kNone).
LimitedRotation ApplyJointLimit(const JointLimit& limit,
                                const Quat& rest_rotation,
                                const Quat& rotation_local);

// The same for a JointConstraint (no limit: unchanged).
inline LimitedRotation ApplyJointConstraint(const JointConstraint& constraint,
                                            const Quat& rotation_local) {
  if (constraint.limit == nullptr) return {rotation_local, false};
  return ApplyJointLimit(*constraint.limit, constraint.rest_rotation,
                         rotation_local);
}

// Fills the values a limit's clamps derive from its angles (cosine and
// sine of the cone, half-angle tangents of the twist or hinge range), so
// they call no trig per clamp. Rig::Create calls it for every joint; call
// it again after changing a limit's angles by hand.
void DeriveLimitValues(JointLimit* limit);

// Whether a joint's local rotation (unit) lies on the boundary of `limit`
// (relative to the joint's unit `rest_rotation`), to kLimitClampSlack: at
// the edge of the cone or an end of the twist range, or at an end of the
// hinge's range (a hinge's off-axis part is not measured). A limit that
// holds every rotation has no boundary.
bool OnJointLimitBoundary(const JointLimit& limit, const Quat& rest_rotation,
                          const Quat& rotation_local);

// `angle` (radians, any value) when it is within `range` modulo a full turn,
// otherwise the nearer end of the range around the circle (min on a tie).
// A range at least a full turn wide contains every angle.
double ClampAngleToRange(double angle, const AngleRange& range);

}  // namespace ik

#endif  // IK_JOINT_LIMITS_H_
