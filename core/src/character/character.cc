#include "ik/character/character.h"

#include <utility>
#include <vector>

namespace ik {
namespace {

// Character::dynamics_joints: the chains' joints and those of the colliders
// they use, with their ancestors, ascending.
std::vector<int> DynamicsJoints(const Character& character) {
  const Rig& rig = character.rig;
  std::vector<bool> needed(rig.joint_count(), false);
  const auto need = [&](int joint) {
    for (int j = joint; j != kNoParent && !needed[j]; j = rig.parents()[j]) {
      needed[j] = true;
    }
  };
  for (const DynamicChainBinding& chain : character.dynamic_chains) {
    for (const int joint : chain.joints) need(joint);
    for (const int collider : chain.colliders) {
      need(character.colliders[collider].joint);
    }
  }
  std::vector<int> joints;
  for (int j = 0; j < rig.joint_count(); ++j) {
    if (needed[j]) joints.push_back(j);
  }
  return joints;
}

}  // namespace

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
  Character character{*std::move(rig), *std::move(legs), *std::move(colliders),
                      *std::move(dynamic_chains),
                      /*dynamics_joints=*/{}};
  character.dynamics_joints = DynamicsJoints(character);
  return character;
}

}  // namespace ik
