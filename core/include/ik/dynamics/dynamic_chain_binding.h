// Dynamic chains of a rig, by name: a character's part that the dynamics
// step simulates (ik/dynamics/rig_dynamics.h). BuildDynamicChains checks
// them against the rig and its colliders and builds each chain's joints
// from the rig's rest pose.
#ifndef IK_DYNAMIC_CHAIN_BINDING_H_
#define IK_DYNAMIC_CHAIN_BINDING_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "ik/dynamics/attached_colliders.h"
#include "ik/dynamics/dynamic_chain.h"
#include "ik/dynamics/prepared_dynamic_chain.h"
#include "ik/rig/rig.h"

namespace ik {

// Per-joint settings of a dynamic chain that replace the chain's, by name.
struct DynamicJointSettings {
  std::string joint;             // joint name, simulated by the chain
  std::optional<double> radius;  // replaces DynamicChainDefinition::radius
  DynamicJointOverrides overrides;
};

// A dynamic chain by names: `root` is driven by the animation and every
// joint below it (branches included) is simulated
// (ik/dynamics/dynamic_chain.h).
struct DynamicChainDefinition {
  std::string name;
  std::string root;  // joint name; must have at least one descendant
  // Per-chain parameters (drag, gravity, stiffness, rotation blend, twist
  // removal, wind, substep, substep cap, teleport distance). Its `joints`
  // are ignored: BuildDynamicChains builds them from the rig (rest bone
  // lengths).
  DynamicChain settings;
  // Collision radius of every simulated joint, metres, unless overridden.
  double radius = 0.0;
  std::vector<DynamicJointSettings> joints;
  // Names of the character's colliders this chain collides with (each
  // once); an empty list: none.
  std::vector<std::string> colliders;
};

// A validated dynamic chain: `joints` are rig indices parallel to
// chain.joints (joints[0] the driving root, parents before children);
// `colliders` index the character's colliders (BuildColliders).
struct DynamicChainBinding {
  std::string name;
  std::vector<int> joints;
  DynamicChain chain;
  std::vector<int> colliders;
  // Parallel to `joints`: whether a step turns the joint, i.e. it has a
  // simulated child (a leaf keeps its animated rotation).
  std::vector<bool> turns;
  // `chain` prepared once (BuildDynamicChains fills it), so that a step
  // need not validate and lay it out again; RigDynamicsStep uses `chain`
  // when it is empty. Whoever changes `chain` afterwards re-creates it (or
  // empties it).
  PreparedDynamicChain prepared;
};

// Validates `definitions` against `rig` and `colliders` (the character's,
// from BuildColliders) and builds them, in order. Checks: names
// (ValidateName) unique among the dynamic chains; a root of the rig with
// descendants (none sitting on its parent, at most kMaxDynamicJoints in
// all); parameters in range; per-joint settings for joints of the chain and
// colliders of the character, each listed once. Errors name
// "dynamic_chains[i].<field>": INVALID_ARGUMENT, NOT_FOUND for a joint or
// collider that does not exist, RESOURCE_EXHAUSTED for too many joints.
absl::StatusOr<std::vector<DynamicChainBinding>> BuildDynamicChains(
    const Rig& rig, absl::Span<const AttachedCollider> colliders,
    absl::Span<const DynamicChainDefinition> definitions);

// The chain called `name` among `chains`, or nullptr.
const DynamicChainBinding* FindDynamicChain(
    absl::Span<const DynamicChainBinding> chains, absl::string_view name);

}  // namespace ik

#endif  // IK_DYNAMIC_CHAIN_BINDING_H_
