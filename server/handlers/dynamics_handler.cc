// IkHandlers::StepDynamics: one time step of a rig's dynamic chains, run as
// a character's one job (CharacterJobs).
#include <memory>

#include "absl/status/status.h"
#include "convert/values.h"
#include "handlers/character_jobs.h"
#include "handlers/handlers.h"

namespace ik::server {

absl::Status IkHandlers::StepDynamics(const v1::StepDynamicsRequest& request,
                                      v1::StepDynamicsResponse& response) {
  absl::StatusOr<std::shared_ptr<const RigEntry>> entry =
      PinnedRig(request.rig(), request.revision());
  if (!entry.ok()) return entry.status();
  absl::StatusOr<DensePose> pose =
      PoseFromProto(request.pose(), (*entry)->rig());
  if (!pose.ok()) return pose.status();
  CharacterJobs& jobs = CharacterJobs::ForThisThread();
  jobs.Start(**entry, *pose, AnswerForm::kFull, /*read_back=*/false, limits_,
             counters_);
  if (absl::Status status = jobs.AddDynamics(request, response); !status.ok()) {
    return status;
  }
  jobs.Run();
  return jobs.dynamics_status();
}

}  // namespace ik::server
