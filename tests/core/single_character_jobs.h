// One character's tick through the single job entries, one job at a time,
// each with the buffers a single call sets up for itself: the reference
// TickBatchJob is held to (tests/core/tick_batch_test.cc, bit for bit) and
// measured against (bench/crowd_batch_bench.cc).
#ifndef IK_TESTS_CORE_SINGLE_CHARACTER_JOBS_H_
#define IK_TESTS_CORE_SINGLE_CHARACTER_JOBS_H_

#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "ik/character/tick_batch.h"
#include "ik/dynamics/rig_dynamics.h"
#include "ik/rig/forward_kinematics.h"

namespace ik::testing {

// Grounding, the goals in order, then every dynamic chain stepped on the
// same pose and its rotations set, as TickBatchJob does for `tick`; the
// first job that fails ends it with that job's status.
inline absl::Status RunSingleCharacterJobs(const Character& character,
                                           const Ground& ground,
                                           CharacterTick& tick) {
  const Rig& rig = character.rig;
  if (tick.ground_feet) {
    const std::vector<double> planted(character.legs.size(), 1.0);
    std::vector<FootResult> feet(character.legs.size());
    GroundFeetJob job;
    job.rig = &rig;
    job.legs = character.legs;
    job.root = tick.root;
    job.locals = tick.locals;
    job.pose_path = tick.pose_path;
    job.ground = ground;
    job.weights = tick.leg_weights.empty() ? absl::MakeConstSpan(planted)
                                           : tick.leg_weights;
    job.smoothing = tick.smoothing;
    job.tolerance = tick.ground_tolerance;
    job.feet = absl::MakeSpan(feet);
    job.report = &tick.ground_report;
    if (absl::Status status = job.Run(); !status.ok()) return status;
    std::copy(feet.begin(), feet.end(), tick.feet.begin());
    tick.root.translation += tick.ground_report.root_offset;
  }
  // One per thread, as the handlers keep it (constructing its ~22 KB per
  // call would cost more than the solves).
  thread_local SolveChainWorkspace workspace;
  for (size_t i = 0; i < tick.goals.size(); ++i) {
    ChainSolveResult result;
    SolveChainJob job;
    job.rig = &rig;
    job.goal = &tick.goals[i];
    job.root = tick.root;
    job.locals = tick.locals;
    job.pose_path = tick.pose_path;
    job.workspace = &workspace;
    job.result = &result;
    if (absl::Status status = job.Run(); !status.ok()) return status;
    tick.goal_results[i] = std::move(result);
  }
  if (tick.dynamic_states.empty()) return absl::OkStatus();
  std::vector<Transform> world(rig.joint_count());
  LocalToModelJob fk;
  fk.parents = rig.parents();
  fk.locals = tick.locals;
  fk.root = tick.root;
  fk.models = absl::MakeSpan(world);
  if (absl::Status status = fk.Run(); !status.ok()) return status;
  std::vector<std::pair<int, Quat>> stepped;
  for (size_t c = 0; c < character.dynamic_chains.size(); ++c) {
    const DynamicChainBinding& chain = character.dynamic_chains[c];
    std::vector<Quat> rotations(chain.joints.size());
    RigDynamicsStep step;
    step.rig = &rig;
    step.colliders = character.colliders;
    step.chain = &chain;
    step.models_world = world;
    step.locals = tick.locals;
    step.delta_time = tick.delta_time;
    step.state = &tick.dynamic_states[c];
    step.rotations_local = absl::MakeSpan(rotations);
    step.report = &tick.dynamic_reports[c];
    if (absl::Status status = step.Run(); !status.ok()) return status;
    for (size_t k = 0; k < chain.joints.size(); ++k) {
      if (chain.turns[k]) stepped.emplace_back(chain.joints[k], rotations[k]);
    }
  }
  for (const auto& [joint, rotation] : stepped) {
    tick.locals[joint].rotation = rotation;
  }
  return absl::OkStatus();
}

}  // namespace ik::testing

#endif  // IK_TESTS_CORE_SINGLE_CHARACTER_JOBS_H_
