// Solving goals on chains of a rig: SolveChainJob picks the chain's solver,
// runs forward kinematics and applies the correction to the pose.
//
//   ik::ChainGoal goal;
//   goal.chain = rig.FindChain("left_arm");
//   goal.target_world = {0.5, 1.3, 0.3};
#ifndef IK_SOLVE_CHAIN_H_
#define IK_SOLVE_CHAIN_H_

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
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
  // The choice among a limb's exact in-limit solutions (the chain's last
  // two bones about the limb root -> tip axis): false, the continuity rule
  // (the arc of solutions that holds the incoming pose's swivel, then the
  // pole or bend plane within it for the two-bone solver, the incoming bend
  // plane for FABRIK, CCD and the torque solver, after their continuity
  // pass; ChainSolveResult's report.branch_switch when no arc continues the
  // pose); true, the two-bone solver's allowed solution nearest the pole or
  // bend plane, and the iterative solvers' answer as their iterations
  // reached it, whatever the incoming pose.
  bool history_free = false;
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
  // The solver whose answer this is: the goal's (or the chain's, AUTO
  // resolved), or after FABRIK or CCD stopped short of a target within the
  // chain's straight reach, the torque solver (then FABRIK, after CCD) when
  // its attempt from the same start ended nearer.
  SolverKind solver = SolverKind::kTwoBone;
  Vec3 tip_world{0.0};
  StopReason stop_reason = StopReason::kReached;
  // Joints held at their limit in the answer (rig joint indices,
  // ascending): those whose limit clamp moved them (by more than
  // kLimitClampSlack) in the pass that produced the returned pose. For the
  // iterative solvers that is the limit pass of the last accepted iteration,
  // and every joint that ends on its limit's boundary however it got there
  // (a joint clamped earlier but free at the end is not listed; see
  // ik/solvers/chain_job.h); for the two-bone solver, its one pass: the middle
  // joint's hinge range bounding the bend (or its limit reshaping the
  // incoming pose) and the root's limit after the aim, or turning the limb
  // off the solver's plane; with an orientation goal, also the tip when its
  // limit clamped the blended rotation.
  std::vector<int> limited_joints;
  // The angle, radians, from the EE axis (start joint -> target) to the
  // nearest singular direction of the answer's plane, and whether it is
  // within the chain's flip_warning_angle. Near a singular direction the
  // plane turns fast as the target moves, and flips through it. With a
  // swivel: the directions of its zero-plane map, in the chain's swivel
  // space ([0, pi/2]). Without one, for the two-bone solver ([0, pi]): where
  // its swing of the incoming limb flips (base/swing.h: opposite the limb's
  // root -> tip once bent, with the incoming root rotation, for the
  // shortest arc; opposite the rest limb, or the incoming tip if nearer,
  // where it swings through the rest direction), with a pole, the pole's
  // line, and for a middle joint without a hinge
  // (it bends in the incoming limb's plane) the incoming limb straight or
  // folded (the angle is then the incoming limb's own from straight or
  // folded). FABRIK, CCD and the torque solver
  // without a swivel (not history_free): the target opposite the incoming
  // tip seen from the chain's start (where the continuity pass's shortest
  // arc turns its plane) and, with two bones or more, the same as the
  // two-bone solver's for the chain's last limb (its root -> tip axis for
  // the EE axis), whichever is nearer. Otherwise false and 0.
  bool near_singularity = false;
  double singularity_angle = 0.0;
};

// Scratch memory of one pose-level chain solve (~22 KiB): reusable across
// solves, its contents meaningless between them. Prefer the heap or one
// reused instance per thread over a small stack. Not thread-safe: one solve
// at a time.
struct SolveChainWorkspace {
  ChainWorkspace chain;
  std::array<Transform, kMaxChainJoints> chain_locals;
  std::array<JointConstraint, kMaxChainJoints> constraints;
  std::array<Vec3, kMaxChainJoints> swivel_positions;
  std::array<Quat, kMaxChainJoints> incoming_rotations;
  // The chain's joints for the torque solver's second attempt after FABRIK
  // or CCD stalled.
  std::array<Transform, kMaxChainJoints> retry_locals;
  // The springs of the continuity pass towards the incoming pose.
  std::array<TorqueJointSettings, kMaxChainJoints> relax_joints;
};

// Solves one chain goal on a pose of a rig: forward kinematics down to the
// chain, the chain's solver, the swivel and orientation goals, and the
// answer measured in world space on the updated pose. Owns nothing; Run()
// allocates nothing but the result's limited_joints. Thread-compatible:
// distinct jobs with distinct workspaces, poses and results may run
// concurrently on one rig.
//
//   ik::SolveChainJob job;
//   job.rig = &rig;
//   job.goal = &goal;
//   job.root = root;
//   job.locals = absl::MakeSpan(locals);
//   job.workspace = &workspace;
//   job.result = &result;
//   if (absl::Status status = job.Run(); !status.ok()) return status;
struct SolveChainJob {
  // The character's rig; it must outlive Run().
  const Rig* rig = nullptr;
  // The goal; goal->chain is one of the rig's chains or one made by
  // rig->MakeChain.
  const ChainGoal* goal = nullptr;
  // Maps model space to world space (finite, unit rotation, positive scale).
  Transform root;
  // In/out: one local transform per joint of the rig (rotations unit length,
  // as Rig::Create / the server leave them). Only the chain's joints before
  // the tip change (and the tip's rotation with an orientation goal); every
  // joint the solve turns ends within its limit (ik/base/joint_limits.h). On
  // error `locals` is left as it was.
  absl::Span<Transform> locals;
  // Names the caller's pose in errors about `locals` and `root` (e.g.
  // "pose": "pose: ...", "pose.root.scale: ..."); empty: "locals" and
  // "root".
  absl::string_view pose_path;
  // Scratch; required.
  SolveChainWorkspace* workspace = nullptr;
  // Output; required. Overwritten by a successful Run().
  ChainSolveResult* result = nullptr;

  // INVALID_ARGUMENT for a goal that does not fit the rig or the solver
  // (e.g. two-bone on a chain that is not 3 joints long), with the goal's
  // field path first ("goals[3].target: not finite", ChainGoal::path), for
  // a pose of the wrong size or a malformed root, and for a missing rig,
  // goal, workspace or result; FAILED_PRECONDITION for a swivel on a chain
  // without a zero-plane map (straight preferred pose), naming
  // "<path>.swivel".
  absl::Status Validate() const;

  // Validates, then moves goal->chain's tip towards goal->target_world.
  // The iterative solvers stop in model space with the tolerance divided by
  // the root's largest scale factor; the result's residual, reached flag
  // and tip_world are then measured in world space on the updated pose;
  // stop_reason is kReached exactly when `reached` is (otherwise the
  // solver's own verdict, kOutOfReach when a limit applied after the solve
  // pulled the tip off a target the solver had reached). The two-bone solver
  // keeps its middle joint's hinge within range as it bends; when its
  // root's ball-and-socket limit would pull the tip off after aiming, it
  // turns the limb about the root -> target axis (the circle of exact
  // solutions) to the point nearest the pole's plane the limit allows, and
  // clamps the root only when none does (reached = false, kOutOfReach);
  // the root is then listed in limited_joints. The pole is used by the
  // two-bone solver only. FABRIK or CCD stopping short of a target within
  // the chain's straight reach retries with the torque solver (then FABRIK
  // after CCD) from the same start; the torque solver stopping short there
  // retries from the incoming pose with the last limb aimed at the target
  // (chains of three joints or more, no swivel), then, still short, FABRIK
  // finishes from the answer kept; the nearer answer is kept (and names its
  // solver).
  // Without a swivel and unless history_free, an iterative answer that
  // reached is replaced by the chain led from the incoming pose onto the
  // target (the continuity pass: a damped step of the torque solver per
  // stage of the shortest arc about the chain's start from the incoming tip
  // to the target, then its damped steps with springs pulling each joint
  // back, in the null space of the tip's move, towards its incoming
  // rotation held to its limit (a joint with a limit) or where the arc left
  // it (one without), until a step moves no joint by 2e-3 rad or after
  // max_iterations; where that stops short, FABRIK's passes from there and
  // the walk again, and where that too stops short, the solver's answer
  // relaxed towards the incoming pose, flagged branch_switch;
  // report.iterations counts the solver's own),
  // and FABRIK,
  // CCD and the torque solver then turn the chain's last limb about its
  // root -> tip axis (the tip stays) to the incoming pose's swivel, or to
  // the nearest end of the arc its root's limit allows. A swivel is
  // honoured by every solver: the two-bone solver turns it into a pole;
  // the iterative solvers start from the preferred pose turned into the
  // swivel's plane and, once solved, turn the chain rigidly about the
  // start -> target axis into that plane exactly (by the smaller
  // turn that lays the plane closest to its joints onto it, so the side
  // they bent to is kept; the tip stays where it is), then clamp the start
  // joint to its limit (which may pull the tip off the target, as for the
  // two-bone solver). Errors as Validate(), and INVALID_ARGUMENT naming the
  // pose when the chain's solver refuses it (e.g. a bone of zero length).
  absl::Status Run() const;
};

// Runs `jobs` in order as each one's Run() would, each one's status into
// the same index of `statuses`, with the same bits, for a caller with many
// characters' goals: up to four consecutive jobs that share no pose,
// workspace or result run together, their two-bone limbs started and
// solved side by side in SIMD lanes (four at a time where the processor
// has AVX, else two), the rest of each goal one at a time. A job that
// shares one of them with an earlier job of its group starts the next
// group, so it sees that job's answer, as one after the other. Goals of
// the iterative solvers run whole, one at a time. INVALID_ARGUMENT when
// the spans' sizes differ ("statuses: 3 for 4 jobs") or a job is null
// ("jobs[2]: null"); nothing runs then.
absl::Status RunSolveChainJobs(absl::Span<const SolveChainJob* const> jobs,
                               absl::Span<absl::Status> statuses);

// The solver AUTO resolves to for `chain`: two-bone for 3 joints, FABRIK
// otherwise. Other kinds are returned unchanged.
SolverKind ResolveSolver(SolverKind requested, const Chain& chain);

}  // namespace ik

#endif  // IK_SOLVE_CHAIN_H_
