// One StepDynamics step of a rig's dynamic chain from a whole animated pose:
// forward kinematics in world space, the chain's colliders placed on their
// joints, the step (ik/dynamics/dynamics.h), and the simulated local rotations.
//
//   ik::RigDynamicsStep step;
//   step.rig = &rig;
//   step.chain = rig.FindDynamicChain("ponytail");
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
#include "ik/dynamics/dynamics.h"
#include "ik/rig/rig.h"

namespace ik {

struct RigDynamicsStep {
  const Rig* rig = nullptr;
  // One of rig->dynamic_chains().
  const DynamicChainBinding* chain = nullptr;
  // World transforms of every rig joint in the animated pose (forward
  // kinematics with the character's root applied).
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
  // rotation (animated local rotation times the simulation's correction).
  absl::Span<Quat> rotations_local;
  DynamicsReport* report = nullptr;

  // INVALID_ARGUMENT naming the field for spans of the wrong size or null
  // pointers; the step's own errors (StepDynamicsJob::Validate) otherwise,
  // e.g. "state.positions[2]: not finite", "wind.strength: ...".
  absl::Status Run() const;
};

}  // namespace ik

#endif  // IK_RIG_DYNAMICS_H_
