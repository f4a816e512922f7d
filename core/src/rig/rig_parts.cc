// Rig::BuildParts: the rig's forward axis, legs, colliders and dynamic
// chains, checked once the joints are in place (rig.cc checks the joints
// and chains).
#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"
#include "ik/base/validate.h"
#include "ik/rig/forward_kinematics.h"
#include "ik/rig/rig.h"

namespace ik {
namespace {

// Checks that `name` is unique among the names seen so far under `what`
// ("leg", "collider", ...), recording it.
absl::Status CheckUnique(const std::string& name, size_t index,
                         absl::string_view path, absl::string_view list,
                         std::map<std::string, size_t>& seen) {
  if (auto [it, inserted] = seen.emplace(name, index); !inserted) {
    return InvalidField(path, absl::StrCat("duplicate name '", name, "' (also ",
                                           list, "[", it->second, "])"));
  }
  return absl::OkStatus();
}

absl::Status CheckRange(double value, double min, double max, bool open_min,
                        absl::string_view path, absl::string_view unit) {
  const bool above_min = open_min ? value > min : value >= min;
  if (!(above_min && value <= max)) {
    return InvalidField(
        path, absl::StrCat(value, " is not in ", open_min ? "(" : "[", min,
                           ", ", max, "]", unit));
  }
  return absl::OkStatus();
}

absl::Status CheckLegSettings(const LegSettings& settings,
                              absl::string_view path) {
  struct Field {
    const char* name;
    double value;
    bool open_min;
  };
  const Field fields[] = {
      {"ankle_height", settings.ankle_height, false},
      {"toe_forward", settings.toe_forward, true},
      {"ray_above_hip", settings.ray_above_hip, false},
      {"ray_below_ankle", settings.ray_below_ankle, true},
      {"max_pelvis_drop", settings.max_pelvis_drop, false},
  };
  for (const Field& field : fields) {
    if (absl::Status status =
            CheckRange(field.value, 0.0, kMaxLegDistance, field.open_min,
                       absl::StrCat(path, ".", field.name), " m");
        !status.ok()) {
      return status;
    }
  }
  return CheckRange(settings.max_foot_tilt, 0.0, kPi / 2.0, false,
                    absl::StrCat(path, ".max_foot_tilt"), " rad");
}

}  // namespace

absl::Status Rig::BuildParts(RigDefinition& definition) {
  if (!IsFinite(definition.forward) ||
      !(glm::length(definition.forward) >= 1e-12)) {
    return InvalidField("forward", "must be a finite, non-zero direction");
  }
  forward_ = glm::normalize(definition.forward);

  // Rest pose in model space, for bone lengths.
  std::vector<Transform> rest_model(joints_.size());
  LocalToModelJob fk;
  fk.parents = parents_;
  fk.locals = rest_pose_;
  fk.models = absl::MakeSpan(rest_model);
  if (absl::Status status = fk.Run(); !status.ok()) return status;
  auto bone_length = [&](int joint) {
    return glm::length(rest_model[joint].translation -
                       rest_model[parents_[joint]].translation);
  };
  // The joint called `name`, or NOT_FOUND naming `path`.
  auto find = [&](const std::string& name,
                  absl::string_view path) -> absl::StatusOr<int> {
    if (name.empty()) return InvalidField(path, "empty");
    const int index = FindJoint(name);
    if (index == kNoParent) {
      return FieldError(absl::StatusCode::kNotFound, path,
                        absl::StrCat("unknown joint ", Quoted(name)));
    }
    return index;
  };

  std::map<std::string, size_t> names;
  for (size_t l = 0; l < definition.legs.size(); ++l) {
    const LegDefinition& in = definition.legs[l];
    const std::string path = absl::StrCat("legs[", l, "]");
    if (absl::Status status =
            ValidateName(in.name, absl::StrCat(path, ".name"));
        !status.ok()) {
      return status;
    }
    if (absl::Status status =
            CheckUnique(in.name, l, absl::StrCat(path, ".name"), "legs", names);
        !status.ok()) {
      return status;
    }
    Leg leg;
    leg.name = in.name;
    absl::StatusOr<int> hip = find(in.hip, absl::StrCat(path, ".hip"));
    if (!hip.ok()) return hip.status();
    absl::StatusOr<int> knee = find(in.knee, absl::StrCat(path, ".knee"));
    if (!knee.ok()) return knee.status();
    absl::StatusOr<int> ankle = find(in.ankle, absl::StrCat(path, ".ankle"));
    if (!ankle.ok()) return ankle.status();
    const std::pair<int, int> links[] = {{*knee, *hip}, {*ankle, *knee}};
    const char* const fields[] = {"knee", "ankle"};
    for (int k = 0; k < 2; ++k) {
      const auto [child, parent] = links[k];
      const std::string field_path = absl::StrCat(path, ".", fields[k]);
      if (parents_[child] != parent) {
        return InvalidField(
            field_path,
            absl::StrCat("joint '", joints_[child].name,
                         "' is not a child of '", joints_[parent].name,
                         "' (a leg is a hip -> knee -> ankle path)"));
      }
      if (!(bone_length(child) >= kMinBoneLength)) {
        return InvalidField(
            field_path,
            absl::StrCat("joint '", joints_[child].name,
                         "' sits on its parent (zero-length bone)"));
      }
    }
    leg.hip = *hip;
    leg.knee = *knee;
    leg.ankle = *ankle;
    if (!in.toe.empty()) {
      absl::StatusOr<int> toe = find(in.toe, absl::StrCat(path, ".toe"));
      if (!toe.ok()) return toe.status();
      int up = *toe;
      while (up != kNoParent && up != *ankle) up = parents_[up];
      if (up != *ankle || *toe == *ankle) {
        return InvalidField(
            absl::StrCat(path, ".toe"),
            absl::StrCat("joint '", in.toe, "' does not descend from ankle '",
                         in.ankle, "'"));
      }
      leg.toe = *toe;
    }
    if (absl::Status status = CheckLegSettings(in.settings, path);
        !status.ok()) {
      return status;
    }
    leg.settings = in.settings;
    for (int j = parents_[leg.hip]; j != kNoParent; j = parents_[j]) {
      leg.ancestors.push_back(j);
    }
    std::reverse(leg.ancestors.begin(), leg.ancestors.end());
    leg.ankle_rest_model = rest_pose_[leg.ankle].rotation;
    for (int j = parents_[leg.ankle]; j != kNoParent; j = parents_[j]) {
      leg.ankle_rest_model = rest_pose_[j].rotation * leg.ankle_rest_model;
    }
    legs_.push_back(std::move(leg));
  }

  names.clear();
  for (size_t c = 0; c < definition.colliders.size(); ++c) {
    const ColliderDefinition& in = definition.colliders[c];
    const std::string path = absl::StrCat("colliders[", c, "]");
    if (absl::Status status =
            ValidateName(in.name, absl::StrCat(path, ".name"));
        !status.ok()) {
      return status;
    }
    if (absl::Status status = CheckUnique(
            in.name, c, absl::StrCat(path, ".name"), "colliders", names);
        !status.ok()) {
      return status;
    }
    absl::StatusOr<int> joint = find(in.joint, absl::StrCat(path, ".joint"));
    if (!joint.ok()) return joint.status();
    if (absl::Status status = ValidateCollider(
            in.shape, absl::StrCat(path, in.sphere ? ".sphere" : ".capsule"),
            in.sphere);
        !status.ok()) {
      return status;
    }
    colliders_.push_back({in.name, *joint, in.shape});
  }
  std::map<std::string, size_t> collider_names = std::move(names);

  names.clear();
  for (size_t d = 0; d < definition.dynamic_chains.size(); ++d) {
    DynamicChainDefinition& in = definition.dynamic_chains[d];
    const std::string path = absl::StrCat("dynamic_chains[", d, "]");
    if (absl::Status status =
            ValidateName(in.name, absl::StrCat(path, ".name"));
        !status.ok()) {
      return status;
    }
    if (absl::Status status = CheckUnique(
            in.name, d, absl::StrCat(path, ".name"), "dynamic_chains", names);
        !status.ok()) {
      return status;
    }
    absl::StatusOr<int> root = find(in.root, absl::StrCat(path, ".root"));
    if (!root.ok()) return root.status();
    if (absl::Status status =
            CheckRange(in.radius, 0.0, kMaxDynamicRadius, false,
                       absl::StrCat(path, ".radius"), " m");
        !status.ok()) {
      return status;
    }
    if (absl::Status status = in.settings.ValidateParameters(path);
        !status.ok()) {
      return status;
    }
    DynamicChainBinding binding;
    binding.name = in.name;
    binding.chain = std::move(in.settings);
    binding.chain.joints.clear();
    // The root and every joint below it, parents first (joints are listed
    // parents first): chain index per rig joint, -1 outside the chain.
    std::vector<int> chain_index(joints_.size(), -1);
    chain_index[*root] = 0;
    binding.joints.push_back(*root);
    binding.chain.joints.push_back(DynamicJoint());
    for (int j = *root + 1; j < joint_count(); ++j) {
      if (parents_[j] == kNoParent || chain_index[parents_[j]] < 0) continue;
      if (binding.joints.size() >= static_cast<size_t>(kMaxDynamicJoints)) {
        return FieldError(absl::StatusCode::kResourceExhausted,
                          absl::StrCat(path, ".root"),
                          absl::StrCat("more than ", kMaxDynamicJoints,
                                       " joints below ", Quoted(in.root)));
      }
      const double length = bone_length(j);
      if (!(length >= kMinDynamicBoneLength)) {
        return InvalidField(
            absl::StrCat(path, ".root"),
            absl::StrCat("joint '", joints_[j].name,
                         "' sits on its parent (zero-length bone)"));
      }
      chain_index[j] = static_cast<int>(binding.joints.size());
      DynamicJoint joint;
      joint.parent = chain_index[parents_[j]];
      joint.length = length;
      joint.radius = in.radius;
      binding.joints.push_back(j);
      binding.chain.joints.push_back(joint);
    }
    if (binding.joints.size() < 2) {
      return InvalidField(
          absl::StrCat(path, ".root"),
          absl::StrCat("joint '", in.root, "' has no descendants to simulate"));
    }
    std::vector<bool> overridden(binding.joints.size(), false);
    for (size_t k = 0; k < in.joints.size(); ++k) {
      const DynamicJointSettings& settings = in.joints[k];
      const std::string joint_path = absl::StrCat(path, ".joints[", k, "]");
      absl::StatusOr<int> joint =
          find(settings.joint, absl::StrCat(joint_path, ".joint"));
      if (!joint.ok()) return joint.status();
      const int index = chain_index[*joint];
      if (index < 0) {
        return InvalidField(
            absl::StrCat(joint_path, ".joint"),
            absl::StrCat("joint '", settings.joint,
                         "' is not part of this dynamic chain"));
      }
      if (overridden[index]) {
        return InvalidField(
            absl::StrCat(joint_path, ".joint"),
            absl::StrCat("joint '", settings.joint, "' is listed twice"));
      }
      overridden[index] = true;
      DynamicJoint& target = binding.chain.joints[index];
      if (settings.radius.has_value()) {
        if (absl::Status status =
                CheckRange(*settings.radius, 0.0, kMaxDynamicRadius, false,
                           absl::StrCat(joint_path, ".radius"), " m");
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
    std::vector<bool> used(colliders_.size(), false);
    for (size_t k = 0; k < in.colliders.size(); ++k) {
      const std::string collider_path =
          absl::StrCat(path, ".colliders[", k, "]");
      auto it = collider_names.find(in.colliders[k]);
      if (it == collider_names.end()) {
        return FieldError(
            absl::StatusCode::kNotFound, collider_path,
            absl::StrCat("unknown collider ", Quoted(in.colliders[k])));
      }
      if (used[it->second]) {
        return InvalidField(
            collider_path,
            absl::StrCat("collider '", in.colliders[k], "' is listed twice"));
      }
      used[it->second] = true;
      binding.colliders.push_back(static_cast<int>(it->second));
    }
    // Every part was checked above; this holds the built chain to the
    // step's own contract (the joints hanging below the root).
    if (absl::Status status = binding.chain.Validate(); !status.ok()) {
      return FieldError(status.code(), absl::StrCat(path, ".root"),
                        status.message());
    }
    dynamic_chains_.push_back(std::move(binding));
  }
  return absl::OkStatus();
}

absl::Status Rig::BuildTorque(const ChainDefinition& definition,
                              absl::string_view path_prefix,
                              Chain& chain) const {
  const std::string path = absl::StrCat(path_prefix, "torque");
  const TorqueSettings& in = definition.torque;
  struct Field {
    const char* name;
    double value, min, max;
    bool open_min;
  };
  const Field fields[] = {
      {"gain", in.gain, 0.0, 1.0, true},
      {"damping", in.damping, 0.0, 1e6, false},
      {"max_step", in.max_step, 0.0, kPi, true},
      {"root_stiffness", in.root_stiffness, 0.0, 1e6, true}};
  for (const Field& field : fields) {
    if (absl::Status status =
            CheckRange(field.value, field.min, field.max, field.open_min,
                       absl::StrCat(path, ".", field.name), "");
        !status.ok()) {
      return status;
    }
  }
  chain.torque = in;
  chain.torque.joints = {};
  const size_t count = chain.joints.size();
  chain.torque_joints.assign(count, TorqueJointSettings());
  for (size_t k = 0; k < count; ++k) {
    chain.torque_joints[k].preferred_rotation =
        joints_[chain.joints[k]].rest.rotation;
  }
  std::vector<bool> seen(count, false);
  for (size_t j = 0; j < definition.torque_joints.size(); ++j) {
    const TorqueJointDefinition& joint = definition.torque_joints[j];
    const std::string joint_path = absl::StrCat(path, ".joints[", j, "]");
    const int index = FindJoint(joint.joint);
    if (index == kNoParent) {
      return FieldError(absl::StatusCode::kNotFound,
                        absl::StrCat(joint_path, ".joint"),
                        absl::StrCat("unknown joint ", Quoted(joint.joint)));
    }
    size_t k = 0;
    while (k + 1 < count && chain.joints[k] != index) ++k;
    if (k + 1 >= count) {
      return InvalidField(
          absl::StrCat(joint_path, ".joint"),
          absl::StrCat("joint '", joint.joint,
                       "' is not a joint of the chain before its tip"));
    }
    if (seen[k]) {
      return InvalidField(
          absl::StrCat(joint_path, ".joint"),
          absl::StrCat("joint '", joint.joint, "' is listed twice"));
    }
    seen[k] = true;
    const TorqueJointSettings& settings = joint.settings;
    const Field joint_fields[] = {
        {"stiffness", settings.stiffness, 0.0, 1e6, true},
        {"elasticity", settings.elasticity, 0.0, 1e6, false},
        {"comfort", settings.comfort, 0.0, kPi, false}};
    for (const Field& field : joint_fields) {
      if (absl::Status status =
              CheckRange(field.value, field.min, field.max, field.open_min,
                         absl::StrCat(joint_path, ".", field.name), "");
          !status.ok()) {
        return status;
      }
    }
    TorqueJointSettings& out = chain.torque_joints[k];
    const Quat preferred = out.preferred_rotation;
    out = settings;
    out.preferred_rotation = preferred;
    if (joint.has_preferred_rotation) {
      absl::StatusOr<Quat> rotation =
          NormalizeRotation(settings.preferred_rotation,
                            absl::StrCat(joint_path, ".preferred_rotation"));
      if (!rotation.ok()) return rotation.status();
      out.preferred_rotation = *rotation;
    }
  }
  return absl::OkStatus();
}

const DynamicChainBinding* Rig::FindDynamicChain(absl::string_view name) const {
  for (const DynamicChainBinding& chain : dynamic_chains_) {
    if (chain.name == name) return &chain;
  }
  return nullptr;
}

}  // namespace ik
