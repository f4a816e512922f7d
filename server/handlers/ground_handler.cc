// IkHandlers::GroundFeet: the grounding pass over the request's ground.
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "convert/ground.h"
#include "convert/terrain.h"
#include "convert/values.h"
#include "handlers/handlers.h"
#include "handlers/request_ground.h"
#include "ik/base/field_error.h"
#include "ik/base/validate.h"
#include "ik/ground/grounding.h"
#include "ik/ground/terrain.h"
#include "rpc/core_time.h"

namespace ik::server {

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
