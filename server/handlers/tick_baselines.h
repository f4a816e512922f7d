// What a TickStream keeps of its previous tick, so the next tick's
// characters may leave out what did not change (ik.v1
// TickCharacter.baseline): per character id, its rig and revision, its
// compact pose's rotations (all of them, in the encoding sent) and
// translations, and the dynamics states its answer gave -- the numbers a
// caller would send back, so a character built on its baseline is answered
// as the complete character would be, bit for bit.
//
// One tick at a time: Begin, then Apply and Keep for each character (on
// any thread, each index once), then End.
#ifndef IK_SERVER_HANDLERS_TICK_BASELINES_H_
#define IK_SERVER_HANDLERS_TICK_BASELINES_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "ik/v1/tick.pb.h"

namespace ik::server {

class TickBaselines {
 public:
  // Before tick `sequence` of `count` characters: with `resync`, the
  // baselines kept so far are dropped.
  void Begin(std::uint64_t sequence, bool resync, int count);

  // Character `index` of the tick made complete from its baseline when it
  // names one: rig and revision filled in, the rotations of joints it left
  // out taken from the baseline, its translations and dynamics states too
  // when it sent none. An error (rooted at the character, e.g.
  // "baseline", "compact_pose.joints[2]") when it names a baseline the
  // stream does not keep or does not fit it; `character` may then be half
  // filled.
  absl::Status Apply(v1::TickCharacter& character) const;

  // Keeps character `index`'s baseline for the next tick when it was
  // answered (`out` without a character-level error) and sent as a compact
  // pose: a copy of its pose and of the dynamics states in `out`, which
  // are then cleared from `out` when the character named a baseline (the
  // stream keeps them, the answer leaves them out).
  void Keep(int index, const v1::TickCharacter& character,
            v1::TickCharacterResult& out);

  // After the tick: its kept characters become the baselines of the next.
  void End();

 private:
  struct Baseline {
    bool kept = false;
    std::string id;
    std::string rig;
    std::string revision;
    // The complete compact pose sent (rotations of every joint it gives,
    // its translations; no root, no joint list).
    v1::CompactPose pose;
    // The states the answer gave, one per chain stepped.
    std::vector<v1::DynamicChainState> states;
  };

  // The baseline `character` names, or why there is none.
  absl::StatusOr<const Baseline*> Find(
      const v1::TickCharacter& character) const;

  std::uint64_t sequence_ = 0;
  // The previous tick's sequence, its characters' baselines and their
  // index by id; `current_` collects this tick's.
  bool has_previous_ = false;
  std::uint64_t previous_sequence_ = 0;
  std::vector<Baseline> previous_;
  absl::flat_hash_map<std::string, int> by_id_;
  std::vector<Baseline> current_;
};

}  // namespace ik::server

#endif  // IK_SERVER_HANDLERS_TICK_BASELINES_H_
