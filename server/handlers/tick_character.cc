// A tick's characters in chunks (IkHandlers::RunTickChunk): each started
// (its rig, its pose read and checked, its jobs added), the started
// characters of one rig run side by side, each finished (its jobs'
// outcomes, its answer pose).
#include "handlers/tick_character.h"

#include <array>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "convert/compact_pose.h"
#include "convert/tick.h"
#include "ik/base/field_error.h"
#include "ik/rig/pose_check.h"
#include "rpc/core_time.h"

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

// The pose check on the claimed pose `claimed` (raw): its report into
// `answer`, the repaired pose into `repaired` (as the jobs read it). A
// joint the check did not repair then has its claimed rotation made unit
// (Unit) in `claimed` too: the final pose, which lists the joints whose
// rotation differs from `claimed`'s, lists a joint for its repair or a
// job's change, never for normalisation alone.
absl::Status CheckPose(const Rig& rig, const v1::PoseCheck& check,
                       DensePose& claimed, DensePose& repaired,
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
  // A repaired rotation made unit (Unit) before it is reported: the jobs
  // read it as a single call would read it from check.rotations, to the
  // bit, and a joint no job moves ends with exactly the repair's bits.
  thread_local std::vector<bool> was_repaired;
  was_repaired.assign(claimed.locals.size(), false);
  for (const int j : RepairedRotations(violations)) {
    Quat& rotation = repaired.locals[j].rotation;
    rotation = Unit(rotation);
    was_repaired[j] = true;
  }
  for (size_t j = 0; j < claimed.locals.size(); ++j) {
    if (!was_repaired[j]) {
      claimed.locals[j].rotation = repaired.locals[j].rotation;
    }
  }
  PoseCheckToProto(rig, violations, repaired, answer);
  return absl::OkStatus();
}

// A character done with: its own ground's terrains unpinned
// (kept in its uses when the call is recorded), and its rig unless
// recorded.
void ReleaseCharacter(TickSlot& slot) {
  if (slot.uses != nullptr && slot.own_ground.has_value()) {
    slot.uses->terrains = slot.own_ground->TakeTerrains();
  }
  slot.own_ground.reset();
  slot.pinned.reset();
}

}  // namespace

std::string CharacterPath(int index, absl::string_view job) {
  return absl::StrCat("characters[", index, "]", job);
}

int CharactersPerChunk(int count, const SolverPool& pool,
                       absl::Span<const std::int64_t> work) {
  if (count < 2 * static_cast<int>(kTickGroupCharacters) * pool.threads()) {
    return 1;
  }
  for (const std::int64_t character : work) {
    if (character > kChunkedCharacterWork) return 1;
  }
  return static_cast<int>(kTickGroupCharacters);
}

void IkHandlers::RunTickChunk(absl::Span<const TickChunkEntry> entries,
                              int first, const TickSettings& tick,
                              const CallScope& scope) const {
  thread_local std::array<TickSlot, kTickGroupCharacters> slots;
  bool started[kTickGroupCharacters] = {};
  for (size_t j = 0; j < entries.size(); ++j) {
    const TickChunkEntry& entry = entries[j];
    if (entry.character == nullptr) continue;
    const int index = first + static_cast<int>(j);
    if (const absl::Status stopped = scope.stopped(); !stopped.ok()) {
      entry.out->set_id(entry.character->id());
      StatusToProto(
          FieldError(stopped.code(), CharacterPath(index, ""),
                     "the call was cancelled or passed its deadline before "
                     "this character ran"),
          *entry.out->mutable_status());
      continue;
    }
    started[j] =
        StartCharacter(*entry.character, index, tick, slots[j], j, *entry.out);
  }
  // The started characters of each rig together.
  bool ran[kTickGroupCharacters] = {};
  for (size_t j = 0; j < entries.size(); ++j) {
    if (!started[j] || ran[j]) continue;
    CharacterJobs* group[kTickGroupCharacters];
    size_t count = 0;
    for (size_t i = j; i < entries.size(); ++i) {
      if (started[i] && !ran[i] && slots[i].entry == slots[j].entry) {
        group[count++] = slots[i].jobs;
        ran[i] = true;
      }
    }
    CharacterJobs::RunGroup(absl::MakeConstSpan(group, count));
  }
  for (size_t j = 0; j < entries.size(); ++j) {
    if (!started[j]) continue;
    FinishCharacter(*entries[j].character, first + static_cast<int>(j),
                    slots[j], *entries[j].out);
  }
}

bool IkHandlers::StartCharacter(const v1::TickCharacter& character, int index,
                                const TickSettings& tick, TickSlot& slot,
                                size_t number,
                                v1::TickCharacterResult& out) const {
  out.set_id(character.id());
  absl::StatusOr<std::shared_ptr<const RigEntry>> entry =
      PinnedRig(character.rig(), character.revision());
  if (!entry.ok()) {
    StatusToProto(Rooted(entry.status(), CharacterPath(index, "")),
                  *out.mutable_status());
    return false;
  }
  slot.entry = entry->get();
  const RigEntry& rig_entry = *slot.entry;
  out.set_revision(rig_entry.revision);
  slot.uses =
      tick.character_uses != nullptr ? &tick.character_uses[index] : nullptr;
  // The rig stays pinned till the character is done: by its uses when the
  // call is recorded, else by the slot.
  if (slot.uses != nullptr) {
    slot.uses->rig = *std::move(entry);
  } else {
    slot.pinned = *std::move(entry);
  }
  if (!StartCharacterPose(character, index, rig_entry.rig(), slot.poses, out)) {
    slot.pinned.reset();
    return false;
  }
  slot.jobs = &CharacterJobs::ForThisThread(number);
  slot.jobs->Start(rig_entry, slot.poses.pose, tick.form, /*read_back=*/true,
                   limits_, counters_);
  slot.own_ground.reset();
  slot.added =
      AddCharacterJobs(character, tick, slot.own_ground, *slot.jobs, out);
  if (absl::Status within = slot.jobs->WithinCharacterBudget(); !within.ok()) {
    // Refused before any of its work: no job ran.
    ReleaseCharacter(slot);
    out.clear_ground();
    out.clear_goals();
    out.clear_dynamics();
    StatusToProto(Rooted(within, CharacterPath(index, "")),
                  *out.mutable_status());
    return false;
  }
  return true;
}

void IkHandlers::FinishCharacter(const v1::TickCharacter& character, int index,
                                 TickSlot& slot,
                                 v1::TickCharacterResult& out) const {
  CharacterJobOutcomes(index, slot.added, *slot.jobs, out);
  ReleaseCharacter(slot);
  const TickPoses& poses = slot.poses;
  if (!character.has_compact_pose()) {
    TickPoseToProto(poses.incoming, poses.pose, out);
  } else {
    CompactPoseToProto(poses.incoming, poses.pose,
                       EncodingOf(character.compact_pose()),
                       *out.mutable_compact_pose());
    if (out.has_dynamics()) StatesToFloats(*out.mutable_dynamics());
  }
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
