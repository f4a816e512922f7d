// Colliders attached to the joints of a rig, by name: a character's part
// that its dynamic chains collide with (ik/dynamics/dynamic_chain_binding.h).
// BuildColliders checks them against the rig and resolves the joints.
#ifndef IK_ATTACHED_COLLIDERS_H_
#define IK_ATTACHED_COLLIDERS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "ik/dynamics/colliders.h"
#include "ik/rig/rig.h"

namespace ik {

// A sphere or capsule attached to a joint of a rig (ik/dynamics/colliders.h):
// its shape in the joint's space. Dynamic chains collide with them.
struct ColliderDefinition {
  std::string name;
  std::string joint;  // joint name
  Collider shape;     // points in the joint's local space, metres
  // Which form the definition took: a sphere (errors name "sphere.center"
  // and "sphere.radius") or a capsule ("capsule.start", ".end", ".radius").
  bool sphere = false;
};

// A validated collider: the joint's index.
struct AttachedCollider {
  std::string name;
  int joint = -1;
  Collider shape;
};

// Validates `definitions` against `rig` and resolves their joints, in
// order. Checks: names (ValidateName) unique among the colliders, a joint
// of the rig, a valid shape (ValidateCollider). Errors name
// "colliders[i].<field>" ("colliders[0].sphere.radius: ..."):
// INVALID_ARGUMENT, or NOT_FOUND for a joint the rig lacks.
absl::StatusOr<std::vector<AttachedCollider>> BuildColliders(
    const Rig& rig, absl::Span<const ColliderDefinition> definitions);

}  // namespace ik

#endif  // IK_ATTACHED_COLLIDERS_H_
