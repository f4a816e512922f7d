// What a recorded tick used, gathered while it runs (tick_handler.cc).
#ifndef IK_SERVER_HANDLERS_TICK_USES_H_
#define IK_SERVER_HANDLERS_TICK_USES_H_

#include <memory>
#include <optional>
#include <vector>

#include "handlers/handlers.h"
#include "handlers/request_ground.h"
#include "state/call_uses.h"
#include "state/rig_registry.h"
#include "state/terrain_registry.h"

namespace ik::server {

// What one character of a recorded tick used (CallScope::uses): its rig's
// entry and its own ground's terrains, as its work was counted and as it
// ran. Moved in, not copied: recording adds no reference counting to the
// solver threads' work.
struct CharacterUses {
  std::shared_ptr<const RigEntry> counted_rig;
  std::shared_ptr<const RigEntry> rig;
  std::vector<std::shared_ptr<const TerrainEntry>> counted_terrains;
  std::vector<std::shared_ptr<const TerrainEntry>> terrains;
};

// What a recorded tick's characters used (CallScope::uses): each
// character's slot filled as it is counted and as it runs, all handed to
// the call with the shared ground's terrains when the tick is done with
// them, whether it ran or the budget refused it (counted on the same rigs
// and grounds). Nothing when the call is not recorded.
class TickUses {
 public:
  TickUses(CallUses* uses, int count, TickSettings& tick)
      : uses_(uses), characters_(uses != nullptr ? count : 0) {
    if (uses_ != nullptr) tick.character_uses = characters_.data();
  }

  void HandOver(const std::optional<RequestGround>& shared) {
    if (uses_ == nullptr) return;
    if (shared.has_value()) uses_->Add(shared->terrains());
    for (const CharacterUses& used : characters_) {
      uses_->Add(used.counted_rig);
      uses_->Add(used.rig);
      uses_->Add(used.counted_terrains);
      uses_->Add(used.terrains);
    }
  }

 private:
  CallUses* uses_;
  std::vector<CharacterUses> characters_;
};

}  // namespace ik::server

#endif  // IK_SERVER_HANDLERS_TICK_USES_H_
