#include "rig/chain_torque.h"

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/types/span.h"
#include "ik/base/field_error.h"
#include "ik/base/validate.h"
#include "rig/part_checks.h"

namespace ik::internal {

namespace {

// A setting and its range: (min, max] with `open_min`, else [min, max].
struct RangedField {
  const char* name;
  double value, min, max;
  bool open_min;
};

absl::Status CheckFields(absl::Span<const RangedField> fields,
                         absl::string_view path) {
  for (const RangedField& field : fields) {
    if (absl::Status status =
            CheckRange(field.value, field.min, field.max, field.open_min,
                       absl::StrCat(path, ".", field.name), "");
        !status.ok()) {
      return status;
    }
  }
  return absl::OkStatus();
}

// The index in `chain` of the joint a per-joint entry names: one of the
// chain's joints before its tip, not named before (`seen`).
absl::StatusOr<size_t> ChainIndexOf(const Rig& rig, const Chain& chain,
                                    const TorqueJointDefinition& joint,
                                    const std::string& joint_path,
                                    std::vector<bool>& seen) {
  const std::string name_path = absl::StrCat(joint_path, ".joint");
  const int index = rig.FindJoint(joint.joint);
  if (index == kNoParent) {
    return FieldError(absl::StatusCode::kNotFound, name_path,
                      absl::StrCat("unknown joint ", Quoted(joint.joint)));
  }
  const size_t count = chain.joints.size();
  size_t k = 0;
  while (k + 1 < count && chain.joints[k] != index) ++k;
  if (k + 1 >= count) {
    return InvalidField(
        name_path,
        absl::StrCat("joint '", joint.joint,
                     "' is not a joint of the chain before its tip"));
  }
  if (seen[k]) {
    return InvalidField(
        name_path, absl::StrCat("joint '", joint.joint, "' is listed twice"));
  }
  seen[k] = true;
  return k;
}

// One per-joint entry into `out` (whose preferred rotation is the rest
// one unless the entry gives its own).
absl::Status ApplyJointSettings(const TorqueJointDefinition& joint,
                                const std::string& joint_path,
                                TorqueJointSettings& out) {
  const TorqueJointSettings& settings = joint.settings;
  const RangedField fields[] = {
      {"stiffness", settings.stiffness, 0.0, 1e6, true},
      {"elasticity", settings.elasticity, 0.0, 1e6, false},
      {"comfort", settings.comfort, 0.0, kPi, false}};
  if (absl::Status status = CheckFields(fields, joint_path); !status.ok()) {
    return status;
  }
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
  return absl::OkStatus();
}

}  // namespace

absl::Status BuildChainTorque(const Rig& rig, const ChainDefinition& definition,
                              absl::string_view path_prefix, Chain& chain) {
  const std::string path = absl::StrCat(path_prefix, "torque");
  const TorqueSettings& in = definition.torque;
  const RangedField fields[] = {
      {"gain", in.gain, 0.0, 1.0, true},
      {"damping", in.damping, 0.0, 1e6, false},
      {"max_step", in.max_step, 0.0, kPi, true},
      {"root_stiffness", in.root_stiffness, 0.0, 1e6, true}};
  if (absl::Status status = CheckFields(fields, path); !status.ok()) {
    return status;
  }
  chain.torque = in;
  chain.torque.joints = {};
  const size_t count = chain.joints.size();
  chain.torque_joints.assign(count, TorqueJointSettings());
  for (size_t k = 0; k < count; ++k) {
    chain.torque_joints[k].preferred_rotation =
        rig.joint(chain.joints[k]).rest.rotation;
  }
  std::vector<bool> seen(count, false);
  for (size_t j = 0; j < definition.torque_joints.size(); ++j) {
    const TorqueJointDefinition& joint = definition.torque_joints[j];
    const std::string joint_path = absl::StrCat(path, ".joints[", j, "]");
    absl::StatusOr<size_t> k =
        ChainIndexOf(rig, chain, joint, joint_path, seen);
    if (!k.ok()) return k.status();
    if (absl::Status status =
            ApplyJointSettings(joint, joint_path, chain.torque_joints[*k]);
        !status.ok()) {
      return status;
    }
  }
  return absl::OkStatus();
}

}  // namespace ik::internal
