#include "convert/ground.h"

#include <cmath>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "convert/values.h"
#include "ik/base/field_error.h"

namespace ik::server {

absl::StatusOr<GroundPlane> PlaneFromProto(const v1::Plane& plane,
                                           absl::string_view path) {
  GroundPlaneDefinition definition;
  definition.point = FromProto(plane.point());
  if (plane.has_normal()) definition.normal = FromProto(plane.normal());
  if (plane.has_rectangle_xz()) {
    const v1::RectangleXZ& rectangle = plane.rectangle_xz();
    definition.rectangle_xz = RectangleXZ{rectangle.min_x(), rectangle.max_x(),
                                          rectangle.min_z(), rectangle.max_z()};
  }
  if (plane.has_radius()) definition.radius = plane.radius();
  return GroundPlane::Create(definition, path);
}

absl::Status CheckSmoothingLimits(const v1::GroundFeetRequest& request) {
  const v1::GroundSmoothing& in = request.smoothing();
  for (const auto& [set, value, path] :
       {std::tuple(in.has_max_pelvis_speed(), in.max_pelvis_speed(),
                   "smoothing.max_pelvis_speed"),
        std::tuple(in.has_max_foot_speed(), in.max_foot_speed(),
                   "smoothing.max_foot_speed")}) {
    if (set && !std::isfinite(value)) {
      return InvalidField(
          path, absl::StrCat("must be finite and >= 0 m/s, got ", value));
    }
  }
  return absl::OkStatus();
}

std::optional<GroundSmoothing> SmoothingFromProto(
    const v1::GroundFeetRequest& request, std::vector<Vec3>& previous_offsets) {
  if (!request.has_smoothing()) return std::nullopt;
  const v1::GroundSmoothing& in = request.smoothing();
  previous_offsets.clear();
  for (const v1::Vec3& offset : in.previous_foot_offsets()) {
    previous_offsets.push_back(FromProto(offset));
  }
  GroundSmoothing smoothing;
  smoothing.previous_pelvis_drop = in.previous_pelvis_drop();
  smoothing.previous_foot_offsets = previous_offsets;
  smoothing.delta_time = in.delta_time();
  if (in.has_max_pelvis_speed()) {
    smoothing.max_pelvis_speed = in.max_pelvis_speed();
  }
  if (in.has_max_foot_speed()) smoothing.max_foot_speed = in.max_foot_speed();
  return smoothing;
}

void GroundFeetAnswerToProto(const Rig& rig, absl::Span<const Leg> legs,
                             absl::Span<const Transform> locals,
                             const GroundFeetReport& report,
                             absl::Span<const FootResult> feet, AnswerForm form,
                             v1::GroundFeetResponse& response) {
  response.set_pelvis_drop(report.pelvis_drop);
  response.set_pelvis_drop_target(report.pelvis_drop_target);
  response.set_pelvis_drop_clamped(report.pelvis_drop_clamped);
  ToProto(report.root_offset, response.mutable_root_offset());
  for (size_t l = 0; l < legs.size(); ++l) {
    const Leg& leg = legs[l];
    for (int joint : {leg.hip, leg.knee, leg.ankle}) {
      AddJointRotation(rig, joint, locals[joint].rotation,
                       response.mutable_rotations(), form);
    }
    const FootResult& foot = feet[l];
    v1::FootResult* out = response.add_feet();
    out->set_leg(leg.name);
    out->set_ground_found(foot.ground_found);
    if (foot.ground_found) {
      ToProto(foot.contact_point, out->mutable_contact_point());
      ToProto(foot.contact_normal, out->mutable_contact_normal());
    }
    out->set_grounded(foot.grounded);
    ToProto(foot.goal, out->mutable_goal());
    out->set_reached(foot.reached);
    out->set_moved(foot.moved);
    ToProto(foot.foot_offset, out->mutable_foot_offset());
    out->set_tilt(foot.tilt);
    out->set_tilt_clamped(foot.tilt_clamped);
    out->set_branch_switch(foot.branch_switch);
  }
}

}  // namespace ik::server
