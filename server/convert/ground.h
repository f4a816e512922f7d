// Wire <-> core for GroundFeet (ik/v1/ground.proto): planes, the stateless
// smoothing, and the answer (leg rotations, root offset, one report per
// foot). Heightfields and meshes are converted by convert/terrain.h. Errors
// start with the request's field path ("ground.planes[1].normal: zero
// length").
#ifndef IK_SERVER_CONVERT_GROUND_H_
#define IK_SERVER_CONVERT_GROUND_H_

#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "convert/values.h"
#include "ik/ground/ground_plane.h"
#include "ik/ground/grounding.h"
#include "ik/rig/rig.h"
#include "ik/v1/ground.pb.h"

namespace ik::server {

absl::StatusOr<GroundPlane> PlaneFromProto(const v1::Plane& plane,
                                           absl::string_view path);

// The smoothing's speed limits finite (the core takes +infinity as "no
// limit"; over the wire every number is finite): INVALID_ARGUMENT naming
// "smoothing.max_pelvis_speed" or "smoothing.max_foot_speed" otherwise.
absl::Status CheckSmoothingLimits(const v1::GroundFeetRequest& request);

// The request's smoothing, if it has one. `previous_offsets` receives the
// previous foot offsets the returned settings point into (raw: the core
// validates them as "smoothing.previous_foot_offsets[i]").
std::optional<GroundSmoothing> SmoothingFromProto(
    const v1::GroundFeetRequest& request, std::vector<Vec3>& previous_offsets);

// Fills the answer from the grounded pose: the hip, knee and ankle rotations
// of every leg (from `locals`), the report, and one FootResult per leg.
void GroundFeetAnswerToProto(const Rig& rig, absl::Span<const Leg> legs,
                             absl::Span<const Transform> locals,
                             const GroundFeetReport& report,
                             absl::Span<const FootResult> feet, AnswerForm form,
                             v1::GroundFeetResponse& response);

}  // namespace ik::server

#endif  // IK_SERVER_CONVERT_GROUND_H_
