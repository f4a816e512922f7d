// Internals of the grounding pass (ik/grounding.h) shared by its source
// files. Not part of the public API.
#ifndef IK_SRC_GROUNDING_INTERNAL_H_
#define IK_SRC_GROUNDING_INTERNAL_H_

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "ik/joint_limits.h"
#include "ik/leg.h"
#include "ik/math.h"
#include "ik/rig.h"

namespace ik::internal {

// A rig joint's limit as the solvers take it (as in solve_chain.cc).
inline JointConstraint JointConstraintOf(const JointDefinition& joint) {
  JointConstraint constraint;
  if (joint.limit.kind != JointLimit::Kind::kNone) {
    constraint.limit = &joint.limit;
  }
  constraint.rest_rotation = joint.rest.rotation;
  return constraint;
}

// Model-space transforms of a leg's joints, from the local transforms.
struct LegPose {
  Transform parent;  // the hip's parent; identity for a root hip
  Transform hip;
  Transform knee;
  Transform ankle;
  Vec3 toe{0.0};  // the toe joint's position; unset without a toe joint
};

// Up to this many of a hip's ancestors are composed top-down, exactly as
// LocalToModelJob composes them; any above those (a hip deeper than that
// below its root) are composed bottom-up first, which agrees to rounding
// for uniform scale. Joints between ankle and toe are composed bottom-up
// too.
inline constexpr int kMaxTopDownAncestors = 64;

// `leg`'s joints under `locals` (one per joint of the rig whose `parents`
// these are).
LegPose PoseOfLeg(absl::Span<const int> parents,
                  absl::Span<const Transform> locals, const Leg& leg);

// Whether legs[leg]'s hip descends from a joint that an earlier leg's
// solve turns (its hip, knee or ankle): its pose then changes as those
// legs are solved.
bool BelowEarlierLegs(absl::Span<const int> parents, absl::Span<const Leg> legs,
                      size_t leg);

// Solves `leg` of `rig` with the analytic two-bone solver so that its ankle
// heads for `target_model`, the knee bending towards `pole_model` (both
// model space), as PoseSolver solves a two-bone chain: the knee starts
// within its limit, a hinge knee turns only about its hinge axis and within
// its range, and the hip is clamped to its limit after the aim. Updates the
// local rotations of the leg's hip and knee in `locals`. `parent_model` is
// the model-space transform of the hip's parent (identity for a root hip).
// INVALID_ARGUMENT "locals: leg '<name>' cannot be solved in this pose: ..."
// when the two-bone job refuses the pose (coordinates beyond
// kMaxCoordinate, bones of zero length).
absl::Status SolveLeg(const Rig& rig, const Leg& leg,
                      const Transform& parent_model, const Vec3& target_model,
                      const Vec3& pole_model, absl::Span<Transform> locals);

// The smallest drop of the hip along world up (metres, >= 0) that brings a
// goal at `hip_to_goal` from the hip within `reach` of it; +infinity when
// no drop can (the goal is further than `reach` from the hip's vertical).
double DropNeeded(const Vec3& hip_to_goal, double reach);

// `previous` moved towards `target` by at most `max_step` (>= 0; +infinity:
// straight to the target).
double MoveTowards(double previous, double target, double max_step);
Vec3 MoveTowards(const Vec3& previous, const Vec3& target, double max_step);

// The largest step a speed allows over `delta_time` (both >= 0): +infinity
// for an infinite speed, whatever the time.
double MaxStep(double speed, double delta_time);

}  // namespace ik::internal

#endif  // IK_SRC_GROUNDING_INTERNAL_H_
