// Wire <-> core for the tick's compact form (ik.v1 CompactPose and the
// float32 dynamics states): poses packed by joint index, float32 or 48-bit
// (smallest three) rotations, float32 translations where a bone differs
// from the rig's. Each number is widened to double exactly and then read as
// Pose.rotations reads its doubles, so a compact pose gives the jobs the
// bits of the Pose whose doubles are the widened numbers.
#ifndef IK_SERVER_CONVERT_COMPACT_POSE_H_
#define IK_SERVER_CONVERT_COMPACT_POSE_H_

#include "absl/status/status.h"
#include "convert/values.h"
#include "ik/compact_pose.h"
#include "ik/rig/rig.h"
#include "ik/v1/dynamics.pb.h"
#include "ik/v1/tick.pb.h"

namespace ik::server {

// `pose` as dense local transforms (the rig's rest pose with the pose's
// rotations and translations) and its root, into `out`. With kRaw the
// joints' rotations and translations are taken as sent (for the pose
// check); the joint lists, the counts and the root are checked either way.
// Errors name "compact_pose....".
absl::Status CompactPoseFromProto(const v1::CompactPose& pose, const Rig& rig,
                                  TransformCheck check, DensePose& out);

// How a compact answer carries its rotations: as the request did.
inline RotationEncoding EncodingOf(const v1::CompactPose& pose) {
  return pose.quantized_rotations().empty() ? RotationEncoding::kFloat
                                            : RotationEncoding::kQuantized;
}

// A tick's final pose `pose` in the compact form: its root, and the
// rotations of the joints whose rotation differs from `incoming`'s
// (ascending), in `encoding`.
void CompactPoseToProto(const DensePose& incoming, const DensePose& pose,
                        RotationEncoding encoding, v1::CompactPose& out);

// Every state of a dynamics answer moved from `packed` (double) to
// `packed_floats` (float32, rounded to nearest).
void StatesToFloats(v1::StepDynamicsResponse& answer);

}  // namespace ik::server

#endif  // IK_SERVER_CONVERT_COMPACT_POSE_H_
