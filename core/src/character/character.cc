#include "ik/character/character.h"

#include <utility>

namespace ik {

absl::StatusOr<Character> Character::Create(CharacterDefinition definition) {
  absl::StatusOr<Rig> rig = Rig::Create(std::move(definition.rig));
  if (!rig.ok()) return rig.status();
  absl::StatusOr<std::vector<Leg>> legs = BuildLegs(*rig, definition.legs);
  if (!legs.ok()) return legs.status();
  absl::StatusOr<std::vector<AttachedCollider>> colliders =
      BuildColliders(*rig, definition.colliders);
  if (!colliders.ok()) return colliders.status();
  absl::StatusOr<std::vector<DynamicChainBinding>> dynamic_chains =
      BuildDynamicChains(*rig, *colliders, definition.dynamic_chains);
  if (!dynamic_chains.ok()) return dynamic_chains.status();
  return Character{*std::move(rig), *std::move(legs), *std::move(colliders),
                   *std::move(dynamic_chains)};
}

}  // namespace ik
