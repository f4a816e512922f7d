#include "convert/solve.h"

#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "convert/rig.h"
#include "convert/values.h"
#include "ik/base/field_error.h"
#include "ik/base/validate.h"

namespace ik::server {
namespace {

v1::StopReason StopReasonToProto(StopReason reason) {
  switch (reason) {
    case StopReason::kReached:
      return v1::STOP_REASON_REACHED;
    case StopReason::kIterationCap:
      return v1::STOP_REASON_ITERATION_CAP;
    case StopReason::kNoImprovement:
      return v1::STOP_REASON_NO_IMPROVEMENT;
    case StopReason::kOutOfReach:
      return v1::STOP_REASON_OUT_OF_REACH;
  }
  return v1::STOP_REASON_UNSPECIFIED;
}

// Resolves the goal's chain reference: a rig chain by name, or an ad hoc
// chain validated like a rig chain and kept in `ad_hoc_chains`.
absl::StatusOr<const Chain*> ChainFromProto(const v1::ChainGoal& goal,
                                            const Rig& rig,
                                            absl::string_view path,
                                            std::list<Chain>& ad_hoc_chains) {
  switch (goal.chain_ref_case()) {
    case v1::ChainGoal::CHAIN_REF_NOT_SET:
      return InvalidField(absl::StrCat(path, ".chain"),
                          "required (or ad_hoc_chain with root and tip)");
    case v1::ChainGoal::kChain: {
      if (goal.chain().empty()) {
        return InvalidField(absl::StrCat(path, ".chain"), "required");
      }
      const Chain* chain = rig.FindChain(goal.chain());
      if (chain == nullptr) {
        return FieldError(absl::StatusCode::kNotFound,
                          absl::StrCat(path, ".chain"),
                          absl::StrCat("rig ", Quoted(rig.name()),
                                       " has no chain ", Quoted(goal.chain())));
      }
      return chain;
    }
    case v1::ChainGoal::kAdHocChain: {
      ChainDefinition definition;
      definition.root = goal.ad_hoc_chain().root();
      definition.tip = goal.ad_hoc_chain().tip();
      definition.name = absl::StrCat(definition.root, "..", definition.tip);
      absl::StatusOr<Chain> chain = rig.MakeChain(definition);
      if (!chain.ok()) {
        return Rooted(chain.status(), absl::StrCat(path, ".ad_hoc_chain"));
      }
      return &ad_hoc_chains.emplace_back(*std::move(chain));
    }
  }
  return InvalidField(path, "bad chain");
}

}  // namespace

absl::StatusOr<ChainGoal> GoalFromProto(const v1::ChainGoal& goal,
                                        const Rig& rig, int index,
                                        std::list<Chain>& ad_hoc_chains) {
  // Only what the wire form adds is checked here (the chain reference, a
  // required target, the solver enum, 0 meaning unset); the values go to
  // the core raw, which validates them under `path` (ChainGoal::path).
  ChainGoal out;
  out.path = absl::StrCat("goals[", index, "]");
  absl::StatusOr<const Chain*> chain =
      ChainFromProto(goal, rig, out.path, ad_hoc_chains);
  if (!chain.ok()) return chain.status();
  out.chain = *chain;
  if (!goal.has_target()) {
    return InvalidField(absl::StrCat(out.path, ".target"), "required");
  }
  out.target_world = FromProto(goal.target());
  if (goal.has_pole()) out.pole_world = FromProto(goal.pole());
  if (goal.has_swivel()) out.swivel = goal.swivel();
  out.history_free = goal.history_free();
  if (goal.solver() != v1::SOLVER_UNSPECIFIED) {
    absl::StatusOr<SolverKind> solver =
        SolverFromProto(goal.solver(), absl::StrCat(out.path, ".solver"));
    if (!solver.ok()) return solver.status();
    out.solver = *solver;
  }
  if (goal.max_iterations() != 0) out.max_iterations = goal.max_iterations();
  if (goal.tolerance() != 0.0) out.tolerance = goal.tolerance();
  if (goal.has_orientation()) {
    // Normalised here as well as in the core: the answers' bits depend on
    // both roundings (the golden answers pin them).
    absl::StatusOr<Quat> orientation = NormalizeRotation(
        FromProto(goal.orientation()), absl::StrCat(out.path, ".orientation"));
    if (!orientation.ok()) return orientation.status();
    out.orientation_world = *orientation;
  }
  if (goal.has_orientation_weight()) {
    if (!goal.has_orientation()) {
      return InvalidField(absl::StrCat(out.path, ".orientation_weight"),
                          "set without an orientation");
    }
    out.orientation_weight = goal.orientation_weight();
  }
  return out;
}

void GoalResultToProto(const ChainGoal& goal, const Rig& rig,
                       const ChainSolveResult& result,
                       absl::Span<const Transform> locals, AnswerForm form,
                       v1::GoalResult& out) {
  const Chain& chain = *goal.chain;
  out.set_chain(chain.name);
  // A position goal leaves the tip's rotation alone; an orientation turns it.
  const size_t joints = goal.orientation_world.has_value()
                            ? chain.joints.size()
                            : chain.joints.size() - 1;
  for (size_t i = 0; i < joints; ++i) {
    const int joint = chain.joints[i];
    AddJointRotation(rig, joint, locals[joint].rotation,
                     out.mutable_rotations(), form);
  }
  out.set_reached(result.report.reached);
  out.set_residual(result.report.residual);
  out.set_iterations(result.report.iterations);
  out.set_stop_reason(StopReasonToProto(result.stop_reason));
  ToProto(result.tip_world, out.mutable_effector());
  out.set_solver(SolverToProto(result.solver));
  for (int joint : result.limited_joints) {
    out.add_limited_joints(rig.joint(joint).name);
  }
  out.set_near_singularity(result.near_singularity);
  out.set_singularity_angle(result.singularity_angle);
  out.set_branch_switch(result.report.branch_switch);
}

}  // namespace ik::server
