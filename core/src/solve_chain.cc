#include "ik/solve_chain.h"

#include <cmath>
#include <functional>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace ik {
namespace {

bool IsKnownSolver(SolverKind solver) {
  return solver == SolverKind::kAuto || solver == SolverKind::kTwoBone;
}

absl::Status CheckTargetPoint(const Vec3& point_world, const Vec3& point_model,
                              absl::string_view field) {
  if (!IsFinite(point_world)) {
    return absl::InvalidArgumentError(absl::StrCat(field, ": not finite"));
  }
  if (!IsWithinRange(point_model)) {
    return absl::InvalidArgumentError(
        absl::StrCat(field, ": more than ", kMaxCoordinate,
                     " m from the character in model space"));
  }
  return absl::OkStatus();
}

}  // namespace

SolverKind ResolveSolver(SolverKind requested, const Chain& chain) {
  if (requested == SolverKind::kAuto && chain.joints.size() == 3) {
    return SolverKind::kTwoBone;
  }
  return requested;
}

PoseSolver::PoseSolver(const Rig& rig) : rig_(rig) {}

absl::StatusOr<ChainSolveResult> PoseSolver::Solve(
    const ChainGoal& goal, const Transform& root,
    absl::Span<Transform> locals) {
  // The goal and the pose.
  if (goal.chain == nullptr) {
    return absl::InvalidArgumentError("chain: not set");
  }
  const absl::Span<const Chain> chains = rig_.chains();
  const std::less<const Chain*> before;
  if (before(goal.chain, chains.data()) ||
      !before(goal.chain, chains.data() + chains.size())) {
    return absl::InvalidArgumentError(
        absl::StrCat("chain: not a chain of rig '", rig_.name(), "'"));
  }
  const Chain& chain = *goal.chain;
  if (locals.size() != static_cast<size_t>(rig_.joint_count())) {
    return absl::InvalidArgumentError(
        absl::StrCat("locals: ", locals.size(), " transforms for rig '",
                     rig_.name(), "' of ", rig_.joint_count(), " joints"));
  }
  if (absl::StatusOr<Transform> checked_root = ValidateTransform(root, "root");
      !checked_root.ok()) {
    return checked_root.status();
  }
  if (goal.solver.has_value() && !IsKnownSolver(*goal.solver)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "solver: unknown solver ", static_cast<int>(*goal.solver)));
  }
  if (goal.max_iterations.has_value() && *goal.max_iterations < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "max_iterations: must be at least 1, got ", *goal.max_iterations));
  }
  if (goal.tolerance.has_value() &&
      (!IsFinite(*goal.tolerance) || *goal.tolerance < 0.0)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "tolerance: must be finite and >= 0, got ", *goal.tolerance));
  }
  const Vec3 target_model = InverseTransformPoint(root, goal.target_world);
  if (absl::Status status =
          CheckTargetPoint(goal.target_world, target_model, "target");
      !status.ok()) {
    return status;
  }
  std::optional<Vec3> pole_model;
  if (goal.pole_world.has_value()) {
    pole_model = InverseTransformPoint(root, *goal.pole_world);
    if (absl::Status status =
            CheckTargetPoint(*goal.pole_world, *pole_model, "pole");
        !status.ok()) {
      return status;
    }
  }

  // The solver.
  const int chain_length = static_cast<int>(chain.joints.size());
  const SolverKind solver =
      ResolveSolver(goal.solver.value_or(chain.solver), chain);
  if (solver == SolverKind::kAuto) {
    return absl::UnimplementedError(absl::StrCat(
        "chain '", chain.name, "' has ", chain_length,
        " joints: only 3-joint chains (the two-bone solver) can be solved so "
        "far"));
  }
  if (chain_length != 3) {
    return absl::InvalidArgumentError(absl::StrCat(
        "solver: the two-bone solver needs a chain of exactly 3 joints; chain "
        "'",
        chain.name, "' has ", chain_length));
  }

  // Forward kinematics in model space, down the chain's path only. Each
  // ancestor is the parent of the next, so the running transform stays in
  // registers.
  const int root_joint = chain.joints[0];
  const int mid_joint = chain.joints[1];
  const int tip_joint = chain.joints[2];
  const std::vector<int>& ancestors = chain.ancestors;
  Transform parent_model;  // identity: a rig's roots live in model space
  for (size_t i = 0; i < ancestors.size(); ++i) {
    parent_model = i == 0 ? locals[ancestors[i]]
                          : Compose(parent_model, locals[ancestors[i]]);
  }
  const Transform root_model = ancestors.empty()
                                   ? locals[root_joint]
                                   : Compose(parent_model, locals[root_joint]);
  const Transform mid_model = Compose(root_model, locals[mid_joint]);

  Quat root_correction = IdentityQuat();
  Quat mid_correction = IdentityQuat();
  ChainSolveResult result;
  TwoBoneJob job;
  job.root_model = root_model;
  job.mid_model = mid_model;
  job.tip_model.translation =
      TransformPoint(mid_model, locals[tip_joint].translation);
  job.target_model = target_model;
  job.pole_model = pole_model;
  const JointDefinition& mid_definition = rig_.joint(mid_joint);
  if (mid_definition.limit.kind == JointLimit::Kind::kHinge) {
    // The hinge axis lives in the middle joint's rest local frame; the
    // parent (the chain's root) carries that frame into model space. Turning
    // about it keeps a pose that honours the hinge on the hinge.
    job.mid_axis_model =
        root_model.rotation *
        (mid_definition.rest.rotation * mid_definition.limit.hinge.axis);
  }
  job.tolerance = goal.tolerance.value_or(chain.tolerance);
  job.root_correction = &root_correction;
  job.mid_correction = &mid_correction;
  job.report = &result.report;
  if (absl::Status status = job.Run(); !status.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("locals: chain '", chain.name,
                     "' cannot be solved in this pose: ", status.message()));
  }

  // Apply, then measure the tip on the updated pose (only the root's
  // rotation changed on the path down to the chain).
  locals[root_joint].rotation =
      glm::normalize(locals[root_joint].rotation * root_correction);
  locals[mid_joint].rotation =
      glm::normalize(locals[mid_joint].rotation * mid_correction);
  Transform root_after = root_model;
  root_after.rotation =
      ancestors.empty() ? locals[root_joint].rotation
                        : parent_model.rotation * locals[root_joint].rotation;
  const Transform mid_after = Compose(root_after, locals[mid_joint]);

  result.solver = solver;
  result.report.tip_model =
      TransformPoint(mid_after, locals[tip_joint].translation);
  result.tip_world = TransformPoint(root, result.report.tip_model);
  result.report.residual = glm::length(result.tip_world - goal.target_world);
  result.report.reached = result.report.residual <= job.tolerance;
  result.report.iterations = 1;
  return result;
}

}  // namespace ik
