// IkHandlers::GroundFeet: the grounding pass over the request's ground.
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "ik/base/field_error.h"
#include "ik/base/validate.h"
#include "ik/ground/grounding.h"
#include "ik/ground/terrain.h"
#include "server/convert/ground.h"
#include "server/convert/terrain.h"
#include "server/convert/values.h"
#include "server/core_time.h"
#include "server/handlers.h"
#include "server/request_ground.h"

namespace ik::server {

absl::Status RequestGround::Build(const v1::Ground& ground,
                                  const TerrainRegistry& terrains,
                                  const ServiceLimits& limits,
                                  absl::string_view path) {
  const int shapes = ground.planes_size() + ground.heightfields_size() +
                     ground.terrains_size();
  if (shapes > limits.max_ground_shapes) {
    return FieldError(
        absl::StatusCode::kResourceExhausted, path,
        absl::StrCat(shapes,
                     " planes, heightfields and terrains exceed the limit of ",
                     limits.max_ground_shapes, " (ikd --max_ground_shapes)"));
  }
  planes_.reserve(ground.planes_size());
  for (int i = 0; i < ground.planes_size(); ++i) {
    absl::StatusOr<GroundPlane> plane = PlaneFromProto(
        ground.planes(i), absl::StrCat(path, ".planes[", i, "]"));
    if (!plane.ok()) return plane.status();
    planes_.push_back(*std::move(plane));
  }
  patches_.reserve(ground.heightfields_size());
  for (int i = 0; i < ground.heightfields_size(); ++i) {
    absl::StatusOr<Heightfield> field = HeightfieldFromProto(
        ground.heightfields(i), limits.max_inline_heightfield_samples,
        "max_inline_heightfield_samples",
        absl::StrCat(path, ".heightfields[", i, "]"));
    if (!field.ok()) return field.status();
    patches_.push_back(*std::move(field));
  }
  for (const Heightfield& field : patches_) heightfields_.push_back(&field);
  for (int i = 0; i < ground.terrains_size(); ++i) {
    const std::string terrain_path = absl::StrCat(path, ".terrains[", i, "]");
    if (ground.terrains(i).empty()) {
      return InvalidField(terrain_path, "empty name");
    }
    if (absl::Status status = ValidateName(ground.terrains(i), terrain_path);
        !status.ok()) {
      return status;
    }
    absl::StatusOr<std::shared_ptr<const TerrainEntry>> entry =
        terrains.Get({ground.terrains(i), terrain_path});
    if (!entry.ok()) return entry.status();
    const TerrainEntry& terrain = **entry;
    if (terrain.mesh.has_value()) meshes_.push_back(&*terrain.mesh);
    if (terrain.heightfield.has_value()) {
      heightfields_.push_back(&*terrain.heightfield);
    }
    pinned_.push_back(*std::move(entry));
  }
  return absl::OkStatus();
}

absl::Status IkHandlers::GroundFeet(const v1::GroundFeetRequest& request,
                                    v1::GroundFeetResponse& response) {
  absl::StatusOr<std::shared_ptr<const RigEntry>> entry =
      PinnedRig(request.rig(), request.revision());
  if (!entry.ok()) return entry.status();
  absl::StatusOr<DensePose> pose =
      PoseFromProto(request.pose(), (*entry)->rig());
  if (!pose.ok()) return pose.status();
  RequestGround ground;
  if (absl::Status status =
          ground.Build(request.ground(), terrains_, limits_, "ground");
      !status.ok()) {
    return status;
  }
  return GroundPose(**entry, request, ground, *pose, AnswerForm::kFull,
                    &response);
}

absl::Status IkHandlers::GroundPose(const RigEntry& entry,
                                    const v1::GroundFeetRequest& request,
                                    const RequestGround& ground,
                                    DensePose& pose, AnswerForm form,
                                    v1::GroundFeetResponse* response) const {
  const Rig& rig = entry.rig();
  const absl::Span<const Leg> rig_legs = entry.character.legs;
  if (rig_legs.empty()) {
    return FieldError(
        absl::StatusCode::kFailedPrecondition, "rig",
        absl::StrCat("'", rig.name(), "' has no legs (Rig.legs) to ground"));
  }
  const size_t legs = rig_legs.size();
  // This thread's buffers, reused (nothing here yields to another call): a
  // tick's characters allocate nothing here.
  thread_local std::vector<double> weights;
  weights.assign(request.weights().begin(), request.weights().end());
  if (weights.empty()) weights.assign(legs, 1.0);
  if (absl::Status status = CheckSmoothingLimits(request); !status.ok()) {
    return status;
  }
  thread_local std::vector<Vec3> previous_offsets;
  std::optional<GroundSmoothing> smoothing =
      SmoothingFromProto(request, previous_offsets);

  thread_local std::vector<FootResult> feet;
  feet.assign(legs, FootResult());
  GroundFeetReport report;
  GroundFeetJob job;
  job.rig = &rig;
  job.legs = rig_legs;
  job.root = pose.root;
  job.locals = absl::MakeSpan(pose.locals);
  job.pose_path = "pose";
  job.ground = ground.view();
  job.weights = weights;
  job.smoothing = smoothing;
  if (request.has_tolerance()) job.tolerance = request.tolerance();
  job.feet = absl::MakeSpan(feet);
  job.report = &report;
  if (absl::Status status = RunCore(job); !status.ok()) return status;
  counters_.AddGrounding(static_cast<std::int64_t>(feet.size()));

  pose.root.translation += report.root_offset;
  if (response == nullptr) return absl::OkStatus();
  if (form == AnswerForm::kFull) response->set_revision(entry.revision);
  GroundFeetAnswerToProto(rig, rig_legs, pose.locals, report, feet, form,
                          *response);
  for (const std::shared_ptr<const TerrainEntry>& terrain : ground.terrains()) {
    response->add_terrain_revisions(terrain->revision);
  }
  return absl::OkStatus();
}

}  // namespace ik::server
