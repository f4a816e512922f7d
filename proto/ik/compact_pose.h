// The tick's compact form (ik.v1 CompactPose) from what an engine holds,
// and back: float32 local rotations (x, y, z, w per joint), optionally
// quantized to 48 bits each ("smallest three": ozz-animation's rotation
// keys, Glenn Fiedler's snapshot compression). Shared by ikd, which reads
// and answers the form, and the client library, which writes and reads it.
//
//   std::vector<float> locals = engine.LocalRotations();  // 4 per joint
//   ik::SetCompactRotations(locals, ik::RotationEncoding::kQuantized,
//                           *character.mutable_compact_pose());
//   ...
//   // the answer's final pose onto the engine's pose:
//   absl::Status applied =
//       ik::ApplyCompactRotations(result.compact_pose(),
//       absl::MakeSpan(locals));
#ifndef IK_PROTO_COMPACT_POSE_H_
#define IK_PROTO_COMPACT_POSE_H_

#include <array>
#include <cstdint>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "ik/v1/tick.pb.h"

namespace ik {

// Bytes of one quantized rotation.
inline constexpr int kSmallestThreeBytes = 6;

// The rotation (x, y, z, w), normalised first, as the 6 bytes ik.v1
// CompactPose.quantized_rotations describes: a 48-bit little-endian integer
// whose bits 0-1 say which component is largest in magnitude (the first on
// ties; the rotation is negated when it is negative), bits 2-16, 17-31 and
// 32-46 the other three in x, y, z, w order, each c as the code nearest
// (c * sqrt(2) + 1) / 2 * 32767. A rotation that is not finite or is zero
// packs as the identity.
std::array<std::uint8_t, kSmallestThreeBytes> PackSmallestThree(double x,
                                                                double y,
                                                                double z,
                                                                double w);

// The rotation (x, y, z, w) the 6 bytes at `bytes` stand for: each code c
// as (c / 32767 * 2 - 1) / sqrt(2), the largest component
// sqrt(1 - a*a - b*b - c*c) (0 when that is negative). Not normalised
// further; bit 47 is not read (SmallestThreeReservedBit).
std::array<double, 4> UnpackSmallestThree(const std::uint8_t* bytes);

// True when bit 47 of the 6 bytes at `bytes`, which must be 0, is set.
inline bool SmallestThreeReservedBit(const std::uint8_t* bytes) {
  return (bytes[5] & 0x80) != 0;
}

// How a compact pose carries its rotations.
enum class RotationEncoding { kFloat, kQuantized };

// `rotations` (x, y, z, w per joint, joints 0, 1, 2, ... of the rig, as many
// as given) into `pose`'s rotations or quantized_rotations, replacing
// either; pose.joints is cleared (the rotations are by position).
void SetCompactRotations(absl::Span<const float> rotations,
                         RotationEncoding encoding, v1::CompactPose& pose);

// The rotations `pose` gives (a tick's answer: the joints a job changed)
// written over `rotations` (x, y, z, w per joint of the rig), quantized ones
// decoded and normalised. INVALID_ARGUMENT when `pose` names a joint beyond
// `rotations` or its counts do not match; `rotations` is then unchanged.
absl::Status ApplyCompactRotations(const v1::CompactPose& pose,
                                   absl::Span<float> rotations);

// The Pose whose doubles are `pose`'s numbers widened (quantized rotations
// decoded, not normalised): what a caller of the single RPCs sends for the
// same pose. A tick answers a compact character's jobs as the single RPCs
// answer this Pose. Rotations by position become Pose.rotations; listed
// ones, and translations, JointPoses by index (one per joint).
v1::Pose WidenedPose(const v1::CompactPose& pose);

}  // namespace ik

#endif  // IK_PROTO_COMPACT_POSE_H_
