#include "ik/rig/solve_chain.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "ik/base/validate.h"
#include "ik/solvers/ccd.h"
#include "ik/solvers/fabrik.h"
#include "ik/solvers/swivel.h"
#include "ik/solvers/torque.h"
#include "solvers/two_bone_limits.h"

namespace ik {
namespace {

bool IsKnownSolver(SolverKind solver) {
  return solver == SolverKind::kAuto || solver == SolverKind::kTwoBone ||
         solver == SolverKind::kFabrik || solver == SolverKind::kCcd ||
         solver == SolverKind::kTorque;
}

absl::Status CheckTargetPoint(const Vec3& point_world, const Vec3& point_model,
                              absl::string_view path) {
  if (!IsFinite(point_world)) return InvalidField(path, "not finite");
  if (!IsWithinRange(point_model)) {
    return InvalidField(path, absl::StrCat("more than ", kMaxCoordinate,
                                           " m from the character in model "
                                           "space"));
  }
  return absl::OkStatus();
}

// A chain of `rig`: 2..kMaxChainJoints joints, each the parent of the next,
// below its listed ancestors (what Create and MakeChain build). Checked
// structurally, so ad hoc chains pass as well as the rig's own.
bool IsChainOf(const Rig& rig, const Chain& chain) {
  const size_t count = chain.joints.size();
  if (count < 2 || count > static_cast<size_t>(kMaxChainJoints)) return false;
  const absl::Span<const int> parents = rig.parents();
  const int joint_count = rig.joint_count();
  int expected_parent = kNoParent;
  for (const int ancestor : chain.ancestors) {
    if (ancestor < 0 || ancestor >= joint_count ||
        parents[ancestor] != expected_parent) {
      return false;
    }
    expected_parent = ancestor;
  }
  for (const int joint : chain.joints) {
    if (joint < 0 || joint >= joint_count ||
        parents[joint] != expected_parent) {
      return false;
    }
    expected_parent = joint;
  }
  return true;
}

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

PoseSolver::PoseSolver(const Rig& rig, std::string pose_path)
    : rig_(rig),
      locals_path_(pose_path.empty() ? "locals" : pose_path),
      root_path_(pose_path.empty() ? "root"
                                   : absl::StrCat(pose_path, ".root")) {}

absl::StatusOr<ChainSolveResult> PoseSolver::Solve(
    const ChainGoal& goal, const Transform& root,
    absl::Span<Transform> locals) {
  // The goal and the pose.
  // Every error about the goal names "<goal.path>.<field>" (the path is
  // built on the error path only: a solve allocates no strings).
  const auto field = [&goal](absl::string_view name) {
    return goal.path.empty() ? std::string(name)
                             : absl::StrCat(goal.path, ".", name);
  };
  if (goal.chain == nullptr) return InvalidField(field("chain"), "not set");
  const Chain& chain = *goal.chain;
  if (!IsChainOf(rig_, chain)) {
    return InvalidField(field("chain"), absl::StrCat("not a chain of rig ",
                                                     Quoted(rig_.name())));
  }
  if (locals.size() != static_cast<size_t>(rig_.joint_count())) {
    return InvalidField(
        locals_path_,
        absl::StrCat(locals.size(), " transforms for rig ", Quoted(rig_.name()),
                     " of ", rig_.joint_count(), " joints"));
  }
  if (absl::StatusOr<Transform> checked_root =
          ValidateTransform(root, root_path_);
      !checked_root.ok()) {
    return checked_root.status();
  }
  if (goal.solver.has_value() && !IsKnownSolver(*goal.solver)) {
    return InvalidField(
        field("solver"),
        absl::StrCat("unknown solver ", static_cast<int>(*goal.solver)));
  }
  if (goal.max_iterations.has_value() && *goal.max_iterations < 1) {
    return InvalidField(
        field("max_iterations"),
        absl::StrCat("must be at least 1, got ", *goal.max_iterations));
  }
  if (goal.tolerance.has_value() &&
      (!IsFinite(*goal.tolerance) || *goal.tolerance < 0.0)) {
    return InvalidField(
        field("tolerance"),
        absl::StrCat("must be finite and >= 0, got ", *goal.tolerance));
  }
  std::optional<Quat> orientation_world;
  if (goal.orientation_world.has_value()) {
    absl::StatusOr<Quat> orientation =
        NormalizeRotation(*goal.orientation_world, "orientation");
    if (!orientation.ok()) return Rooted(orientation.status(), goal.path);
    orientation_world = *orientation;
    if (!(goal.orientation_weight >= 0.0 && goal.orientation_weight <= 1.0)) {
      return InvalidField(
          field("orientation_weight"),
          absl::StrCat(goal.orientation_weight, " is not within [0, 1]"));
    }
  }
  const Vec3 target_model = InverseTransformPoint(root, goal.target_world);
  if (absl::Status status =
          CheckTargetPoint(goal.target_world, target_model, "target");
      !status.ok()) {
    return Rooted(status, goal.path);
  }
  std::optional<Vec3> pole_model;
  if (goal.pole_world.has_value()) {
    pole_model = InverseTransformPoint(root, *goal.pole_world);
    if (absl::Status status =
            CheckTargetPoint(*goal.pole_world, *pole_model, "pole");
        !status.ok()) {
      return Rooted(status, goal.path);
    }
  }

  if (goal.swivel.has_value()) {
    if (goal.pole_world.has_value()) {
      return InvalidField(field("swivel"), "give a swivel or a pole, not both");
    }
    if (!IsFinite(*goal.swivel)) {
      return InvalidField(field("swivel"), "not finite");
    }
    if (!chain.zero_plane_map.has_value() ||
        chain.preferred_rotations.size() != chain.joints.size()) {
      return FieldError(
          absl::StatusCode::kFailedPrecondition, field("swivel"),
          absl::StrCat(
              "chain '", chain.name,
              "' has no zero-plane map: its joints lie on one line in its "
              "preferred pose (give the chain a preferred_pose that bends "
              "it)"));
    }
  }

  // The solver.
  const int chain_length = static_cast<int>(chain.joints.size());
  const SolverKind solver =
      ResolveSolver(goal.solver.value_or(chain.solver), chain);
  if (solver == SolverKind::kTwoBone && chain_length != 3) {
    return InvalidField(
        field("solver"),
        absl::StrCat("the two-bone solver needs a chain of exactly 3 joints; "
                     "chain '",
                     chain.name, "' has ", chain_length));
  }

  // Forward kinematics in model space down to the chain's root's parent.
  // Each ancestor is the parent of the next, so the running transform stays
  // in registers.
  const std::vector<int>& ancestors = chain.ancestors;
  Transform parent_model;  // identity: a rig's roots live in model space
  for (size_t i = 0; i < ancestors.size(); ++i) {
    parent_model = i == 0 ? locals[ancestors[i]]
                          : Compose(parent_model, locals[ancestors[i]]);
  }

  ChainSolveResult result;
  result.solver = solver;
  std::uint64_t mask = 0;
  std::optional<SwivelPlacement> swivel_plane;
  if (goal.swivel.has_value()) {
    for (int k = 0; k < chain_length; ++k) {
      incoming_rotations_[k] = locals[chain.joints[k]].rotation;
    }
    swivel_plane = BeginSwivel(goal, chain, root, parent_model, target_model,
                               locals, result);
    // For the two-bone solver: a pole on the plane's bend side.
    pole_model = swivel_plane->start + swivel_plane->bend;
  }
  const absl::Status status =
      solver == SolverKind::kTwoBone
          ? SolveTwoBone(goal, chain, parent_model, target_model, pole_model,
                         locals, result, mask)
          : SolveIterative(solver, goal, chain, root, parent_model,
                           target_model, locals, result, mask);
  if (!status.ok()) {
    if (swivel_plane.has_value()) {
      for (int k = 0; k < chain_length; ++k) {
        locals[chain.joints[k]].rotation = incoming_rotations_[k];
      }
    }
    return status;
  }
  if (swivel_plane.has_value() && solver != SolverKind::kTwoBone) {
    FinishSwivel(chain, parent_model, *swivel_plane, locals, mask);
  }

  // Down the updated chain: the tip's position, and the world rotation of
  // its parent for an orientation goal.
  Transform model = ancestors.empty()
                        ? locals[chain.joints[0]]
                        : Compose(parent_model, locals[chain.joints[0]]);
  for (int k = 1; k + 1 < chain_length; ++k) {
    model = Compose(model, locals[chain.joints[k]]);
  }
  const int tip = chain.joints[chain_length - 1];
  if (orientation_world.has_value() && goal.orientation_weight > 0.0) {
    // World rotation of the tip = root * parent model * local.
    const Quat desired_local =
        glm::conjugate(root.rotation * model.rotation) * *orientation_world;
    Quat blended = goal.orientation_weight >= 1.0
                       ? desired_local
                       : glm::slerp(locals[tip].rotation, desired_local,
                                    goal.orientation_weight);
    blended = glm::normalize(blended);
    const LimitedRotation limited = ApplyJointConstraint(
        internal::JointConstraintOf(rig_.joint(tip)), blended);
    locals[tip].rotation = limited.rotation;
    if (limited.clamped) mask |= std::uint64_t{1} << (chain_length - 1);
  }
  result.report.tip_model = TransformPoint(model, locals[tip].translation);
  result.tip_world = TransformPoint(root, result.report.tip_model);
  result.report.residual = glm::length(result.tip_world - goal.target_world);
  result.report.reached =
      result.report.residual <= goal.tolerance.value_or(chain.tolerance);
  if (solver == SolverKind::kTwoBone) {
    result.stop_reason =
        result.report.reached ? StopReason::kReached : StopReason::kOutOfReach;
  }
  for (int k = 0; k < chain_length; ++k) {
    if ((mask >> k) & 1) result.limited_joints.push_back(chain.joints[k]);
  }
  return result;
}

void PoseSolver::ChainPositions(const Chain& chain,
                                const Transform& parent_model,
                                absl::Span<const Transform> locals) {
  Transform model = chain.ancestors.empty()
                        ? locals[chain.joints[0]]
                        : Compose(parent_model, locals[chain.joints[0]]);
  swivel_positions_[0] = model.translation;
  for (size_t k = 1; k < chain.joints.size(); ++k) {
    model = Compose(model, locals[chain.joints[k]]);
    swivel_positions_[k] = model.translation;
  }
}

SwivelPlacement PoseSolver::BeginSwivel(
    const ChainGoal& goal, const Chain& chain, const Transform& root,
    const Transform& parent_model, const Vec3& target_model,
    absl::Span<Transform> locals, ChainSolveResult& result) {
  // History independence: every rotation the solve turns starts from the
  // preferred pose.
  const size_t count = chain.joints.size();
  for (size_t k = 0; k + 1 < count; ++k) {
    locals[chain.joints[k]].rotation = chain.preferred_rotations[k];
  }
  ChainPositions(chain, parent_model, locals);
  const SwivelPlacement placement =
      PlaceSwivel(*chain.zero_plane_map, chain.swivel_space, root, parent_model,
                  absl::MakeConstSpan(swivel_positions_.data(), count),
                  target_model, *goal.swivel);
  result.singularity_angle = placement.singularity_angle;
  result.near_singularity =
      placement.singularity_angle <= chain.flip_warning_angle;
  Transform& start_local = locals[chain.joints[0]];
  start_local.rotation =
      TurnInModelSpace(parent_model, placement.turn, start_local.rotation);
  return placement;
}

void PoseSolver::FinishSwivel(const Chain& chain, const Transform& parent_model,
                              const SwivelPlacement& plane,
                              absl::Span<Transform> locals,
                              std::uint64_t& mask) {
  ChainPositions(chain, parent_model, locals);
  const std::optional<Vec3> bend = FitBendDirection(
      absl::MakeConstSpan(swivel_positions_.data(), chain.joints.size()),
      plane.axis);
  if (!bend.has_value()) return;  // straight: no plane to turn
  // Only the plane drifts: the solve keeps the side the seed bent to, while
  // the side FitBendDirection reads off a zig-zag chain may change at once.
  // So the turn is the smaller one that lays the fitted line onto the plane.
  const double angle =
      std::remainder(SignedAngleAbout(*bend, plane.bend, plane.axis), kPi);
  if (angle == 0.0) return;
  const int start = chain.joints[0];
  const Quat turned = TurnInModelSpace(
      parent_model, AngleAxis(angle, plane.axis), locals[start].rotation);
  const LimitedRotation limited = ApplyJointConstraint(
      internal::JointConstraintOf(rig_.joint(start)), turned);
  locals[start].rotation = limited.rotation;
  mask = limited.clamped ? mask | 1 : mask & ~std::uint64_t{1};
}

absl::Status PoseSolver::SolveIterative(
    SolverKind solver, const ChainGoal& goal, const Chain& chain,
    const Transform& root, const Transform& parent_model,
    const Vec3& target_model, absl::Span<Transform> locals,
    ChainSolveResult& result, std::uint64_t& mask) {
  const int count = static_cast<int>(chain.joints.size());
  for (int k = 0; k < count; ++k) {
    const int joint = chain.joints[k];
    chain_locals_[k] = locals[joint];
    constraints_[k] = internal::JointConstraintOf(rig_.joint(joint));
  }
  // Model-space distances grow by at most the root's largest scale factor
  // on their way to world space.
  const double world_scale =
      std::max(root.scale.x, std::max(root.scale.y, root.scale.z));
  ChainJob job;
  job.parent_model = parent_model;
  job.locals = absl::MakeSpan(chain_locals_.data(), count);
  job.constraints = absl::MakeConstSpan(constraints_.data(), count);
  job.target_model = target_model;
  job.max_iterations = goal.max_iterations.value_or(chain.max_iterations);
  job.tolerance = goal.tolerance.value_or(chain.tolerance) / world_scale;
  job.workspace = &workspace_;
  job.report = &result.report;
  job.stop_reason = &result.stop_reason;
  job.limited_mask = &mask;
  absl::Status status;
  if (solver == SolverKind::kTorque) {
    TorqueJob torque;
    static_cast<ChainJob&>(torque) = job;
    torque.settings = chain.torque;
    torque.settings.joints = chain.torque_joints;
    status = torque.Run();
  } else if (solver == SolverKind::kCcd) {
    status = CcdJob{job}.Run();
  } else {
    status = FabrikJob{job}.Run();
  }
  if (!status.ok()) {
    return InvalidField(
        locals_path_,
        absl::StrCat("chain '", chain.name,
                     "' cannot be solved in this pose: ", status.message()));
  }
  for (int k = 0; k + 1 < count; ++k) {
    locals[chain.joints[k]].rotation = chain_locals_[k].rotation;
  }
  return absl::OkStatus();
}

absl::Status PoseSolver::SolveTwoBone(const ChainGoal& goal, const Chain& chain,
                                      const Transform& parent_model,
                                      const Vec3& target_model,
                                      const std::optional<Vec3>& pole_model,
                                      absl::Span<Transform> locals,
                                      ChainSolveResult& result,
                                      std::uint64_t& mask) {
  const int root_joint = chain.joints[0];
  const Transform root_model = chain.ancestors.empty()
                                   ? locals[root_joint]
                                   : Compose(parent_model, locals[root_joint]);
  if (absl::Status status = internal::SolveTwoBoneWithLimits(
          rig_, {root_joint, chain.joints[1], chain.joints[2]}, root_model,
          target_model, pole_model, goal.tolerance.value_or(chain.tolerance),
          locals, &result.report, &mask);
      !status.ok()) {
    return InvalidField(
        locals_path_,
        absl::StrCat("chain '", chain.name,
                     "' cannot be solved in this pose: ", status.message()));
  }
  return absl::OkStatus();
}

}  // namespace ik
