// The rigs and terrains a call used, as the registry entries it ran on: a
// recording (ops/recorder.h) stores exactly these with the call, whatever
// was registered since.
#ifndef IK_SERVER_STATE_CALL_USES_H_
#define IK_SERVER_STATE_CALL_USES_H_

#include <algorithm>
#include <memory>
#include <vector>

#include "state/rig_registry.h"
#include "state/terrain_registry.h"

namespace ik::server {

struct CallUses {
  std::vector<std::shared_ptr<const RigEntry>> rigs;
  std::vector<std::shared_ptr<const TerrainEntry>> terrains;

  // Each added once (by entry: two revisions of a rig are two entries).
  void Add(const std::shared_ptr<const RigEntry>& rig) { AddOnce(rigs, rig); }
  void Add(const std::shared_ptr<const TerrainEntry>& terrain) {
    AddOnce(terrains, terrain);
  }
  void Add(const std::vector<std::shared_ptr<const TerrainEntry>>& used) {
    for (const auto& terrain : used) AddOnce(terrains, terrain);
  }

 private:
  template <typename Entry>
  static void AddOnce(std::vector<std::shared_ptr<const Entry>>& held,
                      const std::shared_ptr<const Entry>& entry) {
    if (entry == nullptr ||
        std::find(held.begin(), held.end(), entry) != held.end()) {
      return;
    }
    held.push_back(entry);
  }
};

}  // namespace ik::server

#endif  // IK_SERVER_STATE_CALL_USES_H_
