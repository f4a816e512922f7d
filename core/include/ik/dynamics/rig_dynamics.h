// One StepDynamics step of a rig's dynamic chain from a whole animated pose:
// forward kinematics in world space, the chain's colliders placed on their
// joints, the step (ik/dynamics/dynamics.h), and the simulated local rotations.
//
//   ik::RigDynamicsStep step;
//   step.rig = &character.rig;
//   step.colliders = character.colliders;
//   step.chain = character.FindDynamicChain("ponytail");
//   step.models_world = world;  // forward kinematics of the pose, root applied
//   step.locals = locals;       // the animated pose, one per rig joint
//   step.delta_time = 1.0 / 60.0;
//   step.state = &state;        // kept by the caller between steps
//   step.rotations_local = absl::MakeSpan(rotations);  // one per chain joint
//   step.report = &report;
//   absl::Status status = step.Run();
#ifndef IK_RIG_DYNAMICS_H_
#define IK_RIG_DYNAMICS_H_

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "ik/base/math.h"
#include "ik/dynamics/attached_colliders.h"
#include "ik/dynamics/dynamic_chain_binding.h"
#include "ik/dynamics/dynamics.h"
#include "ik/rig/rig.h"

namespace ik {

// Inputs and outputs of one step of one dynamic chain. Owns nothing; Run()
// keeps its scratch on the stack and uses the chain's prepared form
// (DynamicChainBinding::prepared); it allocates only to (re)initialise the
// state, or to copy a chain that has no prepared form when `wind` replaces
// its wind. Thread-compatible: distinct steps with
// distinct states and outputs may run concurrently on one character.
struct RigDynamicsStep {
  // The character's rig, colliders and one of its dynamic chains
  // (BuildDynamicChains on this rig and these colliders); all required and
  // kept alive by the caller while Run() runs.
  const Rig* rig = nullptr;
  absl::Span<const AttachedCollider> colliders;
  const DynamicChainBinding* chain = nullptr;
  // World transforms in the animated pose (forward kinematics with the
  // character's root applied), one entry per rig joint; only the chain's
  // joints' and its colliders' joints' are read, so those of
  // Character::dynamics_joints (Character::DynamicsWorld) suffice.
  absl::Span<const Transform> models_world;
  // The animated local transforms, one per rig joint.
  absl::Span<const Transform> locals;
  // Seconds since the previous step, finite and >= 0.
  double delta_time = 0.0;
  bool reset = false;
  // Optional wind replacing the chain's (validated).
  const WindSettings* wind = nullptr;
  // In and out, as StepDynamicsJob::state; errors about it name
  // "<state_path>...." (StepDynamicsJob::state_path).
  DynamicState* state = nullptr;
  absl::string_view state_path = "state";
  // Output, one per chain joint (chain->joints order): the new local
  // rotation (animated local rotation times the simulation's correction;
  // a joint chain->turns marks false keeps its animated one, normalised).
  absl::Span<Quat> rotations_local;
  // Output; required.
  DynamicsReport* report = nullptr;

  // INVALID_ARGUMENT naming the field for null pointers ("rig: not set"),
  // spans of the wrong size ("locals: 3 transforms for 21 joints") or
  // chain colliders outside `colliders`; RESOURCE_EXHAUSTED for more than
  // kMaxDynamicColliders colliders on the chain; the step's own errors
  // (StepDynamicsJob::Validate) otherwise, e.g. "state.positions[2]: not
  // finite", "wind.strength: ...".
  absl::Status Validate() const;
  // Validates (leaving everything untouched on error), then steps.
  absl::Status Run() const;
};

}  // namespace ik

#endif  // IK_RIG_DYNAMICS_H_
