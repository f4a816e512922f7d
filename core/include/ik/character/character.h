// A character: its rig (the skeleton and its chains) with the parts built
// on it -- legs to ground (ik/ground/leg.h), colliders and dynamic chains to
// simulate (ik/dynamics/attached_colliders.h,
// ik/dynamics/dynamic_chain_binding.h). The top layer of the core: each part
// is validated by its own module against the rig; this only puts them in
// order. What the API calls a rig (ik.v1.Rig) is a character here.
//
//   ik::CharacterDefinition definition;
//   definition.rig.name = "humanoid";
//   definition.rig.joints = {...};
//   definition.legs = {...};
//   absl::StatusOr<ik::Character> character =
//       ik::Character::Create(std::move(definition));
//   if (!character.ok()) return character.status();
//   const ik::Rig& rig = character->rig;
#ifndef IK_CHARACTER_H_
#define IK_CHARACTER_H_

#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "ik/base/math.h"
#include "ik/dynamics/attached_colliders.h"
#include "ik/dynamics/dynamic_chain_binding.h"
#include "ik/ground/leg.h"
#include "ik/rig/rig.h"

namespace ik {

struct CharacterDefinition {
  RigDefinition rig;
  std::vector<LegDefinition> legs;
  std::vector<ColliderDefinition> colliders;
  std::vector<DynamicChainDefinition> dynamic_chains;
};

// A validated character. Plain data built by Create; hold it const (as the
// server's registry does) and it is safe to share between threads.
struct Character {
  // Validates and builds, in this order, the rig (Rig::Create), its legs
  // (BuildLegs), colliders (BuildColliders) and dynamic chains
  // (BuildDynamicChains); the first error is returned, its path relative to
  // the definition ("joints[3].name: ...", "legs[0].knee: ...",
  // "dynamic_chains[0].colliders[1]: ...").
  static absl::StatusOr<Character> Create(CharacterDefinition definition);

  // The dynamic chain called `name`, or nullptr.
  const DynamicChainBinding* FindDynamicChain(absl::string_view name) const {
    return ik::FindDynamicChain(dynamic_chains, name);
  }

  // The world transforms RigDynamicsStep reads (those of dynamics_joints)
  // into `world`, under `locals` and `root`, as LocalToModelJob computes
  // them (the same bits); the other entries of `world` are left as they
  // are. `locals` and `world` hold one transform per rig joint (the
  // caller's to ensure).
  void DynamicsWorld(absl::Span<const Transform> locals, const Transform& root,
                     absl::Span<Transform> world) const {
    const absl::Span<const int> parents = rig.parents();
    for (const int j : dynamics_joints) {
      const int parent = parents[j];
      world[j] = Compose(parent == kNoParent ? root : world[parent], locals[j]);
    }
  }

  Rig rig;
  std::vector<Leg> legs;
  std::vector<AttachedCollider> colliders;
  std::vector<DynamicChainBinding> dynamic_chains;
  // The joints whose world transforms the dynamic chains read (their joints
  // and their colliders' joints) with every ancestor, ascending: parents
  // come before their children, so forward kinematics over this list alone
  // is exact for them (DynamicsWorld). Empty without dynamic chains.
  std::vector<int> dynamics_joints;
};

}  // namespace ik

#endif  // IK_CHARACTER_H_
