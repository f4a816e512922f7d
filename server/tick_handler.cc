// IkHandlers::Tick: every character's jobs (grounding, goals, dynamics) on
// its own pose, the characters spread over the solver pool.
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "ik/base/field_error.h"
#include "ik/rig/pose_check.h"
#include "server/convert/values.h"
#include "server/core_time.h"
#include "server/handlers.h"
#include "server/request_ground.h"
#include "server/solver_pool.h"

namespace ik::server {
namespace {

// A job's sub-request must leave what the character gives empty.
absl::Status RequireUnsetInJob(const std::string& rig,
                               const std::string& revision, bool has_pose) {
  const char* field = !rig.empty()        ? "rig"
                      : !revision.empty() ? "revision"
                      : has_pose          ? "pose"
                                          : nullptr;
  if (field == nullptr) return absl::OkStatus();
  return InvalidField(field,
                      "must be empty in a tick job: the character gives it");
}

// Whether two rotations are the same bits.
bool SameBits(const Quat& a, const Quat& b) {
  return std::memcmp(&a, &b, sizeof(Quat)) == 0;
}

// The rotations a job changed, as the next single RPC would read them back
// from its answer (ValidateTransform divides every rotation by its norm): so
// a tick's jobs see the bits a caller chaining the single RPCs would send.
void AsReadBack(const DensePose& before, DensePose& after) {
  for (size_t j = 0; j < after.locals.size(); ++j) {
    Quat& rotation = after.locals[j].rotation;
    if (!SameBits(rotation, before.locals[j].rotation)) {
      rotation = rotation / Norm(rotation);
    }
  }
}

v1::PoseViolationKind KindToProto(PoseViolation::Kind kind) {
  switch (kind) {
    case PoseViolation::Kind::kRotationNotFinite:
      return v1::POSE_VIOLATION_ROTATION_NOT_FINITE;
    case PoseViolation::Kind::kRotationNotUnit:
      return v1::POSE_VIOLATION_ROTATION_NOT_UNIT;
    case PoseViolation::Kind::kOutsideLimit:
      return v1::POSE_VIOLATION_OUTSIDE_LIMIT;
    case PoseViolation::Kind::kTranslation:
      return v1::POSE_VIOLATION_TRANSLATION;
    case PoseViolation::Kind::kScale:
      return v1::POSE_VIOLATION_SCALE;
  }
  return v1::POSE_VIOLATION_KIND_UNSPECIFIED;
}

// The pose check on the claimed pose `claimed` (raw): its report into
// `answer`, the repaired pose into `repaired`.
absl::Status CheckPose(const Rig& rig, const v1::PoseCheck& check,
                       const DensePose& claimed, DensePose& repaired,
                       v1::PoseCheckResult& answer) {
  thread_local std::vector<PoseViolation> violations;
  repaired.root = claimed.root;
  repaired.locals.resize(claimed.locals.size());
  PoseCheckJob job;
  job.rig = &rig;
  job.claimed = claimed.locals;
  if (check.has_tolerance()) job.tolerance = check.tolerance();
  job.violations = &violations;
  job.repaired = absl::MakeSpan(repaired.locals);
  if (absl::Status status = RunCore(job); !status.ok()) return status;
  for (const PoseViolation& violation : violations) {
    v1::PoseViolation* out = answer.add_violations();
    out->set_joint(violation.joint);
    out->set_kind(KindToProto(violation.kind));
    out->set_amount(violation.amount);
  }
  for (int j = 0; j < rig.joint_count(); ++j) {
    if (!SameBits(repaired.locals[j].rotation, claimed.locals[j].rotation)) {
      AddJointRotation(rig, j, repaired.locals[j].rotation,
                       answer.mutable_rotations(),
                       AnswerForm::kTickWithRotations);
    }
  }
  return absl::OkStatus();
}

}  // namespace

void StatusToProto(const absl::Status& status, v1::JobStatus& out) {
  out.set_code(static_cast<int>(status.code()));
  out.set_message(std::string(status.message()));
  if (std::optional<std::string> field = FieldPathOf(status)) {
    out.set_field(*std::move(field));
  }
}

absl::Status IkHandlers::Tick(const v1::TickRequest& request,
                              v1::TickResponse& response,
                              const CallScope& scope) {
  const int count = request.characters_size();
  if (count == 0) {
    return InvalidField("characters", "at least one character is required");
  }
  if (count > limits_.max_characters_per_tick) {
    return FieldError(
        absl::StatusCode::kResourceExhausted, "characters",
        absl::StrCat(count, " characters exceed the limit of ",
                     limits_.max_characters_per_tick,
                     " per tick (ikd --max_characters_per_tick)"));
  }
  if (!v1::TickDetail_IsValid(request.detail())) {
    return InvalidField("detail",
                        absl::StrCat("unknown TickDetail ", request.detail()));
  }
  std::optional<RequestGround> shared;
  if (request.has_shared_ground()) {
    shared.emplace();
    if (absl::Status status = shared->Build(request.shared_ground(), terrains_,
                                            limits_, "shared_ground");
        !status.ok()) {
      return status;
    }
  }
  response.set_sequence(request.sequence());
  for (int k = 0; k < count; ++k) response.add_characters();
  scope.pool->ParallelFor(scope.client, count, [&](int k) {
    if (scope.stopped()) {
      v1::TickCharacterResult& out = *response.mutable_characters(k);
      out.set_id(request.characters(k).id());
      StatusToProto(
          FieldError(absl::StatusCode::kCancelled,
                     absl::StrCat("characters[", k, "]"),
                     "the call was cancelled or passed its deadline before "
                     "this character ran"),
          *out.mutable_status());
      return;
    }
    RunCharacter(request.characters(k), k,
                 shared.has_value() ? &*shared : nullptr,
                 request.job_rotations() ? AnswerForm::kTickWithRotations
                                         : AnswerForm::kTick,
                 request.detail(), *response.mutable_characters(k));
  });
  return absl::OkStatus();
}

void IkHandlers::RunCharacter(const v1::TickCharacter& character, int index,
                              const RequestGround* shared_ground,
                              AnswerForm form, v1::TickDetail detail,
                              v1::TickCharacterResult& out) const {
  // Paths are built for errors only.
  const auto path = [index](absl::string_view job) {
    return absl::StrCat("characters[", index, "]", job);
  };
  out.set_id(character.id());
  absl::StatusOr<std::shared_ptr<const RigEntry>> entry =
      PinnedRig(character.rig(), character.revision());
  if (!entry.ok()) {
    StatusToProto(Rooted(entry.status(), path("")), *out.mutable_status());
    return;
  }
  const RigEntry& rig_entry = **entry;
  const Rig& rig = rig_entry.rig();
  out.set_revision(rig_entry.revision);
  // The poses of this thread's characters, reused: the incoming pose, the
  // pose the jobs so far left, and the one the running job works on (handed
  // on only when the job succeeded: a failed job leaves the pose as it was).
  thread_local DensePose incoming;
  thread_local DensePose pose;
  thread_local DensePose working;
  // With a check, the pose is read as claimed and repaired by the check;
  // without one (or when the check itself is malformed), validated.
  const bool checked = character.has_check();
  if (absl::Status status = PoseFromProto(
          character.pose(), rig,
          checked ? TransformCheck::kRaw : TransformCheck::kValidate, incoming);
      !status.ok()) {
    StatusToProto(Rooted(status, path("")), *out.mutable_status());
    return;
  }
  if (checked) {
    absl::Status status =
        CheckPose(rig, character.check(), incoming, pose, *out.mutable_check());
    if (!status.ok()) {
      out.clear_check();
      StatusToProto(Rooted(status, path(".check")),
                    *out.mutable_check_status());
      StatusToProto(
          FieldError(absl::StatusCode::kFailedPrecondition, path(".check"),
                     "the pose check failed, so the claimed pose was not "
                     "used"),
          *out.mutable_status());
      return;
    }
  } else {
    pose = incoming;
  }
  // A job on a copy of the pose, handed on when it succeeded; its status
  // is set (with its path from the tick) only when it failed.
  const auto run_job = [&](absl::string_view job_path,
                           v1::JobStatus* (v1::TickCharacterResult::*status)(),
                           auto&& job) {
    working = pose;
    absl::Status result = job(working);
    if (result.ok()) {
      AsReadBack(pose, working);
      std::swap(pose, working);
    } else {
      StatusToProto(Rooted(result, path(job_path)), *(out.*status)());
    }
    return result.ok();
  };
  // With TICK_DETAIL_POSE, grounding's and the goals' answers are not
  // written at all.
  const bool pose_only = detail == v1::TICK_DETAIL_POSE;

  if (character.has_ground()) {
    const v1::GroundFeetRequest& ground = character.ground();
    v1::GroundFeetResponse* answer = pose_only ? nullptr : out.mutable_ground();
    const bool ok = run_job(
        ".ground", &v1::TickCharacterResult::mutable_ground_status,
        [&](DensePose& p) {
          if (absl::Status status = RequireUnsetInJob(
                  ground.rig(), ground.revision(), ground.has_pose());
              !status.ok()) {
            return status;
          }
          RequestGround own;
          const RequestGround* used = shared_ground;
          if (ground.has_ground()) {
            if (absl::Status status =
                    own.Build(ground.ground(), terrains_, limits_, "ground");
                !status.ok()) {
              return status;
            }
            used = &own;
          } else if (used == nullptr) {
            return InvalidField(
                "ground", "required: the tick has no shared_ground either");
          }
          return GroundPose(rig_entry, ground, *used, p, form, answer);
        });
    if (!ok) out.clear_ground();
  }
  if (character.goals_size() > 0) {
    auto* goals = pose_only ? nullptr : out.mutable_goals();
    const bool ok = run_job(
        "", &v1::TickCharacterResult::mutable_goals_status, [&](DensePose& p) {
          return SolveGoals(rig_entry, character.goals(), p, form, goals);
        });
    if (!ok && goals != nullptr) goals->Clear();
  }
  if (character.has_dynamics()) {
    const v1::StepDynamicsRequest& dynamics = character.dynamics();
    v1::StepDynamicsResponse& answer = *out.mutable_dynamics();
    const bool ok = run_job(
        ".dynamics", &v1::TickCharacterResult::mutable_dynamics_status,
        [&](DensePose& p) {
          if (absl::Status status = RequireUnsetInJob(
                  dynamics.rig(), dynamics.revision(), dynamics.has_pose());
              !status.ok()) {
            return status;
          }
          return StepPoseDynamics(rig_entry, dynamics, p, form, answer);
        });
    if (!ok) out.clear_dynamics();
  }

  ToProto(pose.root, out.mutable_root());
  int changed = 0;
  for (int j = 0; j < rig.joint_count(); ++j) {
    changed += !SameBits(pose.locals[j].rotation, incoming.locals[j].rotation);
  }
  out.mutable_joints()->Reserve(changed);
  out.mutable_rotations()->Reserve(4 * changed);
  for (int j = 0; j < rig.joint_count(); ++j) {
    const Quat& rotation = pose.locals[j].rotation;
    if (SameBits(rotation, incoming.locals[j].rotation)) continue;
    out.add_joints(j);
    for (double value : {rotation.x, rotation.y, rotation.z, rotation.w}) {
      out.add_rotations(value);
    }
  }
}

}  // namespace ik::server
