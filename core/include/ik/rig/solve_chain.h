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

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "ik/base/joint_limits.h"
#include "ik/base/math.h"
#include "ik/rig/rig.h"
#include "ik/solvers/chain_job.h"
#include "ik/solvers/solve_report.h"
#include "ik/solvers/swivel.h"
#include "ik/solvers/two_bone.h"

namespace ik {

struct ChainGoal {
  // A chain of the solver's rig: Rig::FindChain or Rig::MakeChain.
  const Chain* chain = nullptr;
  Vec3 target_world{0.0};
  std::optional<Vec3> pole_world;
  // Optional swivel angle, radians (finite; not with pole_world), for every
  // solver: turns the solver plane about the start joint -> target axis
  // from the zero plane of the chain's zero-plane map (ik/solvers/swivel.h),
  // right-handed. The solve then starts from the chain's preferred pose
  // (Chain::preferred_rotations) instead of the incoming rotations of its
  // joints, so its answer depends only on the goal, `root`, the joints
  // above the chain and the chain's own translations: never on an earlier
  // solve. The result reports how near the EE axis is to a flip.
  std::optional<double> swivel;
  std::optional<SolverKind> solver;   // overrides the chain's
  std::optional<int> max_iterations;  // overrides the chain's, >= 1
  std::optional<double> tolerance;    // overrides the chain's, >= 0
  // Optional world-space rotation for the tip joint, blended into the tip's
  // local rotation after the position solve with `orientation_weight` in
  // [0, 1] (slerp from the solved rotation), then clamped by the tip's limit.
  std::optional<Quat> orientation_world;
  double orientation_weight = 1.0;  // [0, 1]
  // Where the goal sits in the caller's input (e.g. "goals[3]"): every error
  // about it names "<path>.<field>" ("goals[3].target: not finite"). Empty:
  // the goal's own field names alone.
  std::string path;
};

struct ChainSolveResult {
  SolveReport report;
  SolverKind solver = SolverKind::kTwoBone;  // the solver that ran
  Vec3 tip_world{0.0};
  StopReason stop_reason = StopReason::kReached;
  // Joints held at their limit in the answer (rig joint indices,
  // ascending): those whose limit clamp moved them (by more than
  // kLimitClampSlack) in the pass that produced the returned pose. For the
  // iterative solvers that is the limit pass of the last accepted iteration
  // (a joint clamped earlier but free at the end is not listed; see
  // ik/solvers/chain_job.h); for the two-bone solver, its one pass: the middle
  // joint's hinge range bounding the bend (or its limit reshaping the
  // incoming pose) and the root's limit after the aim; with an orientation
  // goal, also the tip when its limit clamped the blended rotation.
  std::vector<int> limited_joints;
  // With a swivel (false and 0 without): the angle, radians in [0, pi/2],
  // from the EE axis (start joint -> target, in the chain's swivel space) to
  // the nearer singular direction of its zero-plane map, and whether it is
  // within the chain's flip_warning_angle. Near a singular direction the
  // solver plane turns fast as the target moves, and flips through it.
  bool near_singularity = false;
  double singularity_angle = 0.0;
};

// Solves chain goals on poses of one rig. Cheap to construct (per request is
// fine; it holds an ~22 KiB workspace, so prefer the heap or a reused
// instance over a small stack). Solve() allocates nothing but the result's
// limited_joints. One instance must not be used by two threads at once; the
// rig must outlive it.
class PoseSolver {
 public:
  // `pose_path` names the caller's pose in errors about `locals` and `root`
  // (e.g. "pose": "pose: ...", "pose.root.scale: ..."); empty: "locals" and
  // "root".
  explicit PoseSolver(const Rig& rig, std::string pose_path = "");

  // Moves goal.chain's tip towards goal.target_world by updating the local
  // rotations of the chain's joints in `locals` (one per joint of the rig;
  // rotations unit length, as Rig::Create / the server leave them). `root`
  // maps model space to world space. goal.chain is one of the rig's chains
  // or one made by rig.MakeChain. Only the chain's joints before the tip
  // change (and the tip's rotation with an orientation goal); every joint
  // the solve turns ends within its limit (ik/base/joint_limits.h). The
  // iterative solvers stop in model space with the tolerance divided by
  // the root's largest scale factor; the result's residual, reached flag
  // and tip_world are then measured in world space on the updated pose;
  // their stop_reason is the solver's own verdict, which agrees with
  // `reached` except within rounding of the tolerance. The two-bone solver
  // keeps its middle joint's hinge within range as it bends and clamps its
  // root to its limit after aiming, which may pull the tip off the target
  // (reached = false, kOutOfReach). The pole is used by the two-bone solver
  // only. A swivel is honoured by every solver: the two-bone solver turns
  // it into a pole; the iterative solvers start from the preferred pose turned
  // into the swivel's plane and, once solved, turn the chain rigidly about
  // the start -> target axis into that plane exactly (by the smaller turn
  // that lays the plane closest to its joints onto it, so the side they
  // bent to is kept; the tip stays where it is), then clamp the start joint
  // to its limit (which may pull the tip off the target, as for the
  // two-bone solver). On error `locals` is left as it was.
  // INVALID_ARGUMENT for a goal that does not fit the rig or the solver
  // (e.g. two-bone on a chain that is not 3 joints long), with the goal's
  // field path first ("goals[3].target: not finite", ChainGoal::path);
  // FAILED_PRECONDITION for a swivel on a chain without a zero-plane map
  // (straight preferred pose), naming "<path>.swivel".
  absl::StatusOr<ChainSolveResult> Solve(const ChainGoal& goal,
                                         const Transform& root,
                                         absl::Span<Transform> locals);

 private:
  // Each fills `result` (report.tip_model aside) and the mask of limited
  // chain joints, having updated `locals`.
  absl::Status SolveTwoBone(const ChainGoal& goal, const Chain& chain,
                            const Transform& parent_model,
                            const Vec3& target_model,
                            const std::optional<Vec3>& pole_model,
                            absl::Span<Transform> locals,
                            ChainSolveResult& result, std::uint64_t& mask);
  absl::Status SolveIterative(SolverKind solver, const ChainGoal& goal,
                              const Chain& chain, const Transform& root,
                              const Transform& parent_model,
                              const Vec3& target_model,
                              absl::Span<Transform> locals,
                              ChainSolveResult& result, std::uint64_t& mask);

  // Swivel solves: turns the chain's joints but the tip to their preferred
  // rotations, then its start joint into the plane the swivel asks for, and
  // fills the result's flip report.
  SwivelPlacement BeginSwivel(const ChainGoal& goal, const Chain& chain,
                              const Transform& root,
                              const Transform& parent_model,
                              const Vec3& target_model,
                              absl::Span<Transform> locals,
                              ChainSolveResult& result);
  // After an iterative solve: turns the chain about the start -> target
  // axis, by the smaller turn that lays the plane closest to its joints onto
  // the swivel's, then clamps the start joint (bit 0 of `mask`).
  void FinishSwivel(const Chain& chain, const Transform& parent_model,
                    const SwivelPlacement& plane, absl::Span<Transform> locals,
                    std::uint64_t& mask);
  // Model-space positions of the chain's joints into swivel_positions_.
  void ChainPositions(const Chain& chain, const Transform& parent_model,
                      absl::Span<const Transform> locals);

  const Rig& rig_;
  const std::string locals_path_;
  const std::string root_path_;
  ChainWorkspace workspace_;
  std::array<Transform, kMaxChainJoints> chain_locals_;
  std::array<JointConstraint, kMaxChainJoints> constraints_;
  std::array<Vec3, kMaxChainJoints> swivel_positions_;
  std::array<Quat, kMaxChainJoints> incoming_rotations_;
};

// The solver AUTO resolves to for `chain`: two-bone for 3 joints, FABRIK
// otherwise. Other kinds are returned unchanged.
SolverKind ResolveSolver(SolverKind requested, const Chain& chain);

}  // namespace ik

#endif  // IK_SOLVE_CHAIN_H_
