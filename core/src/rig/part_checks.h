// Checks shared by the modules that build a rig's parts (legs, colliders,
// dynamic chains, a chain's torque settings) against a rig. Not part of the
// public API.
#ifndef IK_SRC_RIG_PART_CHECKS_H_
#define IK_SRC_RIG_PART_CHECKS_H_

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "ik/rig/rig.h"

namespace ik::internal {

// Checks the name of part `index` of `list` ("legs", "colliders", ...):
// a valid name (ValidateName) unique among the names seen so far, which
// records it. INVALID_ARGUMENT naming "<list>[index].name" ("legs[1].name:
// duplicate name 'x' (also legs[0])").
absl::Status CheckPartName(const std::string& name, absl::string_view list,
                           size_t index, std::map<std::string, size_t>& seen);

// INVALID_ARGUMENT "<path>: <value> is not in [min, max]<unit>" (or
// "(min, max]" with `open_min`) unless the value is within.
absl::Status CheckRange(double value, double min, double max, bool open_min,
                        absl::string_view path, absl::string_view unit);

// The index of the joint of `rig` called `name`: INVALID_ARGUMENT
// "<path>: empty" for an empty name, NOT_FOUND "<path>: unknown joint 'x'"
// for one the rig lacks.
absl::StatusOr<int> FindPartJoint(const Rig& rig, const std::string& name,
                                  absl::string_view path);

// Per joint, the length of its bone in the rest pose, model space (from its
// parent; 0 for a root).
std::vector<double> RestBoneLengths(const Rig& rig);

}  // namespace ik::internal

#endif  // IK_SRC_RIG_PART_CHECKS_H_
