// IkHandlers::Tick: every character's jobs (grounding, goals, dynamics) on
// its own pose, the characters spread over the solver pool in chunks. A
// character's jobs run through the core's per-character sequence
// (CharacterJobs, a TickBatchJob): a failed job leaves the pose as it found
// it and fails alone. A large tick's chunks hold four characters, and those
// of one rig run side by side (CharacterJobs::RunGroup), their two-bone
// solves in SIMD lanes, each with the bits it gets alone.
#include <algorithm>
#include <array>
#include <atomic>
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
#include "handlers/tick_character.h"
#include "handlers/tick_uses.h"
#include "ik/base/field_error.h"
#include "ik/rig/pose_check.h"
#include "rpc/core_time.h"
#include "rpc/solver_pool.h"

namespace ik::server {

namespace {
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
  // The answer's bytes written so far, over all threads; once past the
  // limit no more characters run and the tick is refused.
  mutable std::atomic<std::int64_t> answer_bytes{0};
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
  const int chunk = CharactersPerChunk(count, *scope.pool, work);
  scope.pool->ParallelFor(
      scope.client, (count + chunk - 1) / chunk, [&](int c) {
        const int first = c * chunk;
        TickChunkEntry entries[kTickGroupCharacters];
        const int size = std::min(chunk, count - first);
        for (int j = 0; j < size; ++j) {
          const int k = first + j;
          const v1::TickCharacter& character = request.characters(k);
          v1::TickCharacterResult& out = *response.mutable_characters(k);
          if (absl::Status status = WithoutBaseline(character); !status.ok()) {
            out.set_id(character.id());
            StatusToProto(Rooted(status, CharacterPath(k, "")),
                          *out.mutable_status());
            continue;
          }
          entries[j] = {&character, &out};
        }
        RunTickChunk(absl::MakeConstSpan(entries, size), first, tick, scope);
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
  const int chunk = CharactersPerChunk(count, *scope.pool, read.work);
  scope.pool->ParallelFor(
      scope.client, (count + chunk - 1) / chunk, [&](int c) {
        const int first = c * chunk;
        RunReadChunk(read, first, std::min(chunk, count - first), tick, scope,
                     baselines, response);
      });
  uses.HandOver(shared);
  // A refused tick keeps no baselines, as one refused for its work.
  if (absl::Status within = WithinAnswerLimit(read.answer_bytes.load());
      !within.ok()) {
    return within;
  }
  if (baselines != nullptr) baselines->End();
  return absl::OkStatus();
}

absl::Status IkHandlers::WithinAnswerLimit(std::int64_t bytes) const {
  if (bytes <= limits_.max_answer_bytes) return absl::OkStatus();
  return FieldError(
      absl::StatusCode::kResourceExhausted, "characters",
      absl::StrCat("the tick's answer exceeds the limit of ",
                   limits_.max_answer_bytes,
                   " bytes per answer (ikd --max_answer_bytes): its "
                   "characters' answers passed it after ",
                   bytes, " bytes; send fewer characters or less detail"));
}

void IkHandlers::RunReadChunk(const ReadTick& read, int first, int size,
                              const TickSettings& tick, const CallScope& scope,
                              TickBaselines* baselines,
                              wire::TickResponseBytes& response) const {
  // The answers on this thread's arenas, emptied after each chunk: each
  // one's first block is the thread's own, so an answer allocates nothing
  // (a Clear()ed message would free and allocate its parts).
  thread_local std::array<std::unique_ptr<CharacterArena>, kTickGroupCharacters>
      arenas;
  // An answer past its limit is refused whole: nothing more is built.
  if (read.answer_bytes.load(std::memory_order_relaxed) >
      limits_.max_answer_bytes) {
    return;
  }
  TickChunkEntry entries[kTickGroupCharacters];
  v1::TickCharacterResult* outs[kTickGroupCharacters];
  for (int j = 0; j < size; ++j) {
    const int k = first + j;
    if (arenas[j] == nullptr) arenas[j] = std::make_unique<CharacterArena>();
    arenas[j]->arena.Reset();
    outs[j] = google::protobuf::Arena::CreateMessage<v1::TickCharacterResult>(
        &arenas[j]->arena);
    if (read.status[k].ok()) {
      entries[j] = {read.characters[k], outs[j]};
      continue;
    }
    if (read.parsed[k]) outs[j]->set_id(read.characters[k]->id());
    StatusToProto(Rooted(read.status[k], CharacterPath(k, "")),
                  *outs[j]->mutable_status());
  }
  RunTickChunk(absl::MakeConstSpan(entries, size), first, tick, scope);
  for (int j = 0; j < size; ++j) {
    const int k = first + j;
    if (read.status[k].ok() && baselines != nullptr) {
      baselines->Keep(k, *read.characters[k], *outs[j]);
    }
    std::string& bytes = *response.mutable_characters(k);
    outs[j]->SerializeToString(&bytes);
    if (read.answer_bytes.fetch_add(static_cast<std::int64_t>(bytes.size()),
                                    std::memory_order_relaxed) +
            static_cast<std::int64_t>(bytes.size()) >
        limits_.max_answer_bytes) {
      std::string().swap(bytes);  // the tick is refused: free it now
    }
  }
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

}  // namespace ik::server
