#include "ik/dynamics/dynamic_chain.h"

#include <cmath>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "ik/base/validate.h"

namespace ik {
namespace {

bool InRange(double value, double low, double high) {
  return value >= low && value <= high;  // false for NaN
}

absl::Status CheckUnitInterval(double value, absl::string_view path) {
  if (InRange(value, 0.0, 1.0)) return absl::OkStatus();
  return OutOfRange(path, value, 0.0, 1.0);
}

bool GravityInRange(const Vec3& gravity) {
  return InRange(gravity.x, -kMaxGravity, kMaxGravity) &&
         InRange(gravity.y, -kMaxGravity, kMaxGravity) &&
         InRange(gravity.z, -kMaxGravity, kMaxGravity);
}

absl::Status CheckGravity(const Vec3& gravity, absl::string_view path) {
  if (GravityInRange(gravity)) return absl::OkStatus();
  if (!IsFinite(gravity)) {
    return InvalidField(path, "not finite");
  }
  return InvalidField(path, absl::StrCat("each component must be within +-",
                                         kMaxGravity, " m/s²"));
}

}  // namespace

absl::Status ValidateDynamicJointOverrides(
    const DynamicJointOverrides& overrides, absl::string_view path) {
  if (overrides.drag.has_value()) {
    if (absl::Status status =
            CheckUnitInterval(*overrides.drag, absl::StrCat(path, ".drag"));
        !status.ok()) {
      return status;
    }
  }
  if (overrides.gravity.has_value()) {
    if (absl::Status status =
            CheckGravity(*overrides.gravity, absl::StrCat(path, ".gravity"));
        !status.ok()) {
      return status;
    }
  }
  if (overrides.stiffness.has_value()) {
    if (absl::Status status = CheckUnitInterval(
            *overrides.stiffness, absl::StrCat(path, ".stiffness"));
        !status.ok()) {
      return status;
    }
  }
  if (overrides.rotation_blend.has_value()) {
    if (absl::Status status = CheckUnitInterval(
            *overrides.rotation_blend, absl::StrCat(path, ".rotation_blend"));
        !status.ok()) {
      return status;
    }
  }
  if (overrides.wind_scale.has_value() &&
      !InRange(*overrides.wind_scale, 0.0, kMaxWindScale)) {
    return OutOfRange(absl::StrCat(path, ".wind_scale"), *overrides.wind_scale,
                      0.0, kMaxWindScale);
  }
  return absl::OkStatus();
}

namespace {

absl::Status CheckJoint(const DynamicJoint& joint, int index) {
  const std::string path = absl::StrCat("joints[", index, "]");
  if (index == 0) {
    if (joint.parent != kDynamicRoot) {
      return absl::InvalidArgumentError(
          absl::StrCat(path,
                       ".parent: the first joint is the driving root and "
                       "must have parent -1, got ",
                       joint.parent));
    }
  } else if (joint.parent < 0 || joint.parent >= index) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ".parent: ", joint.parent,
                     " does not refer to an earlier joint (only joint 0 is a "
                     "root)"));
  }
  if (index > 0) {
    if (!InRange(joint.length, kMinDynamicBoneLength, kMaxDynamicBoneLength)) {
      return OutOfRange(absl::StrCat(path, ".length"), joint.length,
                        kMinDynamicBoneLength, kMaxDynamicBoneLength, " m");
    }
    if (!InRange(joint.radius, 0.0, kMaxDynamicRadius)) {
      return OutOfRange(absl::StrCat(path, ".radius"), joint.radius, 0.0,
                        kMaxDynamicRadius, " m");
    }
  }
  return ValidateDynamicJointOverrides(joint.overrides,
                                       absl::StrCat(path, ".overrides"));
}

bool UnitIntervalOrUnset(const std::optional<double>& value) {
  return !value.has_value() || InRange(*value, 0.0, 1.0);
}

// The checks of CheckJoint without building any string: true implies
// CheckJoint passes, false that it names the problem. Validate runs on
// every step, so the common case stays allocation-free.
bool JointLooksValid(const DynamicJoint& joint, int index) {
  const DynamicJointOverrides& overrides = joint.overrides;
  if (index == 0) {
    if (joint.parent != kDynamicRoot) return false;
  } else if (joint.parent < 0 || joint.parent >= index ||
             !InRange(joint.length, kMinDynamicBoneLength,
                      kMaxDynamicBoneLength) ||
             !InRange(joint.radius, 0.0, kMaxDynamicRadius)) {
    return false;
  }
  return UnitIntervalOrUnset(overrides.drag) &&
         (!overrides.gravity.has_value() ||
          GravityInRange(*overrides.gravity)) &&
         UnitIntervalOrUnset(overrides.stiffness) &&
         UnitIntervalOrUnset(overrides.rotation_blend) &&
         (!overrides.wind_scale.has_value() ||
          InRange(*overrides.wind_scale, 0.0, kMaxWindScale));
}

}  // namespace

absl::Status DynamicChain::Validate() const {
  if (joints.size() > static_cast<size_t>(kMaxDynamicJoints)) {
    return absl::ResourceExhaustedError(
        absl::StrCat("joints: ", joints.size(), " joints, at most ",
                     kMaxDynamicJoints, " allowed"));
  }
  if (joints.size() < 2) {
    return absl::InvalidArgumentError(absl::StrCat(
        "joints: a dynamic chain needs a root and at least one simulated "
        "joint, got ",
        joints.size()));
  }
  const int count = static_cast<int>(joints.size());
  for (int i = 0; i < count; ++i) {
    if (JointLooksValid(joints[i], i)) continue;
    if (absl::Status status = CheckJoint(joints[i], i); !status.ok()) {
      return status;
    }
  }
  return ValidateParameters();
}

absl::Status DynamicChain::ValidateParameters(absl::string_view path) const {
  if (absl::Status status = CheckUnitInterval(drag, FieldPath(path, "drag"));
      !status.ok()) {
    return status;
  }
  if (absl::Status status = CheckGravity(gravity, FieldPath(path, "gravity"));
      !status.ok()) {
    return status;
  }
  if (absl::Status status =
          CheckUnitInterval(stiffness, FieldPath(path, "stiffness"));
      !status.ok()) {
    return status;
  }
  if (absl::Status status =
          CheckUnitInterval(rotation_blend, FieldPath(path, "rotation_blend"));
      !status.ok()) {
    return status;
  }
  if (absl::Status status = wind.Validate(FieldPath(path, "wind"));
      !status.ok()) {
    return status;
  }
  if (!InRange(substep, kMinSubstep, kMaxSubstep)) {
    return OutOfRange(FieldPath(path, "substep"), substep, kMinSubstep,
                      kMaxSubstep, " s");
  }
  if (max_substeps < 1 || max_substeps > kMaxSubstepsLimit) {
    return InvalidField(FieldPath(path, "max_substeps"),
                        absl::StrCat("must be within [1, ", kMaxSubstepsLimit,
                                     "], got ", max_substeps));
  }
  if (absl::Status status = CheckUnitInterval(
          follow_the_leader, FieldPath(path, "follow_the_leader"));
      !status.ok()) {
    return status;
  }
  // +infinity is allowed (no teleport detection); NaN fails the test.
  if (!(teleport_distance > 0.0)) {
    return InvalidField(
        FieldPath(path, "teleport_distance"),
        absl::StrCat("must be > 0 (or +inf), got ", teleport_distance));
  }
  return absl::OkStatus();
}

}  // namespace ik
