// Rig::BuildChain: a chain of a rig, from its definition (for Rig::Create and
// Rig::MakeChain), in stages: its joints, its bones, its settings, its
// preferred pose and swivel map, its torque settings.
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "ik/base/field_error.h"
#include "ik/base/validate.h"
#include "ik/rig/rig.h"
#include "ik/solvers/swivel.h"
#include "rig/chain_torque.h"

namespace ik {
namespace {

// The joint called `name` for the field at `path`.
absl::StatusOr<int> FindChainJoint(const Rig& rig, const std::string& name,
                                   const std::string& path) {
  const int joint = rig.FindJoint(name);
  if (joint == kNoParent) {
    return FieldError(absl::StatusCode::kNotFound, path,
                      absl::StrCat("unknown joint ", Quoted(name)));
  }
  return joint;
}

// The chain's joints from root to tip, each the parent of the next.
absl::StatusOr<std::vector<int>> ChainJoints(const Rig& rig,
                                             const ChainDefinition& definition,
                                             absl::string_view path_prefix) {
  const std::string root_path = absl::StrCat(path_prefix, "root");
  const std::string tip_path = absl::StrCat(path_prefix, "tip");
  if (definition.root.empty()) return InvalidField(root_path, "empty");
  if (definition.tip.empty()) return InvalidField(tip_path, "empty");
  absl::StatusOr<int> root = FindChainJoint(rig, definition.root, root_path);
  if (!root.ok()) return root.status();
  absl::StatusOr<int> tip = FindChainJoint(rig, definition.tip, tip_path);
  if (!tip.ok()) return tip.status();
  if (*tip == *root) {
    return InvalidField(
        tip_path,
        absl::StrCat(Quoted(definition.tip),
                     " is also the root; a chain needs at least 2 joints"));
  }
  // Walk from the tip up the parent links until the root.
  std::vector<int> joints;
  int joint = *tip;
  while (joint != kNoParent && joint != *root) {
    joints.push_back(joint);
    joint = rig.joint(joint).parent;
  }
  if (joint != *root) {
    return InvalidField(tip_path, absl::StrCat("joint '", definition.tip,
                                               "' does not descend from root '",
                                               definition.root, "'"));
  }
  joints.push_back(*root);
  std::reverse(joints.begin(), joints.end());
  const int chain_length = static_cast<int>(joints.size());
  if (chain_length > kMaxChainJoints) {
    return InvalidField(
        tip_path, absl::StrCat("the chain from '", definition.root, "' to '",
                               definition.tip, "' has ", chain_length,
                               " joints, at most ", kMaxChainJoints));
  }
  return joints;
}

// `joint`'s ancestors, top-most first.
std::vector<int> AncestorsOf(const Rig& rig, int joint) {
  std::vector<int> ancestors;
  for (int ancestor = rig.joint(joint).parent; ancestor != kNoParent;
       ancestor = rig.joint(ancestor).parent) {
    ancestors.push_back(ancestor);
  }
  std::reverse(ancestors.begin(), ancestors.end());
  return ancestors;
}

// Every bone of the chain is at least kMinBoneLength long in the rest pose
// (model space, down the path from the top-most ancestor).
absl::Status CheckChainBones(const Rig& rig, const Chain& chain,
                             absl::Span<const int> joints,
                             absl::string_view path_prefix) {
  Transform rest_model;
  for (size_t i = 0; i < chain.ancestors.size(); ++i) {
    const Transform& rest = rig.joint(chain.ancestors[i]).rest;
    rest_model = i == 0 ? rest : Compose(rest_model, rest);
  }
  Vec3 parent_position(0.0);
  for (size_t k = 0; k < joints.size(); ++k) {
    const Transform& rest = rig.joint(joints[k]).rest;
    rest_model =
        k == 0 && chain.ancestors.empty() ? rest : Compose(rest_model, rest);
    if (k > 0 && !(glm::length(rest_model.translation - parent_position) >=
                   kMinBoneLength)) {
      return InvalidField(
          absl::StrCat(path_prefix, "tip"),
          absl::StrCat("zero-length bone from '", rig.joint(joints[k - 1]).name,
                       "' to '", rig.joint(joints[k]).name, "'"));
    }
    parent_position = rest_model.translation;
  }
  return absl::OkStatus();
}

// The solver, its caps and the swivel settings.
absl::Status CheckChainSettings(const ChainDefinition& definition,
                                int chain_length,
                                absl::string_view path_prefix) {
  const auto field = [path_prefix](absl::string_view name) {
    return absl::StrCat(path_prefix, name);
  };
  if (!IsKnownSolver(definition.solver)) {
    return InvalidField(
        field("solver"),
        absl::StrCat("unknown solver ", static_cast<int>(definition.solver)));
  }
  if (definition.solver == SolverKind::kTwoBone && chain_length != 3) {
    return InvalidField(
        field("solver"),
        absl::StrCat("the two-bone solver needs exactly 3 joints; the chain "
                     "has ",
                     chain_length));
  }
  if (definition.max_iterations < 1) {
    return InvalidField(
        field("max_iterations"),
        absl::StrCat("must be at least 1, got ", definition.max_iterations));
  }
  if (!IsFinite(definition.tolerance) || definition.tolerance < 0.0) {
    return InvalidField(
        field("tolerance"),
        absl::StrCat("must be finite and >= 0, got ", definition.tolerance));
  }
  if (definition.swivel_space != SwivelSpace::kStartParent &&
      definition.swivel_space != SwivelSpace::kWorld) {
    return InvalidField(
        field("swivel_space"),
        absl::StrCat("unknown swivel space ",
                     static_cast<int>(definition.swivel_space)));
  }
  if (!(definition.flip_warning_angle >= 0.0 &&
        definition.flip_warning_angle <= 0.5 * kPi)) {
    return InvalidField(field("flip_warning_angle"),
                        absl::StrCat(definition.flip_warning_angle,
                                     " is not within [0, pi/2]"));
  }
  return absl::OkStatus();
}

// The preferred pose down the path to the tip (the rest pose with the
// definition's rotations) and its zero-plane map into `chain`.
absl::Status BuildPreferredPose(const Rig& rig,
                                const ChainDefinition& definition,
                                absl::string_view path_prefix, Chain& chain) {
  std::vector<int> path = chain.ancestors;
  path.insert(path.end(), chain.joints.begin(), chain.joints.end());
  std::vector<Transform> preferred(path.size());
  std::vector<int> given_at(path.size(), -1);
  for (size_t i = 0; i < path.size(); ++i)
    preferred[i] = rig.joint(path[i]).rest;
  for (size_t p = 0; p < definition.preferred_pose.size(); ++p) {
    const PreferredJointRotation& entry = definition.preferred_pose[p];
    const std::string entry_path =
        absl::StrCat(path_prefix, "preferred_pose[", p, "]");
    const std::string joint_path = absl::StrCat(entry_path, ".joint");
    absl::StatusOr<int> joint = FindChainJoint(rig, entry.joint, joint_path);
    if (!joint.ok()) return joint.status();
    const size_t at = static_cast<size_t>(
        std::find(path.begin(), path.end(), *joint) - path.begin());
    if (at == path.size()) {
      return InvalidField(
          joint_path, absl::StrCat(Quoted(entry.joint),
                                   " is neither a joint of the chain nor an "
                                   "ancestor of its root"));
    }
    if (given_at[at] >= 0) {
      return InvalidField(joint_path,
                          absl::StrCat(Quoted(entry.joint),
                                       " given twice (also preferred_pose[",
                                       given_at[at], "])"));
    }
    given_at[at] = static_cast<int>(p);
    absl::StatusOr<Quat> rotation = NormalizeRotation(
        entry.rotation, absl::StrCat(entry_path, ".rotation"));
    if (!rotation.ok()) return rotation.status();
    preferred[at].rotation = *rotation;
  }
  for (size_t k = chain.ancestors.size(); k < path.size(); ++k) {
    chain.preferred_rotations.push_back(preferred[k].rotation);
  }
  chain.zero_plane_map = ChainZeroPlaneMap(preferred, chain.ancestors.size(),
                                           definition.swivel_space);
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Chain> Rig::MakeChain(const ChainDefinition& definition) const {
  return BuildChain(definition, "");
}

absl::StatusOr<Chain> Rig::BuildChain(const ChainDefinition& definition,
                                      absl::string_view path_prefix) const {
  absl::StatusOr<std::vector<int>> joints =
      ChainJoints(*this, definition, path_prefix);
  if (!joints.ok()) return joints.status();
  Chain chain;
  chain.ancestors = AncestorsOf(*this, joints->front());
  if (absl::Status status = CheckChainBones(*this, chain, *joints, path_prefix);
      !status.ok()) {
    return status;
  }
  if (absl::Status status = CheckChainSettings(
          definition, static_cast<int>(joints->size()), path_prefix);
      !status.ok()) {
    return status;
  }
  chain.name = definition.name;
  chain.joints = *std::move(joints);
  if (absl::Status status =
          BuildPreferredPose(*this, definition, path_prefix, chain);
      !status.ok()) {
    return status;
  }
  chain.swivel_space = definition.swivel_space;
  chain.flip_warning_angle = definition.flip_warning_angle;
  chain.solver = definition.solver;
  chain.max_iterations = definition.max_iterations;
  chain.tolerance = definition.tolerance;
  if (absl::Status status =
          internal::BuildChainTorque(*this, definition, path_prefix, chain);
      !status.ok()) {
    return status;
  }
  return chain;
}

}  // namespace ik
