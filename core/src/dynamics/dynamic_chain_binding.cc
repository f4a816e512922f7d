#include "ik/dynamics/dynamic_chain_binding.h"

#include <map>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "ik/base/field_error.h"
#include "ik/base/validate.h"
#include "rig/part_checks.h"

namespace ik {
namespace {

using internal::CheckRange;

// The root and every joint below it, parents first (a rig lists its joints
// parents first), as the binding's joints and the chain's simulated joints.
// `chain_index` gets, per rig joint, its index in the chain (-1 outside).
absl::Status CollectChainJoints(const Rig& rig, int root,
                                const DynamicChainDefinition& in,
                                absl::Span<const double> bone_lengths,
                                absl::string_view path,
                                std::vector<int>& chain_index,
                                DynamicChainBinding& binding) {
  const std::string root_path = FieldPath(path, "root");
  const absl::Span<const int> parents = rig.parents();
  chain_index.assign(rig.joint_count(), -1);
  chain_index[root] = 0;
  binding.joints.push_back(root);
  binding.chain.joints.push_back(DynamicJoint());
  for (int j = root + 1; j < rig.joint_count(); ++j) {
    if (parents[j] == kNoParent || chain_index[parents[j]] < 0) continue;
    if (binding.joints.size() >= static_cast<size_t>(kMaxDynamicJoints)) {
      return FieldError(absl::StatusCode::kResourceExhausted, root_path,
                        absl::StrCat("more than ", kMaxDynamicJoints,
                                     " joints below ", Quoted(in.root)));
    }
    const double length = bone_lengths[j];
    if (!(length >= kMinDynamicBoneLength)) {
      return InvalidField(
          root_path, absl::StrCat("joint '", rig.joint(j).name,
                                  "' sits on its parent (zero-length bone)"));
    }
    chain_index[j] = static_cast<int>(binding.joints.size());
    DynamicJoint joint;
    joint.parent = chain_index[parents[j]];
    joint.length = length;
    joint.radius = in.radius;
    binding.joints.push_back(j);
    binding.chain.joints.push_back(joint);
  }
  if (binding.joints.size() < 2) {
    return InvalidField(
        root_path,
        absl::StrCat("joint '", in.root, "' has no descendants to simulate"));
  }
  return absl::OkStatus();
}

// Per-joint settings: joints of the chain, each once.
absl::Status ApplyJointSettings(const Rig& rig,
                                const DynamicChainDefinition& in,
                                absl::Span<const int> chain_index,
                                absl::string_view path,
                                DynamicChainBinding& binding) {
  std::vector<bool> overridden(binding.joints.size(), false);
  for (size_t k = 0; k < in.joints.size(); ++k) {
    const DynamicJointSettings& settings = in.joints[k];
    const std::string joint_path = absl::StrCat(path, ".joints[", k, "]");
    const std::string name_path = FieldPath(joint_path, "joint");
    absl::StatusOr<int> joint =
        internal::FindPartJoint(rig, settings.joint, name_path);
    if (!joint.ok()) return joint.status();
    const int index = chain_index[*joint];
    if (index < 0) {
      return InvalidField(name_path,
                          absl::StrCat("joint '", settings.joint,
                                       "' is not part of this dynamic chain"));
    }
    if (overridden[index]) {
      return InvalidField(name_path, absl::StrCat("joint '", settings.joint,
                                                  "' is listed twice"));
    }
    overridden[index] = true;
    DynamicJoint& target = binding.chain.joints[index];
    if (settings.radius.has_value()) {
      if (absl::Status status =
              CheckRange(*settings.radius, 0.0, kMaxDynamicRadius, false,
                         FieldPath(joint_path, "radius"), " m");
          !status.ok()) {
        return status;
      }
      target.radius = *settings.radius;
    }
    if (absl::Status status =
            ValidateDynamicJointOverrides(settings.overrides, joint_path);
        !status.ok()) {
      return status;
    }
    target.overrides = settings.overrides;
  }
  return absl::OkStatus();
}

// The character's colliders the chain names, each once.
absl::Status BindColliders(absl::Span<const AttachedCollider> colliders,
                           const DynamicChainDefinition& in,
                           absl::string_view path,
                           DynamicChainBinding& binding) {
  std::vector<bool> used(colliders.size(), false);
  for (size_t k = 0; k < in.colliders.size(); ++k) {
    const std::string collider_path = absl::StrCat(path, ".colliders[", k, "]");
    size_t index = 0;
    while (index < colliders.size() &&
           colliders[index].name != in.colliders[k]) {
      ++index;
    }
    if (index == colliders.size()) {
      return FieldError(
          absl::StatusCode::kNotFound, collider_path,
          absl::StrCat("unknown collider ", Quoted(in.colliders[k])));
    }
    if (used[index]) {
      return InvalidField(
          collider_path,
          absl::StrCat("collider '", in.colliders[k], "' is listed twice"));
    }
    used[index] = true;
    binding.colliders.push_back(static_cast<int>(index));
  }
  return absl::OkStatus();
}

absl::StatusOr<DynamicChainBinding> BuildDynamicChain(
    const Rig& rig, absl::Span<const AttachedCollider> colliders,
    const DynamicChainDefinition& in, absl::Span<const double> bone_lengths,
    absl::string_view path) {
  absl::StatusOr<int> root =
      internal::FindPartJoint(rig, in.root, FieldPath(path, "root"));
  if (!root.ok()) return root.status();
  if (absl::Status status = CheckRange(in.radius, 0.0, kMaxDynamicRadius, false,
                                       FieldPath(path, "radius"), " m");
      !status.ok()) {
    return status;
  }
  if (absl::Status status = in.settings.ValidateParameters(path);
      !status.ok()) {
    return status;
  }
  DynamicChainBinding binding;
  binding.name = in.name;
  binding.chain = in.settings;
  binding.chain.joints.clear();
  std::vector<int> chain_index;
  if (absl::Status status = CollectChainJoints(rig, *root, in, bone_lengths,
                                               path, chain_index, binding);
      !status.ok()) {
    return status;
  }
  if (absl::Status status =
          ApplyJointSettings(rig, in, chain_index, path, binding);
      !status.ok()) {
    return status;
  }
  if (absl::Status status = BindColliders(colliders, in, path, binding);
      !status.ok()) {
    return status;
  }
  // Every part was checked above; this holds the built chain to the step's
  // own contract (the joints hanging below the root).
  if (absl::Status status = binding.chain.Validate(); !status.ok()) {
    return FieldError(status.code(), FieldPath(path, "root"), status.message());
  }
  binding.turns.assign(binding.joints.size(), false);
  for (const DynamicJoint& joint : binding.chain.joints) {
    if (joint.parent != kDynamicRoot) binding.turns[joint.parent] = true;
  }
  absl::StatusOr<PreparedDynamicChain> prepared =
      PreparedDynamicChain::Create(binding.chain);
  if (!prepared.ok()) return prepared.status();  // validated just above
  binding.prepared = *std::move(prepared);
  return binding;
}

}  // namespace

absl::StatusOr<std::vector<DynamicChainBinding>> BuildDynamicChains(
    const Rig& rig, absl::Span<const AttachedCollider> colliders,
    absl::Span<const DynamicChainDefinition> definitions) {
  const std::vector<double> bone_lengths = internal::RestBoneLengths(rig);
  std::vector<DynamicChainBinding> chains;
  chains.reserve(definitions.size());
  std::map<std::string, size_t> names;
  for (size_t d = 0; d < definitions.size(); ++d) {
    const DynamicChainDefinition& in = definitions[d];
    const std::string path = absl::StrCat("dynamic_chains[", d, "]");
    if (absl::Status status =
            internal::CheckPartName(in.name, "dynamic_chains", d, names);
        !status.ok()) {
      return status;
    }
    absl::StatusOr<DynamicChainBinding> chain =
        BuildDynamicChain(rig, colliders, in, bone_lengths, path);
    if (!chain.ok()) return chain.status();
    chains.push_back(*std::move(chain));
  }
  return chains;
}

const DynamicChainBinding* FindDynamicChain(
    absl::Span<const DynamicChainBinding> chains, absl::string_view name) {
  for (const DynamicChainBinding& chain : chains) {
    if (chain.name == name) return &chain;
  }
  return nullptr;
}

}  // namespace ik
