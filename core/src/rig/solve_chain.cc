#include "ik/rig/solve_chain.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/numeric/bits.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "base/trig_lanes.h"
#include "ik/base/trig.h"
#include "ik/base/validate.h"
#include "ik/solvers/swivel.h"
#include "rig/hinge_bend.h"
#include "rig/solve_chain_internal.h"
#include "rig/two_bone_limits.h"

namespace ik {
namespace {

using internal::ChainPositions;
using internal::ChainRefusedPose;
using internal::ChainStartModel;
using internal::LocalsPath;
using internal::Prepare;
using internal::PreparedGoal;
using internal::SolveIterative;
using internal::TwoBoneJoints;

// The local rotation of a chain's start joint (`rotation_local`) once its
// model rotation is turned by `turn_model`, which turns the whole chain
// rigidly about the start joint.
Quat TurnInModelSpace(const Transform& parent_model, const Quat& turn_model,
                      const Quat& rotation_local) {
  return glm::normalize(glm::conjugate(parent_model.rotation) * turn_model *
                        parent_model.rotation * rotation_local);
}

}  // namespace

SolverKind ResolveSolver(SolverKind requested, const Chain& chain) {
  if (requested != SolverKind::kAuto) return requested;
  return chain.joints.size() == 3 ? SolverKind::kTwoBone : SolverKind::kFabrik;
}

namespace internal {

Transform ChainStartModel(const Chain& chain, const Transform& parent_model,
                          absl::Span<const Transform> locals) {
  return chain.ancestors.empty()
             ? locals[chain.joints[0]]
             : Compose(parent_model, locals[chain.joints[0]]);
}

void ChainPositions(const Chain& chain, const Transform& parent_model,
                    absl::Span<const Transform> locals,
                    SolveChainWorkspace& workspace) {
  Transform model = ChainStartModel(chain, parent_model, locals);
  workspace.swivel_positions[0] = model.translation;
  for (size_t k = 1; k < chain.joints.size(); ++k) {
    model = Compose(model, locals[chain.joints[k]]);
    workspace.swivel_positions[k] = model.translation;
  }
}

absl::Status ChainRefusedPose(const SolveChainJob& job, const Chain& chain,
                              const absl::Status& status) {
  return InvalidField(
      LocalsPath(job),
      absl::StrCat("chain '", chain.name,
                   "' cannot be solved in this pose: ", status.message()));
}

}  // namespace internal

namespace {

// Forward kinematics in model space down to the chain's root's parent
// (identity: a rig's roots live in model space). Each ancestor is the
// parent of the next, so the running transform stays in registers.
Transform ChainParentModel(const Chain& chain,
                           absl::Span<const Transform> locals) {
  const std::vector<int>& ancestors = chain.ancestors;
  Transform parent_model;
  for (size_t i = 0; i < ancestors.size(); ++i) {
    parent_model = i == 0 ? locals[ancestors[i]]
                          : Compose(parent_model, locals[ancestors[i]]);
  }
  return parent_model;
}

// Swivel solves: turns the chain's joints but the tip to their preferred
// rotations, then its start joint into the plane the swivel asks for, and
// fills the result's flip report.
SwivelPlacement BeginSwivel(const SolveChainJob& job,
                            const Transform& parent_model,
                            const Vec3& target_model,
                            ChainSolveResult& answer) {
  // History independence: every rotation the solve turns starts from the
  // preferred pose.
  const Chain& chain = *job.goal->chain;
  const size_t count = chain.joints.size();
  for (size_t k = 0; k + 1 < count; ++k) {
    job.locals[chain.joints[k]].rotation = chain.preferred_rotations[k];
  }
  ChainPositions(chain, parent_model, job.locals, *job.workspace);
  const SwivelPlacement placement = PlaceSwivel(
      *chain.zero_plane_map, chain.swivel_space, job.root, parent_model,
      absl::MakeConstSpan(job.workspace->swivel_positions.data(), count),
      target_model, *job.goal->swivel);
  answer.singularity_angle = placement.singularity_angle;
  answer.near_singularity =
      placement.singularity_angle <= chain.flip_warning_angle;
  Transform& start_local = job.locals[chain.joints[0]];
  start_local.rotation =
      TurnInModelSpace(parent_model, placement.turn, start_local.rotation);
  return placement;
}

// After an iterative solve: turns the chain about the start -> target
// axis, by the smaller turn that lays the plane closest to its joints onto
// the swivel's, then clamps the start joint (bit 0 of `mask`).
void FinishSwivel(const SolveChainJob& job, const Transform& parent_model,
                  const SwivelPlacement& plane, std::uint64_t& mask) {
  const Chain& chain = *job.goal->chain;
  ChainPositions(chain, parent_model, job.locals, *job.workspace);
  const std::optional<Vec3> bend = FitBendDirection(
      absl::MakeConstSpan(job.workspace->swivel_positions.data(),
                          chain.joints.size()),
      plane.axis);
  if (!bend.has_value()) return;  // straight: no plane to turn
  // Only the plane drifts: the solve keeps the side BeginSwivel bent to, while
  // the side FitBendDirection reads off a zig-zag chain may change at once.
  // So the turn is the smaller one that lays the fitted line onto the plane.
  const double angle =
      std::remainder(SignedAngleAbout(*bend, plane.bend, plane.axis), kPi);
  if (angle == 0.0) return;
  const int start = chain.joints[0];
  const Quat turned = TurnInModelSpace(
      parent_model, AngleAxis(angle, plane.axis), job.locals[start].rotation);
  const LimitedRotation limited = ApplyJointConstraint(
      internal::JointConstraintOf(job.rig->joint(start)), turned);
  job.locals[start].rotation = limited.rotation;
  mask = limited.clamped ? mask | 1 : mask & ~std::uint64_t{1};
}

// A middle joint without a hinge bends in the incoming limb's plane (the
// normal of its two bones): the angle, radians in [0, pi/2], of the
// incoming limb from straight or folded (as its atan2's arguments, taken at
// the report), where that plane turns fast as the pose moves and flips
// through it. nullopt for a hinge (it bends about its axis, whatever the
// pose; its own flips: internal::HingeFlipAngle).
std::optional<internal::AngleArguments> IncomingBendPlaneAngle(
    const SolveChainJob& job, const Transform& root_model) {
  const Chain& chain = *job.goal->chain;
  if (job.rig->joint(chain.joints[1]).limit.kind == JointLimit::Kind::kHinge) {
    return std::nullopt;
  }
  const Transform mid_model = Compose(root_model, job.locals[chain.joints[1]]);
  const Vec3 upper = mid_model.translation - root_model.translation;
  const Vec3 lower =
      TransformPoint(mid_model, job.locals[chain.joints[2]].translation) -
      mid_model.translation;
  return internal::AngleArguments{glm::length(glm::cross(upper, lower)),
                                  std::abs(glm::dot(upper, lower))};
}

// The singular directions of the two-bone solver's own plane, into the
// answer's flip report: keeping the incoming bend plane swings the bent limb
// (with the incoming root rotation) onto the target through its root's
// swing cone's axis, which flips where the limb's tip or the target lies
// opposite that axis, or for a root without a cone by the shortest arc,
// which flips when the target lies opposite the bent limb's root -> tip
// direction (internal::SwingSingularity); a pole flips its plane as it
// crosses the root -> target line; and a middle joint without a hinge takes
// the incoming limb's plane, which flips as that limb passes through
// straight (`incoming_plane`, its IncomingBendPlaneAngle). The bent limb's
// angle and the next one's are taken in one pair of SIMD lanes (each lane
// with Atan2's bits).
void ReportBendPlaneSingularity(
    const SolveChainJob& job, const Transform& root_model,
    const Quat& parent_rotation, const PreparedGoal& prepared,
    const std::optional<internal::AngleArguments>& incoming_plane,
    const Quat& incoming_mid, ChainSolveResult& answer) {
  const Chain& chain = *job.goal->chain;
  const Transform mid_model = Compose(root_model, job.locals[chain.joints[1]]);
  const Vec3 bent_tip =
      TransformPoint(mid_model, job.locals[chain.joints[2]].translation) -
      root_model.translation;
  const Vec3 to_target = prepared.target_model - root_model.translation;
  const internal::AngleArguments bent = internal::LimbSwingSingularity(
      bent_tip, to_target,
      internal::SwingCentre(
          job.rig->joint(chain.joints[0]), job.locals[chain.joints[1]],
          job.locals[chain.joints[2]].translation, parent_rotation));
  std::optional<internal::AngleArguments> pole;
  if (prepared.pole_model.has_value()) {
    const Vec3 to_pole = *prepared.pole_model - root_model.translation;
    pole = internal::AngleArguments{glm::length(glm::cross(to_pole, to_target)),
                                    std::abs(glm::dot(to_pole, to_target))};
  }
  const std::optional<internal::AngleArguments>& bend_plane = incoming_plane;
  const std::optional<internal::AngleArguments>& next =
      pole.has_value() ? pole : bend_plane;
  double angle;
  double next_angle = 0.0;
  if (next.has_value()) {
    const internal::Lanes2 angles = internal::Atan2Lanes(
        internal::Lanes2{bent.y, next->y}, internal::Lanes2{bent.x, next->x});
    angle = angles[0];
    next_angle = angles[1];
  } else {
    angle = Atan2(bent.y, bent.x);
  }
  if (pole.has_value()) angle = std::min(angle, next_angle);
  if (bend_plane.has_value()) {
    angle =
        std::min(angle, pole.has_value() ? Atan2(bend_plane->y, bend_plane->x)
                                         : next_angle);
  }
  const JointDefinition& mid = job.rig->joint(chain.joints[1]);
  if (mid.limit.kind == JointLimit::Kind::kHinge) {
    const std::optional<double> flip = internal::HingeFlipAngle(
        mid, job.locals[chain.joints[1]].translation,
        job.locals[chain.joints[2]].translation, incoming_mid,
        job.locals[chain.joints[1]].rotation);
    if (flip.has_value()) angle = std::min(angle, *flip);
  }
  angle = std::min(angle, answer.report.limit_edge_angle);
  answer.singularity_angle = angle;
  answer.near_singularity = angle <= chain.flip_warning_angle;
}

// Blends the tip's rotation towards the goal's world orientation (then
// clamps it to the tip's limit: the last bit of `mask`), given the model
// transform of the tip's parent.
void BlendTipOrientation(const SolveChainJob& job, const PreparedGoal& prepared,
                         const Transform& tip_parent_model,
                         std::uint64_t& mask) {
  const ChainGoal& goal = *job.goal;
  if (!prepared.orientation_world.has_value() ||
      !(goal.orientation_weight > 0.0)) {
    return;
  }
  const Chain& chain = *goal.chain;
  const int chain_length = static_cast<int>(chain.joints.size());
  const int tip = chain.joints[chain_length - 1];
  // World rotation of the tip = root * parent model * local.
  const Quat desired_local =
      glm::conjugate(job.root.rotation * tip_parent_model.rotation) *
      *prepared.orientation_world;
  Quat blended = goal.orientation_weight >= 1.0
                     ? desired_local
                     : Slerp(job.locals[tip].rotation, desired_local,
                             goal.orientation_weight);
  blended = glm::normalize(blended);
  const LimitedRotation limited = ApplyJointConstraint(
      internal::JointConstraintOf(job.rig->joint(tip)), blended);
  job.locals[tip].rotation = limited.rotation;
  if (limited.clamped) mask |= std::uint64_t{1} << (chain_length - 1);
}

// Down the updated chain: the orientation goal, then the answer measured
// in world space on the final pose.
void MeasureAnswer(const SolveChainJob& job, const PreparedGoal& prepared,
                   const Transform& parent_model, std::uint64_t& mask,
                   ChainSolveResult& answer) {
  const ChainGoal& goal = *job.goal;
  const Chain& chain = *goal.chain;
  const int chain_length = static_cast<int>(chain.joints.size());
  Transform model = ChainStartModel(chain, parent_model, job.locals);
  for (int k = 1; k + 1 < chain_length; ++k) {
    model = Compose(model, job.locals[chain.joints[k]]);
  }
  BlendTipOrientation(job, prepared, model, mask);
  const int tip = chain.joints[chain_length - 1];
  answer.report.tip_model = TransformPoint(model, job.locals[tip].translation);
  answer.tip_world = TransformPoint(job.root, answer.report.tip_model);
  answer.report.residual = glm::length(answer.tip_world - goal.target_world);
  answer.report.reached =
      answer.report.residual <= goal.tolerance.value_or(chain.tolerance);
  // One verdict: the stop reason is kReached exactly when the tip ended
  // within tolerance in world space. An iterative solver's own verdict is
  // taken in model space on the chain before the swivel's start-joint clamp,
  // which may pull the tip off (then kOutOfReach, as for the two-bone
  // solver held by a limit); within rounding of the tolerance the measure
  // decides.
  if (answer.report.reached) {
    answer.stop_reason = StopReason::kReached;
  } else if (answer.solver == SolverKind::kTwoBone ||
             answer.stop_reason == StopReason::kReached) {
    answer.stop_reason = StopReason::kOutOfReach;
  }
}

// The answer into `result`, its limited joints from `mask` (bit k: chain
// joint k) into the vector it already has: no allocation once its capacity
// holds them.
void WriteResult(const Chain& chain, std::uint64_t mask,
                 ChainSolveResult&& answer, ChainSolveResult& result) {
  std::vector<int> limited = std::move(result.limited_joints);
  limited.clear();
  // One allocation at most (none when the result's vector holds enough);
  // popcount is a libgcc call without -mpopcnt: not paid for an empty mask.
  if (mask != 0) limited.reserve(static_cast<size_t>(absl::popcount(mask)));
  for (size_t k = 0; k < chain.joints.size(); ++k) {
    if ((mask >> k) & 1) limited.push_back(chain.joints[k]);
  }
  result = std::move(answer);
  result.limited_joints = std::move(limited);
}

}  // namespace

absl::Status SolveChainJob::Validate() const { return Prepare(*this).status(); }

namespace internal {

absl::Status ChainGoalSteps::Begin(const SolveChainJob& job, LimbStart when) {
  solve_.reset();
  absl::StatusOr<PreparedGoal> prepared = Prepare(job);
  if (!prepared.ok()) return prepared.status();
  job_ = &job;
  prepared_ = *std::move(prepared);
  const ChainGoal& goal = *job.goal;
  const Chain& chain = *goal.chain;
  parent_model_ = ChainParentModel(chain, job.locals);
  answer_ = ChainSolveResult();
  answer_.solver = prepared_.solver;
  mask_ = 0;
  swivel_plane_.reset();
  if (goal.swivel.has_value()) {
    for (size_t k = 0; k < chain.joints.size(); ++k) {
      job.workspace->incoming_rotations[k] =
          job.locals[chain.joints[k]].rotation;
    }
    swivel_plane_ =
        BeginSwivel(job, parent_model_, prepared_.target_model, answer_);
    // For the two-bone solver: a pole on the plane's bend side.
    prepared_.pole_model = swivel_plane_->start + swivel_plane_->bend;
  }
  if (prepared_.solver != SolverKind::kTwoBone) {
    const absl::Status status =
        SolveIterative(job, prepared_.solver, parent_model_,
                       prepared_.target_model, answer_, mask_);
    if (!status.ok()) {
      PutBackSwivel();
      return status;
    }
    if (swivel_plane_.has_value()) {
      FinishSwivel(job, parent_model_, *swivel_plane_, mask_);
    }
    Answer();
    return absl::OkStatus();
  }
  root_model_ = ChainStartModel(chain, parent_model_, job.locals);
  incoming_plane_ = goal.swivel.has_value()
                        ? std::nullopt
                        : IncomingBendPlaneAngle(job, root_model_);
  incoming_mid_ = job.locals[chain.joints[1]].rotation;
  solve_.emplace(
      *job.rig,
      TwoBoneJoints{chain.joints[0], chain.joints[1], chain.joints[2]},
      root_model_, prepared_.target_model, prepared_.pole_model,
      goal.tolerance.value_or(chain.tolerance),
      goal.history_free || goal.swivel.has_value(), job.locals, &answer_.report,
      when);
  return absl::OkStatus();
}

absl::Status ChainGoalSteps::Finish(const absl::Status& solved) {
  const SolveChainJob& job = *job_;
  const Chain& chain = *job.goal->chain;
  const absl::Status status = solve_->Finish(solved, job.locals, &mask_);
  solve_.reset();
  if (!status.ok()) {
    PutBackSwivel();
    return ChainRefusedPose(job, chain, status);
  }
  if (!job.goal->swivel.has_value()) {
    ReportBendPlaneSingularity(job, root_model_, parent_model_.rotation,
                               prepared_, incoming_plane_, incoming_mid_,
                               answer_);
  }
  Answer();
  return absl::OkStatus();
}

void ChainGoalSteps::Answer() {
  MeasureAnswer(*job_, prepared_, parent_model_, mask_, answer_);
  WriteResult(*job_->goal->chain, mask_, std::move(answer_), *job_->result);
}

void ChainGoalSteps::PutBackSwivel() const {
  if (!swivel_plane_.has_value()) return;  // leave the pose as it came
  const Chain& chain = *job_->goal->chain;
  for (size_t k = 0; k < chain.joints.size(); ++k) {
    job_->locals[chain.joints[k]].rotation =
        job_->workspace->incoming_rotations[k];
  }
}

}  // namespace internal

absl::Status SolveChainJob::Run() const {
  internal::ChainGoalSteps steps;
  absl::Status status = steps.Begin(*this);
  if (status.ok() && steps.pending()) status = steps.Finish(steps.job().Run());
  return status;
}

}  // namespace ik
