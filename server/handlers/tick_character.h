// A tick's characters in chunks (tick_character.cc): what a character
// holds from its start to its finish, and how many characters a chunk
// takes. Internal to IkHandlers::Tick.
#ifndef IK_SERVER_HANDLERS_TICK_CHARACTER_H_
#define IK_SERVER_HANDLERS_TICK_CHARACTER_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "convert/values.h"
#include "handlers/character_jobs.h"
#include "handlers/handlers.h"
#include "handlers/request_ground.h"
#include "handlers/tick_uses.h"
#include "ik/v1/ik.pb.h"
#include "rpc/solver_pool.h"
#include "state/rig_registry.h"

namespace ik::server {

// The poses of one tick character, reused by the characters of a thread:
// the incoming pose, and the one its jobs work on.
struct TickPoses {
  DensePose incoming;
  DensePose pose;
};

// What a tick character holds from its start to its finish, reused by the
// characters of a thread (one slot per character of a chunk).
struct TickSlot {
  TickPoses poses;
  // Its own ground, converted for it only.
  std::optional<RequestGround> own_ground;
  CharacterJobStatuses added;
  // Its rig: `pinned` holds it unless the call records its uses.
  std::shared_ptr<const RigEntry> pinned;
  const RigEntry* entry = nullptr;
  CharacterUses* uses = nullptr;
  CharacterJobs* jobs = nullptr;
};

// A character of a chunk and where its answer goes; no character: answered
// already.
struct TickChunkEntry {
  const v1::TickCharacter* character = nullptr;
  v1::TickCharacterResult* out = nullptr;
};

// "characters[<index>]<job>": paths are built for errors only.
std::string CharacterPath(int index, absl::string_view job);

// How many characters of a tick run side by side: four when every solver
// thread still gets several chunks and no character's `work` is more than
// kChunkedCharacterWork, else one at a time (a small tick keeps its spread
// over the threads; a heavy character is a piece of its own, between which
// the tick gives way to other callers).
int CharactersPerChunk(int count, const SolverPool& pool,
                       absl::Span<const std::int64_t> work);

// The most work (work.h) a character of a four-character chunk may ask: a
// chunk is one piece of the tick, about a millisecond at most.
inline constexpr std::int64_t kChunkedCharacterWork = 65536;

}  // namespace ik::server

#endif  // IK_SERVER_HANDLERS_TICK_CHARACTER_H_
