// IkHandlers::Tick: every character's jobs (grounding, goals, dynamics) on
// its own pose, the characters spread over the solver pool. Each job runs on
// a copy of the pose that is handed on only when the job succeeded, so a
// failed job leaves the pose as it found it and fails alone.
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "convert/compact_pose.h"
#include "convert/tick.h"
#include "convert/values.h"
#include "google/protobuf/arena.h"
#include "handlers/handlers.h"
#include "handlers/request_ground.h"
#include "handlers/tick_baselines.h"
#include "ik/base/field_error.h"
#include "ik/rig/pose_check.h"
#include "rpc/core_time.h"
#include "rpc/solver_pool.h"

namespace ik::server {

// The poses of one tick character, reused by the characters of a thread:
// the incoming pose, the pose the jobs so far left, and the one the running
// job works on.
struct TickPoses {
  DensePose incoming;
  DensePose pose;
  DensePose working;
};

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
  PoseCheckToProto(rig, violations, claimed, repaired, answer);
  return absl::OkStatus();
}

// "characters[<index>]<job>": paths are built for errors only.
std::string CharacterPath(int index, absl::string_view job) {
  return absl::StrCat("characters[", index, "]", job);
}

// Runs `job` on poses.working (a copy of poses.pose) and hands the result on
// when it succeeded; when it failed, sets `*status` with the error rooted at
// the character's `job_path`. True when the job succeeded.
template <typename Job>
bool RunOnCopy(TickPoses& poses, int index, absl::string_view job_path,
               v1::JobStatus* (v1::TickCharacterResult::*status)(),
               v1::TickCharacterResult& out, Job&& job) {
  poses.working = poses.pose;
  absl::Status result = job(poses.working);
  if (result.ok()) {
    AsReadBack(poses.pose, poses.working);
    std::swap(poses.pose, poses.working);
  } else {
    StatusToProto(Rooted(result, CharacterPath(index, job_path)),
                  *(out.*status)());
  }
  return result.ok();
}

// A solver thread's arena for one tick character at a time, over a block
// of its own (64 KiB: the example humanoid's character and answer take a
// few).
struct CharacterArena {
  static google::protobuf::ArenaOptions Options(char* block, size_t size) {
    google::protobuf::ArenaOptions options;
    options.initial_block = block;
    options.initial_block_size = size;
    return options;
  }
  CharacterArena() : arena(Options(block, sizeof(block))) {}
  alignas(8) char block[64 * 1024];
  google::protobuf::Arena arena;
};

// A character outside a TickStream names no baseline.
absl::Status WithoutBaseline(const v1::TickCharacter& character) {
  if (character.baseline() == 0) return absl::OkStatus();
  return InvalidField("baseline",
                      "only a TickStream keeps baselines: must be 0 on a "
                      "unary Tick");
}

}  // namespace

template <typename Request, typename Response>
absl::Status IkHandlers::StartTick(const Request& request, Response& response,
                                   std::optional<RequestGround>& shared,
                                   TickSettings& tick) const {
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
  if (request.has_shared_ground()) {
    shared.emplace();
    if (absl::Status status = shared->Build(request.shared_ground(), terrains_,
                                            limits_, "shared_ground");
        !status.ok()) {
      return status;
    }
  }
  tick.shared_ground = shared.has_value() ? &*shared : nullptr;
  tick.form = request.job_rotations() ? AnswerForm::kTickWithRotations
                                      : AnswerForm::kTick;
  tick.detail = request.detail();
  response.set_sequence(request.sequence());
  for (int k = 0; k < count; ++k) response.add_characters();
  return absl::OkStatus();
}

void IkHandlers::TickCharacter(const v1::TickCharacter& character, int index,
                               const TickSettings& tick, const CallScope& scope,
                               v1::TickCharacterResult& out) const {
  if (!scope.stopped()) {
    RunCharacter(character, index, tick, out);
    return;
  }
  out.set_id(character.id());
  StatusToProto(
      FieldError(absl::StatusCode::kCancelled, CharacterPath(index, ""),
                 "the call was cancelled or passed its deadline before "
                 "this character ran"),
      *out.mutable_status());
}

absl::Status IkHandlers::Tick(const v1::TickRequest& request,
                              v1::TickResponse& response,
                              const CallScope& scope) {
  std::optional<RequestGround> shared;
  TickSettings tick;
  if (absl::Status status = StartTick(request, response, shared, tick);
      !status.ok()) {
    return status;
  }
  const int count = request.characters_size();
  scope.pool->ParallelFor(scope.client, count, [&](int k) {
    const v1::TickCharacter& character = request.characters(k);
    v1::TickCharacterResult& out = *response.mutable_characters(k);
    if (absl::Status status = WithoutBaseline(character); !status.ok()) {
      out.set_id(character.id());
      StatusToProto(Rooted(status, CharacterPath(k, "")),
                    *out.mutable_status());
      return;
    }
    TickCharacter(character, k, tick, scope, out);
  });
  return absl::OkStatus();
}

absl::Status IkHandlers::Tick(const wire::TickRequestBytes& request,
                              wire::TickResponseBytes& response,
                              const CallScope& scope,
                              TickBaselines* baselines) {
  std::optional<RequestGround> shared;
  TickSettings tick;
  if (absl::Status status = StartTick(request, response, shared, tick);
      !status.ok()) {
    return status;
  }
  const int count = request.characters_size();
  if (baselines != nullptr) {
    baselines->Begin(request.sequence(), request.resync(), count);
  }
  scope.pool->ParallelFor(scope.client, count, [&](int k) {
    // The character and its answer on this thread's arena, emptied after
    // each: its first block is the thread's own, so a character allocates
    // nothing (a Clear()ed message would free and allocate its parts).
    thread_local const std::unique_ptr<CharacterArena> arena =
        std::make_unique<CharacterArena>();
    arena->arena.Reset();
    auto& character =
        *google::protobuf::Arena::CreateMessage<v1::TickCharacter>(
            &arena->arena);
    auto& out =
        *google::protobuf::Arena::CreateMessage<v1::TickCharacterResult>(
            &arena->arena);
    const std::string& bytes = request.characters(k);
    const bool parsed = character.ParseFromString(bytes);
    absl::Status read =
        !parsed ? InvalidField(
                      "", absl::StrCat(
                              "its ", bytes.size(), " bytes do not parse as ",
                              v1::TickCharacter::descriptor()->full_name()))
        : baselines != nullptr ? baselines->Apply(character)
                               : WithoutBaseline(character);
    if (read.ok()) {
      TickCharacter(character, k, tick, scope, out);
      if (baselines != nullptr) baselines->Keep(k, character, out);
    } else {
      if (parsed) out.set_id(character.id());
      StatusToProto(Rooted(read, CharacterPath(k, "")), *out.mutable_status());
    }
    out.SerializeToString(response.mutable_characters(k));
  });
  if (baselines != nullptr) baselines->End();
  return absl::OkStatus();
}

void IkHandlers::RunCharacter(const v1::TickCharacter& character, int index,
                              const TickSettings& tick,
                              v1::TickCharacterResult& out) const {
  const RequestGround* shared_ground = tick.shared_ground;
  const AnswerForm form = tick.form;
  out.set_id(character.id());
  absl::StatusOr<std::shared_ptr<const RigEntry>> entry =
      PinnedRig(character.rig(), character.revision());
  if (!entry.ok()) {
    StatusToProto(Rooted(entry.status(), CharacterPath(index, "")),
                  *out.mutable_status());
    return;
  }
  const RigEntry& rig_entry = **entry;
  out.set_revision(rig_entry.revision);
  thread_local TickPoses poses;
  if (!StartCharacterPose(character, index, rig_entry.rig(), poses, out)) {
    return;
  }
  // With TICK_DETAIL_POSE, grounding's and the goals' answers are not
  // written at all.
  const bool pose_only = tick.detail == v1::TICK_DETAIL_POSE;
  if (character.has_ground()) {
    GroundCharacter(character.ground(), index, rig_entry, shared_ground, form,
                    pose_only, poses, out);
  }
  if (character.goals_size() > 0) {
    auto* goals = pose_only ? nullptr : out.mutable_goals();
    const bool ok = RunOnCopy(
        poses, index, "", &v1::TickCharacterResult::mutable_goals_status, out,
        [&](DensePose& p) {
          return SolveGoals(rig_entry, character.goals(), p, form, goals);
        });
    if (!ok && goals != nullptr) goals->Clear();
  }
  if (character.has_dynamics()) {
    const v1::StepDynamicsRequest& dynamics = character.dynamics();
    const bool ok = RunOnCopy(
        poses, index, ".dynamics",
        &v1::TickCharacterResult::mutable_dynamics_status, out,
        [&](DensePose& p) {
          if (absl::Status status = RequireUnsetInJob(
                  dynamics.rig(), dynamics.revision(), dynamics.has_pose());
              !status.ok()) {
            return status;
          }
          return StepPoseDynamics(rig_entry, dynamics, p, form,
                                  *out.mutable_dynamics());
        });
    if (!ok) out.clear_dynamics();
  }
  if (!character.has_compact_pose()) {
    TickPoseToProto(poses.incoming, poses.pose, out);
    return;
  }
  CompactPoseToProto(poses.incoming, poses.pose,
                     EncodingOf(character.compact_pose()),
                     *out.mutable_compact_pose());
  if (out.has_dynamics()) StatesToFloats(*out.mutable_dynamics());
}

bool IkHandlers::StartCharacterPose(const v1::TickCharacter& character,
                                    int index, const Rig& rig, TickPoses& poses,
                                    v1::TickCharacterResult& out) const {
  // With a check, the pose is read as claimed and repaired by the check;
  // without one (or when the check itself is malformed), validated.
  const bool checked = character.has_check();
  const TransformCheck check =
      checked ? TransformCheck::kRaw : TransformCheck::kValidate;
  absl::Status read;
  if (!character.has_compact_pose()) {
    read = PoseFromProto(character.pose(), rig, check, poses.incoming);
  } else if (character.has_pose()) {
    read = InvalidField("compact_pose",
                        "set either pose or compact_pose, not both");
  } else {
    read = CompactPoseFromProto(character.compact_pose(), rig, check,
                                poses.incoming);
  }
  if (absl::Status status = std::move(read); !status.ok()) {
    StatusToProto(Rooted(status, CharacterPath(index, "")),
                  *out.mutable_status());
    return false;
  }
  if (!checked) {
    poses.pose = poses.incoming;
    return true;
  }
  absl::Status status = CheckPose(rig, character.check(), poses.incoming,
                                  poses.pose, *out.mutable_check());
  if (status.ok()) return true;
  out.clear_check();
  StatusToProto(Rooted(status, CharacterPath(index, ".check")),
                *out.mutable_check_status());
  StatusToProto(
      FieldError(absl::StatusCode::kFailedPrecondition,
                 CharacterPath(index, ".check"),
                 "the pose check failed, so the claimed pose was not used"),
      *out.mutable_status());
  return false;
}

void IkHandlers::GroundCharacter(const v1::GroundFeetRequest& ground, int index,
                                 const RigEntry& rig_entry,
                                 const RequestGround* shared_ground,
                                 AnswerForm form, bool pose_only,
                                 TickPoses& poses,
                                 v1::TickCharacterResult& out) const {
  v1::GroundFeetResponse* answer = pose_only ? nullptr : out.mutable_ground();
  const bool ok = RunOnCopy(
      poses, index, ".ground", &v1::TickCharacterResult::mutable_ground_status,
      out, [&](DensePose& p) {
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
          return InvalidField("ground",
                              "required: the tick has no shared_ground either");
        }
        return GroundPose(rig_entry, ground, *used, p, form, answer);
      });
  if (!ok) out.clear_ground();
}

}  // namespace ik::server
