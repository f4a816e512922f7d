// Internals of the grounding pass (ik/ground/grounding.h) shared by its source
// files. Not part of the public API.
#ifndef IK_SRC_GROUNDING_INTERNAL_H_
#define IK_SRC_GROUNDING_INTERNAL_H_

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "ik/base/math.h"
#include "ik/ground/grounding.h"
#include "ik/ground/leg.h"
#include "ik/ground/terrain.h"
#include "ik/rig/rig.h"

namespace ik::internal {

// Model-space transforms of a leg's joints, from the local transforms.
struct LegPose {
  Transform parent;  // the hip's parent; identity for a root hip
  Transform hip;
  Transform knee;
  Transform ankle;
  Vec3 toe{0.0};  // the toe joint's position; unset without a toe joint
};

// `leg`'s joints under `locals` (one per joint of the rig whose `parents`
// these are), composed top-down from the hip's top-most ancestor, as
// LocalToModelJob composes them (the top-most joint's local transform taken
// as it is rather than composed with the identity: the same values, up to
// the sign of a zero).
LegPose PoseOfLeg(absl::Span<const int> parents,
                  absl::Span<const Transform> locals, const Leg& leg);

// Whether legs[leg]'s hip descends from a joint that an earlier leg's
// solve turns (its hip, knee or ankle): its pose then changes as those
// legs are solved.
bool BelowEarlierLegs(absl::Span<const Leg> legs, size_t leg);

// Whether legs `a` and `b` share a joint of their solves and feet (hip,
// knee, ankle).
bool ShareJoints(const Leg& a, const Leg& b);

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

// A drop, or a tilt, beyond its maximum by less than this (metres or
// radians) is rounding, not a clamp.
inline constexpr double kClampSlack = 1e-9;

// How the toe ray turns a foot.
struct FootTurn {
  Quat rotation{1.0, 0.0, 0.0, 0.0};  // world space, about the ankle
  double angle = 0.0;
  bool clamped = false;
};

// The leg ray of Szauer's foot grounding: straight down through `through`,
// from ray_above_hip above `top` to ray_below_ankle below `through`. A miss
// for an origin beyond kMaxCoordinate.
RayHit CastDown(const Ground& ground, const Vec3& through, double top,
                const LegSettings& settings);

// The toe point's offset from the ankle (`ankle_world`, of the leg posed
// as `pose` under `root`), world space, in the sole's plane through the
// ankle; zero when no direction is given (grounding_rays.cc).
Vec3 ToeOffset(const Rig& rig, const Leg& leg, const Transform& root,
               const LegPose& pose, const Vec3& ankle_world);

// How far the sole under an animated point is above the ground `hit` found
// under it, along the ground's normal: negative when the animation sinks
// it in.
double Clearance(const RayHit& hit, const Vec3& point_world,
                 const LegSettings& settings);

// The point's goal minus the point: along the ground's normal, by the
// clearance's correction (its weight's share).
Vec3 GoalOffset(const RayHit& hit, double clearance, double weight);

// The toe ray's turn of the foot, world space, about the ankle, held to
// max_foot_tilt; `ankle_offset` is the ankle's goal offset.
FootTurn AlignFoot(const Ground& ground, const LegSettings& settings,
                   double weight, const Vec3& ankle_world,
                   const Vec3& knee_world, const Vec3& toe_offset,
                   const Vec3& ankle_offset);

// Runs `jobs` (of distinct characters: no two share a span) as each one's
// Run would, their statuses into statuses[0 .. jobs.size()): the same bits,
// with the two-bone solves of up to two jobs' first two legs together in
// four SIMD lanes where the processor has AVX.
void RunGroundFeetJobs(absl::Span<const GroundFeetJob* const> jobs,
                       absl::Status* statuses);

}  // namespace ik::internal

#endif  // IK_SRC_GROUNDING_INTERNAL_H_
