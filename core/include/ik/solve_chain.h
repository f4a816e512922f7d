// Solving goals on chains of a rig: picks the solver, runs forward
// kinematics, applies the corrections to the pose.
//
//   ik::ChainGoal goal;
//   goal.chain = rig.FindChain("left_arm");
//   goal.target_world = {0.5, 1.3, 0.3};
//   ik::PoseSolver solver(rig);
//   absl::StatusOr<ik::ChainSolveResult> result =
//       solver.Solve(goal, root, absl::MakeSpan(locals));
#ifndef IK_SOLVE_CHAIN_H_
#define IK_SOLVE_CHAIN_H_

#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "ik/math.h"
#include "ik/rig.h"
#include "ik/two_bone.h"

namespace ik {

struct ChainGoal {
  const Chain* chain = nullptr;  // a chain of the solver's rig
  Vec3 target_world{0.0};
  std::optional<Vec3> pole_world;
  std::optional<SolverKind> solver;   // overrides the chain's
  std::optional<int> max_iterations;  // overrides the chain's, >= 1
  std::optional<double> tolerance;    // overrides the chain's, >= 0
};

struct ChainSolveResult {
  SolveReport report;
  SolverKind solver = SolverKind::kTwoBone;  // the solver that ran
  Vec3 tip_world{0.0};
  // Joints whose limits clamped the solve (indices, ascending).
  std::vector<int> limited_joints;
};

// Solves chain goals on poses of one rig. Cheap to construct (per request is
// fine); Solve() allocates nothing. One instance must not be used by two
// threads at once (the iterative solvers to come keep a workspace here); the
// rig must outlive it.
class PoseSolver {
 public:
  explicit PoseSolver(const Rig& rig);

  // Moves goal.chain's tip towards goal.target_world by updating the local
  // rotations of the chain's joints in `locals` (one per joint of the rig;
  // rotations unit length, as Rig::Create / the server leave them). `root`
  // maps model space to world space. Only the chain's root and middle joints
  // change (post-multiplied corrections); the result's residual, reached flag
  // and tip_world are measured in world space on the updated pose.
  // INVALID_ARGUMENT for a goal that does not fit the rig or the solver
  // (e.g. two-bone on a chain that is not 3 joints long), with the goal's
  // field name first ("target: not finite"); UNIMPLEMENTED when AUTO has no
  // solver for the chain yet (chains other than 3 joints long).
  absl::StatusOr<ChainSolveResult> Solve(const ChainGoal& goal,
                                         const Transform& root,
                                         absl::Span<Transform> locals);

 private:
  const Rig& rig_;
};

// The solver AUTO resolves to for `chain`: two-bone for 3 joints; for other
// lengths AUTO itself (no solver available yet). Other kinds are returned
// unchanged.
SolverKind ResolveSolver(SolverKind requested, const Chain& chain);

}  // namespace ik

#endif  // IK_SOLVE_CHAIN_H_
