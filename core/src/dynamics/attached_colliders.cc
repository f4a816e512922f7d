#include "ik/dynamics/attached_colliders.h"

#include <map>
#include <string>

#include "absl/strings/str_cat.h"
#include "ik/base/field_error.h"
#include "ik/base/validate.h"
#include "rig/part_checks.h"

namespace ik {

absl::StatusOr<std::vector<AttachedCollider>> BuildColliders(
    const Rig& rig, absl::Span<const ColliderDefinition> definitions) {
  std::vector<AttachedCollider> colliders;
  colliders.reserve(definitions.size());
  std::map<std::string, size_t> names;
  for (size_t c = 0; c < definitions.size(); ++c) {
    const ColliderDefinition& in = definitions[c];
    const std::string path = absl::StrCat("colliders[", c, "]");
    if (absl::Status status =
            internal::CheckPartName(in.name, "colliders", c, names);
        !status.ok()) {
      return status;
    }
    absl::StatusOr<int> joint =
        internal::FindPartJoint(rig, in.joint, FieldPath(path, "joint"));
    if (!joint.ok()) return joint.status();
    if (absl::Status status = ValidateCollider(
            in.shape, FieldPath(path, in.sphere ? "sphere" : "capsule"),
            in.sphere);
        !status.ok()) {
      return status;
    }
    colliders.push_back({in.name, *joint, in.shape});
  }
  return colliders;
}

}  // namespace ik
