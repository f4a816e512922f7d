// SolveChainJob's validation (ik/rig/solve_chain.h): the job's own inputs,
// the goal's settings, its points in model space and its swivel, each error
// naming the goal's field path.
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "ik/base/field_error.h"
#include "ik/base/validate.h"
#include "ik/rig/solve_chain.h"
#include "rig/solve_chain_internal.h"

namespace ik::internal {
namespace {

// The error for a point CheckTargetPoint's quick test refused (built only
// then).
absl::Status TargetPointError(const Vec3& point_world, const Vec3& point_model,
                              absl::string_view path) {
  if (!IsFinite(point_world)) return InvalidField(path, "not finite");
  if (!IsWithinRange(point_model)) {
    return InvalidField(path, absl::StrCat("more than ", kMaxCoordinate,
                                           " m from the character in model "
                                           "space"));
  }
  return absl::OkStatus();
}

// OK when the world point is finite and its model-space image within
// kMaxCoordinate.
inline absl::Status CheckTargetPoint(const Vec3& point_world,
                                     const Vec3& point_model,
                                     absl::string_view path) {
  // x * 0 is 0 for finite x, NaN otherwise.
  const double zero =
      (point_world.x * 0.0 + point_world.y * 0.0) + point_world.z * 0.0;
  if (zero == 0.0 && IsWithinRange(point_model)) return absl::OkStatus();
  return TargetPointError(point_world, point_model, path);
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

// "<goal.path>.<name>", or `name` alone: built on the error path only (a
// solve allocates no strings).
std::string GoalField(const ChainGoal& goal, absl::string_view name) {
  return goal.path.empty() ? std::string(name)
                           : absl::StrCat(goal.path, ".", name);
}

std::string RootPath(const SolveChainJob& job) {
  return job.pose_path.empty() ? std::string("root")
                               : absl::StrCat(job.pose_path, ".root");
}

// The job's own fields: the pointers, the chain's membership, the pose's
// size and the root.
absl::Status CheckJobInputs(const SolveChainJob& job) {
  if (job.rig == nullptr) return InvalidField("rig", "not set");
  if (job.goal == nullptr) return InvalidField("goal", "not set");
  if (job.workspace == nullptr) return InvalidField("workspace", "not set");
  if (job.result == nullptr) return InvalidField("result", "not set");
  const Rig& rig = *job.rig;
  const ChainGoal& goal = *job.goal;
  if (goal.chain == nullptr) {
    return InvalidField(GoalField(goal, "chain"), "not set");
  }
  if (!IsChainOf(rig, *goal.chain)) {
    return InvalidField(
        GoalField(goal, "chain"),
        absl::StrCat("not a chain of rig ", Quoted(rig.name())));
  }
  if (job.locals.size() != static_cast<size_t>(rig.joint_count())) {
    return InvalidField(
        LocalsPath(job),
        absl::StrCat(job.locals.size(), " transforms for rig ",
                     Quoted(rig.name()), " of ", rig.joint_count(), " joints"));
  }
  if (TransformLooksValid(job.root)) return absl::OkStatus();
  return ValidateTransform(job.root, RootPath(job)).status();
}

// The goal's overrides of its chain's settings, and its orientation.
absl::Status CheckGoalSettings(const ChainGoal& goal, PreparedGoal& prepared) {
  if (goal.solver.has_value() && !IsKnownSolver(*goal.solver)) {
    return InvalidField(
        GoalField(goal, "solver"),
        absl::StrCat("unknown solver ", static_cast<int>(*goal.solver)));
  }
  if (goal.max_iterations.has_value() && *goal.max_iterations < 1) {
    return InvalidField(
        GoalField(goal, "max_iterations"),
        absl::StrCat("must be at least 1, got ", *goal.max_iterations));
  }
  if (goal.tolerance.has_value() &&
      (!IsFinite(*goal.tolerance) || *goal.tolerance < 0.0)) {
    return InvalidField(
        GoalField(goal, "tolerance"),
        absl::StrCat("must be finite and >= 0, got ", *goal.tolerance));
  }
  if (goal.orientation_world.has_value()) {
    absl::StatusOr<Quat> orientation =
        NormalizeRotation(*goal.orientation_world, "orientation");
    if (!orientation.ok()) return Rooted(orientation.status(), goal.path);
    prepared.orientation_world = *orientation;
    if (!(goal.orientation_weight >= 0.0 && goal.orientation_weight <= 1.0)) {
      return InvalidField(
          GoalField(goal, "orientation_weight"),
          absl::StrCat(goal.orientation_weight, " is not within [0, 1]"));
    }
  }
  return absl::OkStatus();
}

// The target and the pole, in model space.
absl::Status PlaceGoalPoints(const ChainGoal& goal, const Transform& root,
                             PreparedGoal& prepared) {
  prepared.target_model = InverseTransformPoint(root, goal.target_world);
  if (absl::Status status =
          CheckTargetPoint(goal.target_world, prepared.target_model, "target");
      !status.ok()) {
    return Rooted(status, goal.path);
  }
  if (goal.pole_world.has_value()) {
    prepared.pole_model = InverseTransformPoint(root, *goal.pole_world);
    if (absl::Status status =
            CheckTargetPoint(*goal.pole_world, *prepared.pole_model, "pole");
        !status.ok()) {
      return Rooted(status, goal.path);
    }
  }
  return absl::OkStatus();
}

absl::Status CheckSwivel(const ChainGoal& goal) {
  if (!goal.swivel.has_value()) return absl::OkStatus();
  if (goal.pole_world.has_value()) {
    return InvalidField(GoalField(goal, "swivel"),
                        "give a swivel or a pole, not both");
  }
  if (!IsFinite(*goal.swivel)) {
    return InvalidField(GoalField(goal, "swivel"), "not finite");
  }
  const Chain& chain = *goal.chain;
  if (!chain.zero_plane_map.has_value() ||
      chain.preferred_rotations.size() != chain.joints.size()) {
    return FieldError(
        absl::StatusCode::kFailedPrecondition, GoalField(goal, "swivel"),
        absl::StrCat(
            "chain '", chain.name,
            "' has no zero-plane map: its joints lie on one line in its "
            "preferred pose (give the chain a preferred_pose that bends "
            "it)"));
  }
  return absl::OkStatus();
}

}  // namespace

std::string LocalsPath(const SolveChainJob& job) {
  return job.pose_path.empty() ? std::string("locals")
                               : std::string(job.pose_path);
}

// Everything Validate() checks, with what the solve needs of it.
absl::StatusOr<PreparedGoal> Prepare(const SolveChainJob& job) {
  if (absl::Status status = CheckJobInputs(job); !status.ok()) return status;
  const ChainGoal& goal = *job.goal;
  PreparedGoal prepared;
  if (absl::Status status = CheckGoalSettings(goal, prepared); !status.ok()) {
    return status;
  }
  if (absl::Status status = PlaceGoalPoints(goal, job.root, prepared);
      !status.ok()) {
    return status;
  }
  if (absl::Status status = CheckSwivel(goal); !status.ok()) return status;
  const Chain& chain = *goal.chain;
  const int chain_length = static_cast<int>(chain.joints.size());
  prepared.solver = ResolveSolver(goal.solver.value_or(chain.solver), chain);
  if (prepared.solver == SolverKind::kTwoBone && chain_length != 3) {
    return InvalidField(
        GoalField(goal, "solver"),
        absl::StrCat("the two-bone solver needs a chain of exactly 3 joints; "
                     "chain '",
                     chain.name, "' has ", chain_length));
  }
  return prepared;
}

}  // namespace ik::internal
