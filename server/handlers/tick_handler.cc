// IkHandlers::Tick: every character's jobs (grounding, goals, dynamics) on
// its own pose, the characters spread over the solver pool. A character's
// jobs run through the core's per-character sequence (CharacterJobs, a
// TickBatchJob of one): a failed job leaves the pose as it found it and
// fails alone.
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
#include "handlers/character_jobs.h"
#include "handlers/handlers.h"
#include "handlers/request_ground.h"
#include "handlers/tick_baselines.h"
#include "handlers/tick_uses.h"
#include "ik/base/field_error.h"
#include "ik/rig/pose_check.h"
#include "rpc/core_time.h"
#include "rpc/solver_pool.h"

namespace ik::server {

// The poses of one tick character, reused by the characters of a thread:
// the incoming pose, and the one its jobs work on.
struct TickPoses {
  DensePose incoming;
  DensePose pose;
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

// The pose check on the claimed pose `claimed` (raw): its report into
// `answer`, the repaired pose into `repaired` (as the jobs read it).
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
  PoseCheckToProto(rig, violations, repaired, answer);
  // The repaired rotations enter the jobs as a caller's would that sent
  // them in a single call (divided by their norm), as each job's answer
  // enters the next; a rotation only normalised is the caller's own, read.
  for (const int j : RepairedRotations(violations)) {
    Quat& rotation = repaired.locals[j].rotation;
    rotation = rotation / Norm(rotation);
  }
  return absl::OkStatus();
}

// "characters[<index>]<job>": paths are built for errors only.
std::string CharacterPath(int index, absl::string_view job) {
  return absl::StrCat("characters[", index, "]", job);
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

}  // namespace

// A tick's characters as read before any runs: parsed (on the call's arena,
// kept for the run), made complete from their baselines (`status`: why one
// cannot run), and the work each may take.
struct ReadTick {
  explicit ReadTick(int count)
      : arena(Options()),
        characters(count),
        parsed(count),
        status(count),
        work(count) {}
  // Blocks of up to 1 MiB: a tick of 1,000 characters takes a few
  // megabytes, in a few allocations.
  static google::protobuf::ArenaOptions Options() {
    google::protobuf::ArenaOptions options;
    options.start_block_size = 64 << 10;
    options.max_block_size = 1 << 20;
    return options;
  }
  google::protobuf::Arena arena;
  std::vector<v1::TickCharacter*> characters;
  std::vector<char> parsed;
  std::vector<absl::Status> status;
  std::vector<std::int64_t> work;
};

namespace {

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
  std::vector<std::int64_t> work(count);
  scope.pool->ParallelFor(scope.client, count, [&](int k) {
    const v1::TickCharacter& character = request.characters(k);
    if (WithoutBaseline(character).ok()) {
      work[k] = CharacterWork(character, k, tick);
    }
  });
  if (absl::Status within = WithinCallBudget(work); !within.ok()) {
    return within;
  }
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
  TickUses uses(scope.uses, count, tick);
  ReadTick read(count);
  ReadCharacters(request, tick, scope, baselines, read);
  if (absl::Status within = WithinCallBudget(read.work); !within.ok()) {
    uses.HandOver(shared);
    return within;
  }
  scope.pool->ParallelFor(scope.client, count, [&](int k) {
    // The answer on this thread's arena, emptied after each: its first
    // block is the thread's own, so an answer allocates nothing (a
    // Clear()ed message would free and allocate its parts).
    thread_local const std::unique_ptr<CharacterArena> arena =
        std::make_unique<CharacterArena>();
    arena->arena.Reset();
    auto& out =
        *google::protobuf::Arena::CreateMessage<v1::TickCharacterResult>(
            &arena->arena);
    const v1::TickCharacter& character = *read.characters[k];
    if (read.status[k].ok()) {
      TickCharacter(character, k, tick, scope, out);
      if (baselines != nullptr) baselines->Keep(k, character, out);
    } else {
      if (read.parsed[k]) out.set_id(character.id());
      StatusToProto(Rooted(read.status[k], CharacterPath(k, "")),
                    *out.mutable_status());
    }
    out.SerializeToString(response.mutable_characters(k));
  });
  if (baselines != nullptr) baselines->End();
  uses.HandOver(shared);
  return absl::OkStatus();
}

void IkHandlers::ReadCharacters(const wire::TickRequestBytes& request,
                                const TickSettings& tick,
                                const CallScope& scope,
                                TickBaselines* baselines,
                                ReadTick& read) const {
  scope.pool->ParallelFor(scope.client, request.characters_size(), [&](int k) {
    read.characters[k] =
        google::protobuf::Arena::CreateMessage<v1::TickCharacter>(&read.arena);
    v1::TickCharacter& character = *read.characters[k];
    const std::string& bytes = request.characters(k);
    read.parsed[k] = character.ParseFromString(bytes);
    read.status[k] =
        !read.parsed[k]
            ? InvalidField(
                  "",
                  absl::StrCat("its ", bytes.size(), " bytes do not parse as ",
                               v1::TickCharacter::descriptor()->full_name()))
        : baselines != nullptr ? baselines->Apply(character)
                               : WithoutBaseline(character);
    if (read.status[k].ok()) read.work[k] = CharacterWork(character, k, tick);
  });
}

std::int64_t IkHandlers::CharacterWork(const v1::TickCharacter& character,
                                       int index,
                                       const TickSettings& tick) const {
  absl::StatusOr<std::shared_ptr<const RigEntry>> entry =
      PinnedRig(character.rig(), character.revision());
  if (!entry.ok()) return 0;  // refused when it runs
  // The jobs read as RunCharacter reads them, on a pose they never touch,
  // their answers into a scratch result.
  thread_local DensePose unused;
  thread_local v1::TickCharacterResult scratch;
  thread_local std::optional<RequestGround> own_ground;
  CharacterJobs& jobs = CharacterJobs::ForThisThread();
  jobs.Start(**entry, unused, tick.form, /*read_back=*/false, limits_,
             counters_);
  jobs.CountOnly();
  AddCharacterJobs(character, tick, own_ground, jobs, scratch);
  if (tick.character_uses != nullptr) {
    CharacterUses& uses = tick.character_uses[index];
    uses.counted_rig = *std::move(entry);
    if (own_ground.has_value()) {
      uses.counted_terrains = own_ground->TakeTerrains();
    }
  }
  own_ground.reset();
  scratch.Clear();
  // A character over its own budget is refused alone, and runs nothing.
  return jobs.WithinCharacterBudget().ok() ? jobs.work() : 0;
}

absl::Status IkHandlers::WithinCallBudget(
    absl::Span<const std::int64_t> work) const {
  std::int64_t total = 0;
  for (const std::int64_t character : work) total += character;
  if (total <= limits_.max_work_per_call) return absl::OkStatus();
  return FieldError(
      absl::StatusCode::kResourceExhausted, "characters",
      absl::StrCat("the tick's work, ", total, " summed over its ", work.size(),
                   " characters, exceeds the limit of ",
                   limits_.max_work_per_call,
                   " per call (ikd --max_work_per_call); nothing ran"));
}

void IkHandlers::RunCharacter(const v1::TickCharacter& character, int index,
                              const TickSettings& tick,
                              v1::TickCharacterResult& out) const {
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
  CharacterUses* uses =
      tick.character_uses != nullptr ? &tick.character_uses[index] : nullptr;
  if (uses != nullptr) uses->rig = *std::move(entry);  // rig_entry stays
  thread_local TickPoses poses;
  if (!StartCharacterPose(character, index, rig_entry.rig(), poses, out)) {
    return;
  }
  CharacterJobs& jobs = CharacterJobs::ForThisThread();
  jobs.Start(rig_entry, poses.pose, tick.form, /*read_back=*/true, limits_,
             counters_);
  // A character's own ground, converted for this character only.
  thread_local std::optional<RequestGround> own_ground;
  own_ground.reset();
  const CharacterJobStatuses added =
      AddCharacterJobs(character, tick, own_ground, jobs, out);
  // Its terrains unpinned when it is done with (kept when recorded).
  const auto release_ground = [&] {
    if (uses != nullptr && own_ground.has_value()) {
      uses->terrains = own_ground->TakeTerrains();
    }
    own_ground.reset();
  };
  if (absl::Status within = jobs.WithinCharacterBudget(); !within.ok()) {
    // Refused before any of its work: no job ran.
    release_ground();
    out.clear_ground();
    out.clear_goals();
    out.clear_dynamics();
    StatusToProto(Rooted(within, CharacterPath(index, "")),
                  *out.mutable_status());
    return;
  }
  jobs.Run();
  CharacterJobOutcomes(index, added, jobs, out);
  release_ground();
  if (!character.has_compact_pose()) {
    TickPoseToProto(poses.incoming, poses.pose, out);
    return;
  }
  CompactPoseToProto(poses.incoming, poses.pose,
                     EncodingOf(character.compact_pose()),
                     *out.mutable_compact_pose());
  if (out.has_dynamics()) StatesToFloats(*out.mutable_dynamics());
}

CharacterJobStatuses IkHandlers::AddCharacterJobs(
    const v1::TickCharacter& character, const TickSettings& tick,
    std::optional<RequestGround>& own_ground, CharacterJobs& jobs,
    v1::TickCharacterResult& out) const {
  // With TICK_DETAIL_POSE, grounding's and the goals' answers are not
  // written at all.
  const bool pose_only = tick.detail == v1::TICK_DETAIL_POSE;
  CharacterJobStatuses added;
  if (character.has_ground()) {
    const v1::GroundFeetRequest& ground = character.ground();
    added.ground =
        RequireUnsetInJob(ground.rig(), ground.revision(), ground.has_pose());
    const RequestGround* used = tick.shared_ground;
    if (added.ground.ok() && ground.has_ground()) {
      added.ground = own_ground.emplace().Build(ground.ground(), terrains_,
                                                limits_, "ground");
      used = &*own_ground;
    } else if (added.ground.ok() && used == nullptr) {
      added.ground = InvalidField(
          "ground", "required: the tick has no shared_ground either");
    }
    if (added.ground.ok()) {
      added.ground = jobs.AddGrounding(
          ground, *used, pose_only ? nullptr : out.mutable_ground());
    }
  }
  if (character.goals_size() > 0) {
    added.goals = jobs.AddGoals(character.goals(),
                                pose_only ? nullptr : out.mutable_goals());
  }
  if (character.has_dynamics()) {
    const v1::StepDynamicsRequest& dynamics = character.dynamics();
    added.dynamics = RequireUnsetInJob(dynamics.rig(), dynamics.revision(),
                                       dynamics.has_pose());
    if (added.dynamics.ok()) {
      added.dynamics = jobs.AddDynamics(dynamics, *out.mutable_dynamics());
    }
  }
  return added;
}

void IkHandlers::CharacterJobOutcomes(int index,
                                      const CharacterJobStatuses& added,
                                      const CharacterJobs& jobs,
                                      v1::TickCharacterResult& out) const {
  // A job that could not be added did not run: its own error stands.
  const absl::Status ground =
      added.ground.ok() ? jobs.grounding_status() : added.ground;
  if (!ground.ok()) {
    out.clear_ground();
    StatusToProto(Rooted(ground, CharacterPath(index, ".ground")),
                  *out.mutable_ground_status());
  }
  const absl::Status goals =
      added.goals.ok() ? jobs.goals_status() : added.goals;
  if (!goals.ok()) {
    out.clear_goals();
    StatusToProto(Rooted(goals, CharacterPath(index, "")),
                  *out.mutable_goals_status());
  }
  const absl::Status dynamics =
      added.dynamics.ok() ? jobs.dynamics_status() : added.dynamics;
  if (!dynamics.ok()) {
    out.clear_dynamics();
    StatusToProto(Rooted(dynamics, CharacterPath(index, ".dynamics")),
                  *out.mutable_dynamics_status());
  }
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

}  // namespace ik::server
