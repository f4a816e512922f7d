// SolveChainJob's iterative solves (solve_chain_internal.h): FABRIK, CCD
// or the torque solver on a copy of the chain's joints, the retries where
// one stops short, the continuity pass towards the incoming pose, and the
// continuity rule on the chain's last limb.
#include <algorithm>
#include <cstdint>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "ik/base/joint_limits.h"
#include "ik/base/math.h"
#include "ik/base/trig.h"
#include "ik/rig/solve_chain.h"
#include "ik/solvers/ccd.h"
#include "ik/solvers/fabrik.h"
#include "ik/solvers/torque.h"
#include "rig/solve_chain_internal.h"
#include "rig/two_bone_limits.h"
#include "solvers/torque_relax.h"

namespace ik::internal {
namespace {

// The torque solver on `chain_job`, with the chain's settings.
absl::Status RunTorque(const Chain& chain, const ChainJob& chain_job) {
  TorqueJob torque;
  static_cast<ChainJob&>(torque) = chain_job;
  torque.settings = chain.torque;
  torque.settings.joints = chain.torque_joints;
  return torque.Run();
}

// Whether the target lies within the straight chain's reach of its start
// joint, up to `tolerance` (model space, on the incoming pose): where FABRIK
// and CCD may stall near full extension although the limits allow the
// target.
bool WithinStraightReach(const SolveChainJob& job,
                         const Transform& parent_model,
                         const Vec3& target_model, double tolerance) {
  const Chain& chain = *job.goal->chain;
  ChainPositions(chain, parent_model, job.locals, *job.workspace);
  const Vec3* positions = job.workspace->swivel_positions.data();
  double reach = 0.0;
  for (size_t k = 1; k < chain.joints.size(); ++k) {
    reach += glm::length(positions[k] - positions[k - 1]);
  }
  return glm::length(target_model - positions[0]) <= reach + tolerance;
}

// The model transform of chain joint `k` under the chain's own local
// transforms `locals` (chain order), its start's parent at `parent_model`.
Transform ChainJointModel(const Chain& chain, const Transform& parent_model,
                          const Transform* locals, int k) {
  Transform model =
      chain.ancestors.empty() ? locals[0] : Compose(parent_model, locals[0]);
  for (int i = 1; i <= k; ++i) model = Compose(model, locals[i]);
  return model;
}

// A job's outputs, for a job run on a copy of the chain's joints.
struct JobOutputs {
  SolveReport report;
  StopReason stop_reason = StopReason::kReached;
  std::uint64_t mask = 0;
};

// `first` on the chain joints in `locals`, its outputs into `out`.
ChainJob OnLocals(const ChainJob& first, Transform* locals, JobOutputs& out) {
  ChainJob job = first;
  job.locals = absl::MakeSpan(locals, first.locals.size());
  job.report = &out.report;
  job.stop_reason = &out.stop_reason;
  job.limited_mask = &out.mask;
  return job;
}

// One retry: `solver` from the chain joints in `locals` with `first`'s
// settings. Its answer replaces the one kept (`answer`, `mask`; the answer
// then names its solver) when its tip ends nearer; returns whether it did.
bool Retry(const Chain& chain, SolverKind solver, const ChainJob& first,
           Transform* locals, ChainSolveResult& answer, std::uint64_t& mask) {
  JobOutputs out;
  const ChainJob retry = OnLocals(first, locals, out);
  const absl::Status status = solver == SolverKind::kTorque
                                  ? RunTorque(chain, retry)
                                  : FabrikJob{retry}.Run();
  if (!status.ok() || !(out.report.residual < answer.report.residual)) {
    return false;
  }
  answer.report = out.report;
  answer.stop_reason = out.stop_reason;
  answer.solver = solver;
  mask = out.mask;
  return true;
}

// The workspace's chain buffer other than `kept`.
Transform* OtherBuffer(const SolveChainJob& job, const Transform* kept) {
  SolveChainWorkspace& workspace = *job.workspace;
  return kept == workspace.retry_locals.data() ? workspace.chain_locals.data()
                                               : workspace.retry_locals.data();
}

// The workspace's chain buffer other than `kept`, holding the incoming
// pose's chain joints.
Transform* IncomingCopy(const SolveChainJob& job, const Transform* kept) {
  Transform* locals = OtherBuffer(job, kept);
  const Chain& chain = *job.goal->chain;
  for (size_t k = 0; k < chain.joints.size(); ++k) {
    locals[k] = job.locals[chain.joints[k]];
  }
  return locals;
}

// After FABRIK or CCD stopped short of a target within reach: the torque
// solver, then FABRIK (after CCD), each from the same start, until one
// reaches. The torque solver's Jacobian steps converge where the passes
// stall (full extension, a target one joint's turn reaches); FABRIK's
// passes where CCD's sweeps crawl along a limit. Returns the chain locals
// to keep.
Transform* RetryWithOtherSolvers(const SolveChainJob& job,
                                 SolverKind first_solver, const ChainJob& first,
                                 ChainSolveResult& answer,
                                 std::uint64_t& mask) {
  Transform* kept = job.workspace->chain_locals.data();
  for (const SolverKind solver : {SolverKind::kTorque, SolverKind::kFabrik}) {
    if (solver == first_solver) continue;
    Transform* locals = IncomingCopy(job, kept);
    if (!Retry(*job.goal->chain, solver, first, locals, answer, mask)) continue;
    kept = locals;
    if (answer.stop_reason == StopReason::kReached) break;
  }
  return kept;
}

// After the torque solver stopped short of a target within reach: again
// from the incoming pose with the chain's last limb aimed at the target --
// its root turned in model space by the shortest arc that points the tip
// at the target, then held to its limit. From a limb pointing away from the
// target the damped steps can settle far from it (up to 0.54 m on the
// clavicle arm's seeded paths). Returns the chain locals to keep.
Transform* RetryTorqueAimed(const SolveChainJob& job,
                            const Transform& parent_model,
                            const Vec3& target_model, const ChainJob& first,
                            ChainSolveResult& answer, std::uint64_t& mask) {
  const Chain& chain = *job.goal->chain;
  Transform* kept = job.workspace->chain_locals.data();
  Transform* locals = IncomingCopy(job, kept);
  const int count = static_cast<int>(chain.joints.size());
  const int root = count - 3;
  const Transform root_model =
      ChainJointModel(chain, parent_model, locals, root);
  Transform tip_model = root_model;
  for (int k = root + 1; k < count; ++k) {
    tip_model = Compose(tip_model, locals[k]);
  }
  const Vec3 to_tip = tip_model.translation - root_model.translation;
  const Vec3 to_target = target_model - root_model.translation;
  if (!(glm::length(to_tip) >= kMinDirectionLength &&
        glm::length(to_target) >= kMinDirectionLength)) {
    return kept;
  }
  const Quat parent_rotation =
      root_model.rotation * glm::conjugate(locals[root].rotation);
  const Quat aimed = NormalizeNearUnit(
      glm::conjugate(parent_rotation) *
      FromTo(to_tip / glm::length(to_tip), to_target / glm::length(to_target)) *
      root_model.rotation);
  locals[root].rotation =
      ApplyJointConstraint(first.constraints[root], aimed).rotation;
  return Retry(chain, SolverKind::kTorque, first, locals, answer, mask) ? locals
                                                                        : kept;
}

// After the torque solver and its aimed retry stopped short of a target
// within reach: FABRIK's passes from the answer kept (`kept`, near the
// target), whose answer replaces it when nearer. The damped steps can
// settle a few centimetres short where a limit holds the limb (on the
// clavicle arm's seeded paths from animated poses, 35 of 2,004 reachable
// targets, by up to 4.2 cm); starting from their answer rather than the
// incoming pose keeps the finish a small move. Returns the chain locals to
// keep.
Transform* FinishWithFabrik(const SolveChainJob& job, const ChainJob& first,
                            Transform* kept, ChainSolveResult& answer,
                            std::uint64_t& mask) {
  Transform* locals = OtherBuffer(job, kept);
  std::copy(kept, kept + first.locals.size(), locals);
  return Retry(*job.goal->chain, SolverKind::kFabrik, first, locals, answer,
               mask)
             ? locals
             : kept;
}

// How hard the continuity pass's springs pull each joint back towards its
// incoming rotation, against the joint's own stiffness: each iteration a
// joint springs back by 0.3 / (stiffness + 0.3) of its turn from there.
// Stiffer springs keep the walk nearer the incoming pose but bend it more
// sharply where the target lies far from that pose; on the path tests'
// seeded paths (FABRIK on the limited arm and tail, every incoming mode,
// measured before the clamping loop was graded) 0.3 exceeded the
// continuity bound least: 62 steps, against 68 for 0.1, 76 for 1 and 170
// for 3.
constexpr double kRelaxElasticity = 0.3;

// The continuity pass's springs: every joint towards its rotation in
// `pose` (the chain's joints) held to its limit, with kRelaxElasticity.
void SetSprings(const SolveChainJob& job, const ChainJob& first,
                const Transform* pose) {
  const Chain& chain = *job.goal->chain;
  for (size_t k = 0; k < chain.joints.size(); ++k) {
    TorqueJointSettings& joint = job.workspace->relax_joints[k];
    joint = chain.torque_joints.empty() ? TorqueJointSettings()
                                        : chain.torque_joints[k];
    joint.elasticity = kRelaxElasticity;
    joint.comfort = 0.0;
    joint.preferred_rotation =
        ApplyJointConstraint(first.constraints[k], pose[k].rotation).rotation;
  }
}

// The continuity pass's springs of the chain's joints without a limit
// turned towards their rotations in `pose` (the chain's joints), the
// others left as they are.
void SpringFreeJointsTowards(const SolveChainJob& job, const Transform* pose) {
  const Chain& chain = *job.goal->chain;
  for (size_t k = 0; k < chain.joints.size(); ++k) {
    if (job.rig->joint(chain.joints[k]).limit.kind == JointLimit::Kind::kNone) {
      job.workspace->relax_joints[k].preferred_rotation = pose[k].rotation;
    }
  }
}

// The torque job of the continuity pass on `locals` (the chain's joints,
// changed in place) from `first`, its outputs into `report`,
// `stop_reason` and `mask`, the springs as SetSprings left them.
TorqueJob PassJob(const SolveChainJob& job, const ChainJob& first,
                  Transform* locals, SolveReport& report,
                  StopReason& stop_reason, std::uint64_t& mask) {
  const Chain& chain = *job.goal->chain;
  const int count = static_cast<int>(chain.joints.size());
  TorqueJob pass;
  static_cast<ChainJob&>(pass) = first;
  pass.locals = absl::MakeSpan(locals, count);
  pass.report = &report;
  pass.stop_reason = &stop_reason;
  pass.limited_mask = &mask;
  pass.settings = chain.torque;
  pass.settings.joints =
      absl::MakeConstSpan(job.workspace->relax_joints.data(), count);
  return pass;
}

// FABRIK's passes on `locals` (the chain's joints, changed in place) with
// `first`'s target and settings; whether they reach it.
bool FabrikFrom(const ChainJob& first, Transform* locals) {
  JobOutputs out;
  return FabrikJob{OnLocals(first, locals, out)}.Run().ok() &&
         out.stop_reason == StopReason::kReached;
}

// RelaxTowardsPreferred with the incoming springs on `locals` (the
// chain's joints, changed in place). On reaching the target, sets the
// answer's report (the solver's iteration count kept) and `mask`, and
// returns true.
bool RelaxToTarget(const SolveChainJob& job, const ChainJob& first,
                   Transform* locals, ChainSolveResult& answer,
                   std::uint64_t& mask) {
  SolveReport report;
  StopReason stop_reason = StopReason::kReached;
  std::uint64_t relaxed_mask = 0;
  const TorqueJob relax =
      PassJob(job, first, locals, report, stop_reason, relaxed_mask);
  if (!RelaxTowardsPreferred(relax).ok() ||
      stop_reason != StopReason::kReached) {
    return false;
  }
  report.iterations = answer.report.iterations;
  answer.report = report;
  mask = relaxed_mask;
  return true;
}

// The continuity pass on an iterative answer that reached its target
// (`solved`, the chain's joints; the job's locals still the incoming
// pose). Of the exact answers it keeps the one reached continuously from
// the incoming pose: the chain led from that pose (each joint held to its
// limit) along the shortest arc about the chain's start towards the
// target, a damped step per stage (ApproachAlongArc), then onto the target
// by the torque solver's steps with springs (RelaxTowardsPreferred): a
// path that moves smoothly with the target and the incoming pose wherever
// the solver's own passes ended, except where the target lies opposite
// the incoming tip. A joint with a limit springs back towards its incoming
// rotation (held to the limit), a free joint towards where the arc left
// it. Measured on the path tests' seeded paths both ways: springs towards
// the incoming pose everywhere leave free chains from a far pose jumping
// between the folds the springs reach first (up to 31 times the continuity
// bound); towards where the arc left them everywhere, the limited arm's
// last limb ends off the incoming swivel's allowed arc (25 answers
// flagged, two jumps of 34 times) and up to 6.5 times the bound near the
// target opposite the incoming tip, where the per-joint choice stays under
// 2 times from every start. Where that walk stops short within the
// iterations, the solver's answer relaxed towards the incoming pose
// instead (the exact answer near it reached from the answer), and where
// that too, the answer as solved: answers of another family, which may lie
// far from the pass's answer for a neighbouring target, so `*fell_back` is
// set. Returns the chain locals to keep.
Transform* RelaxTowardsIncoming(const SolveChainJob& job, const ChainJob& first,
                                Transform* solved, ChainSolveResult& answer,
                                std::uint64_t& mask, bool* fell_back) {
  Transform* locals = IncomingCopy(job, solved);
  SetSprings(job, first, locals);
  SolveReport report;
  StopReason stop_reason = StopReason::kReached;
  std::uint64_t approach_mask = 0;
  if (ApproachAlongArc(
          PassJob(job, first, locals, report, stop_reason, approach_mask))
          .ok()) {
    SpringFreeJointsTowards(job, locals);
    if (RelaxToTarget(job, first, locals, answer, mask)) return locals;
    // The walk stopped short: FABRIK's passes from where it stopped (a
    // small move), then the walk onto the target again.
    if (FabrikFrom(first, locals) &&
        RelaxToTarget(job, first, locals, answer, mask)) {
      return locals;
    }
  }
  // The incoming pose's springs (IncomingCopy fills `locals` again), then
  // the solver's answer relaxed towards them.
  *fell_back = true;
  SetSprings(job, first, IncomingCopy(job, solved));
  std::copy(solved, solved + first.locals.size(), locals);
  return RelaxToTarget(job, first, locals, answer, mask) ? locals : solved;
}

// After `solver` stopped short of a target within reach: FABRIK and CCD
// retry with the other solvers, the torque solver aimed and then finished
// by FABRIK. Returns the chain locals to keep.
Transform* RetryShortOfReach(const SolveChainJob& job, SolverKind solver,
                             const Transform& parent_model,
                             const ChainJob& first, ChainSolveResult& answer,
                             std::uint64_t& mask) {
  if (solver != SolverKind::kTorque) {
    return RetryWithOtherSolvers(job, solver, first, answer, mask);
  }
  Transform* solved = job.workspace->chain_locals.data();
  if (first.locals.size() >= 3 && !job.goal->swivel.has_value()) {
    solved = RetryTorqueAimed(job, parent_model, first.target_model, first,
                              answer, mask);
  }
  if (answer.stop_reason != StopReason::kReached) {
    solved = FinishWithFabrik(job, first, solved, answer, mask);
  }
  return solved;
}

// The angle between the incoming pose's tip and the target seen from the
// chain's start: small when the caller fed back its previous answer.
double IncomingAngle(const SolveChainJob& job, const Transform& parent_model,
                     const Vec3& target_model) {
  const Chain& chain = *job.goal->chain;
  ChainPositions(chain, parent_model, job.locals, *job.workspace);
  const Vec3* incoming = job.workspace->swivel_positions.data();
  const Vec3 to_tip = incoming[chain.joints.size() - 1] - incoming[0];
  const Vec3 to_target = target_model - incoming[0];
  return Atan2(glm::length(glm::cross(to_tip, to_target)),
               glm::dot(to_tip, to_target));
}

// The continuity rule on an iterative answer (`solved`, the chain's joints;
// the job's locals still the incoming pose; `incoming_angle` as
// IncomingAngle): the last limb turned about its root -> tip axis to the
// incoming pose's swivel, or the nearest end of the arc its root's limit
// allows (HoldIncomingLimbSwivel). Updates the root's bit of `mask` (set
// when it ends on its limit) and the answer's branch switch and flip
// report.
void KeepIncomingLimbSwivel(const SolveChainJob& job,
                            const Transform& parent_model,
                            double incoming_angle, Transform* solved,
                            ChainSolveResult& answer, std::uint64_t& mask) {
  const Chain& chain = *job.goal->chain;
  const int count = static_cast<int>(chain.joints.size());
  const int root = count - 3;
  const Transform root_model =
      ChainJointModel(chain, parent_model, solved, root);
  const JointDefinition& definition = job.rig->joint(chain.joints[root]);
  const LimbSwivelHold hold = HoldIncomingLimbSwivel(
      definition, root_model, job.locals[chain.joints[root]].rotation,
      incoming_angle, solved[root + 1], solved[root + 2].translation,
      solved[root].rotation);
  answer.report.branch_switch = hold.branch_switch;
  answer.singularity_angle = hold.singularity_angle;
  answer.near_singularity = hold.singularity_angle <= chain.flip_warning_angle;
  if (!hold.turned) return;
  const std::uint64_t bit = std::uint64_t{1} << root;
  mask = OnJointLimitBoundary(definition.limit, definition.rest.rotation,
                              solved[root].rotation)
             ? mask | bit
             : mask & ~bit;
}

// The continuity pass's singular direction (ApproachAlongArc): the target
// opposite the incoming tip seen from the chain's start, where the
// shortest arc between them turns its plane without bound. The answer's
// flip report names it when nearer than the last limb's.
void ReportArcSingularity(const Chain& chain, double incoming_angle,
                          ChainSolveResult& answer) {
  const double opposite = kPi - incoming_angle;
  if (chain.joints.size() >= 3 && !(opposite < answer.singularity_angle)) {
    return;
  }
  answer.singularity_angle = opposite;
  answer.near_singularity = opposite <= chain.flip_warning_angle;
}

// The continuity rule's last steps on an answer (`solved`): its last limb
// keeps the incoming swivel (chains of three joints or more), the flip
// report names the pass's singular direction where nearer, and an answer
// the pass fell back from (`fell_back`, RelaxTowardsIncoming) says
// branch_switch: it comes from another family.
void KeepIncomingSwivelAndReport(const SolveChainJob& job,
                                 const Transform& parent_model,
                                 const Vec3& target_model, bool fell_back,
                                 Transform* solved, ChainSolveResult& answer,
                                 std::uint64_t& mask) {
  const Chain& chain = *job.goal->chain;
  const double incoming_angle = IncomingAngle(job, parent_model, target_model);
  if (chain.joints.size() >= 3) {
    KeepIncomingLimbSwivel(job, parent_model, incoming_angle, solved, answer,
                           mask);
  }
  ReportArcSingularity(chain, incoming_angle, answer);
  if (fell_back) answer.report.branch_switch = true;
}

}  // namespace

absl::Status SolveIterative(const SolveChainJob& job, SolverKind solver,
                            const Transform& parent_model,
                            const Vec3& target_model, ChainSolveResult& answer,
                            std::uint64_t& mask) {
  const ChainGoal& goal = *job.goal;
  const Chain& chain = *goal.chain;
  SolveChainWorkspace& workspace = *job.workspace;
  const int count = static_cast<int>(chain.joints.size());
  for (int k = 0; k < count; ++k) {
    const int joint = chain.joints[k];
    workspace.chain_locals[k] = job.locals[joint];
    workspace.constraints[k] = JointConstraintOf(job.rig->joint(joint));
  }
  // Model-space distances grow by at most the root's largest scale factor
  // on their way to world space.
  const Vec3& scale = job.root.scale;
  const double world_scale = std::max(scale.x, std::max(scale.y, scale.z));
  ChainJob chain_job;
  chain_job.parent_model = parent_model;
  chain_job.locals = absl::MakeSpan(workspace.chain_locals.data(), count);
  chain_job.constraints =
      absl::MakeConstSpan(workspace.constraints.data(), count);
  chain_job.target_model = target_model;
  chain_job.max_iterations = goal.max_iterations.value_or(chain.max_iterations);
  chain_job.tolerance = goal.tolerance.value_or(chain.tolerance) / world_scale;
  chain_job.workspace = &workspace.chain;
  chain_job.report = &answer.report;
  chain_job.stop_reason = &answer.stop_reason;
  chain_job.limited_mask = &mask;
  const absl::Status status =
      solver == SolverKind::kTorque ? RunTorque(chain, chain_job)
      : solver == SolverKind::kCcd  ? CcdJob{chain_job}.Run()
                                    : FabrikJob{chain_job}.Run();
  if (!status.ok()) return ChainRefusedPose(job, chain, status);
  Transform* solved = workspace.chain_locals.data();
  if (answer.stop_reason != StopReason::kReached &&
      WithinStraightReach(job, parent_model, target_model,
                          chain_job.tolerance)) {
    solved =
        RetryShortOfReach(job, solver, parent_model, chain_job, answer, mask);
  }
  bool fell_back = false;
  if (answer.stop_reason == StopReason::kReached &&
      answer.report.iterations > 0 && !goal.history_free &&
      !goal.swivel.has_value()) {
    solved =
        RelaxTowardsIncoming(job, chain_job, solved, answer, mask, &fell_back);
  }
  if (!goal.history_free && !goal.swivel.has_value()) {
    KeepIncomingSwivelAndReport(job, parent_model, target_model, fell_back,
                                solved, answer, mask);
  }
  for (int k = 0; k + 1 < count; ++k) {
    job.locals[chain.joints[k]].rotation = solved[k].rotation;
  }
  return absl::OkStatus();
}

}  // namespace ik::internal
