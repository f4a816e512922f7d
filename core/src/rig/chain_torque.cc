#include "rig/chain_torque.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "ik/base/field_error.h"
#include "ik/base/validate.h"
#include "rig/part_checks.h"

namespace ik::internal {

absl::Status BuildChainTorque(const Rig& rig, const ChainDefinition& definition,
                              absl::string_view path_prefix, Chain& chain) {
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
        rig.joint(chain.joints[k]).rest.rotation;
  }
  std::vector<bool> seen(count, false);
  for (size_t j = 0; j < definition.torque_joints.size(); ++j) {
    const TorqueJointDefinition& joint = definition.torque_joints[j];
    const std::string joint_path = absl::StrCat(path, ".joints[", j, "]");
    const int index = rig.FindJoint(joint.joint);
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

}  // namespace ik::internal
