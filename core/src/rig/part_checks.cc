#include "rig/part_checks.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/types/span.h"
#include "ik/base/field_error.h"
#include "ik/base/validate.h"
#include "ik/rig/forward_kinematics.h"

namespace ik::internal {

absl::Status CheckPartName(const std::string& name, absl::string_view list,
                           size_t index, std::map<std::string, size_t>& seen) {
  const std::string path = absl::StrCat(list, "[", index, "].name");
  if (absl::Status status = ValidateName(name, path); !status.ok()) {
    return status;
  }
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

absl::StatusOr<int> FindPartJoint(const Rig& rig, const std::string& name,
                                  absl::string_view path) {
  if (name.empty()) return InvalidField(path, "empty");
  const int index = rig.FindJoint(name);
  if (index == kNoParent) {
    return FieldError(absl::StatusCode::kNotFound, path,
                      absl::StrCat("unknown joint ", Quoted(name)));
  }
  return index;
}

std::vector<double> RestBoneLengths(const Rig& rig) {
  // A created rig's rest pose is valid, so forward kinematics cannot fail.
  std::vector<Transform> rest_model(rig.joint_count());
  LocalToModelJob fk;
  fk.parents = rig.parents();
  fk.locals = rig.rest_pose();
  fk.models = absl::MakeSpan(rest_model);
  const absl::Status status = fk.Run();
  std::vector<double> lengths(rig.joint_count(), 0.0);
  if (!status.ok()) return lengths;
  const absl::Span<const int> parents = rig.parents();
  for (int joint = 0; joint < rig.joint_count(); ++joint) {
    if (parents[joint] == kNoParent) continue;
    lengths[joint] = glm::length(rest_model[joint].translation -
                                 rest_model[parents[joint]].translation);
  }
  return lengths;
}

}  // namespace ik::internal
