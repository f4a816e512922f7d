// IkHandlers::GroundFeet: the grounding pass over the request's ground, run
// as a character's one job (CharacterJobs).
#include <memory>

#include "absl/status/status.h"
#include "convert/values.h"
#include "handlers/character_jobs.h"
#include "handlers/handlers.h"
#include "handlers/request_ground.h"

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
  CharacterJobs& jobs = CharacterJobs::ForThisThread();
  jobs.Start(**entry, *pose, AnswerForm::kFull, /*read_back=*/false, limits_,
             counters_);
  if (absl::Status status = jobs.AddGrounding(request, ground, &response);
      !status.ok()) {
    return status;
  }
  jobs.Run();
  return jobs.grounding_status();
}

}  // namespace ik::server
