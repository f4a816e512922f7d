#include "handlers/work.h"

#include "ik/ground/triangle_mesh.h"

namespace ik::server {

std::int64_t GoalWork(const ChainGoal& goal) {
  const Chain& chain = *goal.chain;
  const SolverKind solver =
      ResolveSolver(goal.solver.value_or(chain.solver), chain);
  const auto joints = static_cast<std::int64_t>(chain.joints.size());
  if (solver == SolverKind::kTwoBone) return joints * kJointIteration;
  const std::int64_t iterations =
      goal.max_iterations.value_or(chain.max_iterations);
  return joints * (iterations * kJointIteration + kGoalFixedPerJoint);
}

std::int64_t GroundingWork(const Character& character, const Ground& ground) {
  std::int64_t per_ray = static_cast<std::int64_t>(ground.planes.size()) +
                         static_cast<std::int64_t>(ground.heightfields.size());
  for (const TriangleMesh* mesh : ground.meshes) {
    per_ray += mesh->most_triangles_down();
  }
  constexpr std::int64_t kJointsPerLeg = 3;
  constexpr std::int64_t kRaysPerLeg = 2;  // ankle and toe
  return static_cast<std::int64_t>(character.legs.size()) *
         (kJointsPerLeg * kJointIteration + kRaysPerLeg * per_ray * kRayTest);
}

std::int64_t DynamicsWork(const Character& character,
                          absl::Span<const int> chains) {
  std::int64_t work = 0;
  for (const int c : chains) {
    const DynamicChainBinding& chain = character.dynamic_chains[c];
    work += static_cast<std::int64_t>(chain.joints.size()) *
            chain.chain.max_substeps *
            (static_cast<std::int64_t>(chain.colliders.size()) + 1);
  }
  return work;
}

}  // namespace ik::server
