// Core -> wire for a tick's answer (ik/v1/tick.proto): each character's
// final pose, the pose check's report, and the status of a job or a
// character. The jobs' own answers are written by their converters
// (solve.h, ground.h, dynamics.h) in the form the tick asks for.
#ifndef IK_SERVER_CONVERT_TICK_H_
#define IK_SERVER_CONVERT_TICK_H_

#include <cstring>
#include <vector>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "convert/values.h"
#include "ik/base/math.h"
#include "ik/rig/pose_check.h"
#include "ik/rig/rig.h"
#include "ik/v1/ik.pb.h"

namespace ik::server {

// A status as a tick answer carries it: code, message and field path.
void StatusToProto(const absl::Status& status, v1::JobStatus& out);

// Whether two rotations are the same bits (a tick answers the joints whose
// rotation changed by this test, not by a tolerance).
inline bool SameBits(const Quat& a, const Quat& b) {
  return std::memcmp(&a, &b, sizeof(Quat)) == 0;
}

// How many joints' rotations differ (by bits) between `incoming` and
// `pose`: what a tick answers.
int ChangedRotations(const DensePose& incoming, const DensePose& pose);

// The joints whose claimed rotation the pose check repaired: those with a
// rotation violation (not finite, not unit beyond the tolerance, outside
// the limit), ascending. A rotation only normalised is not repaired.
std::vector<int> RepairedRotations(absl::Span<const PoseViolation> violations);

// The pose check's report: each violation found in the claimed pose, and
// the repaired rotations of `repaired` (RepairedRotations), by joint index.
void PoseCheckToProto(const Rig& rig,
                      absl::Span<const PoseViolation> violations,
                      const DensePose& repaired, v1::PoseCheckResult& answer);

// A character's answer pose: `pose`'s root, and the joints whose rotation
// differs from `incoming`'s (by bits), as joint indices with their
// rotations packed x, y, z, w.
void TickPoseToProto(const DensePose& incoming, const DensePose& pose,
                     v1::TickCharacterResult& out);

}  // namespace ik::server

#endif  // IK_SERVER_CONVERT_TICK_H_
