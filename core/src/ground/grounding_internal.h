// Internals of the grounding pass (ik/ground/grounding.h) shared by its source
// files. Not part of the public API.
#ifndef IK_SRC_GROUNDING_INTERNAL_H_
#define IK_SRC_GROUNDING_INTERNAL_H_

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "ik/base/math.h"
#include "ik/ground/grounding.h"
#include "ik/ground/leg.h"
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

// Runs `jobs` (of distinct characters: no two share a span) as each one's
// Run would, their statuses into statuses[0 .. jobs.size()): the same bits,
// with the two-bone solves of up to two jobs' first two legs together in
// four SIMD lanes where the processor has AVX.
void RunGroundFeetJobs(absl::Span<const GroundFeetJob* const> jobs,
                       absl::Status* statuses);

}  // namespace ik::internal

#endif  // IK_SRC_GROUNDING_INTERNAL_H_
