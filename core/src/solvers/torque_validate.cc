// TorqueJob::Validate: the chain's checks, then the settings'.
#include <cmath>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "ik/base/math.h"
#include "ik/base/validate.h"
#include "ik/solvers/torque.h"

namespace ik {
namespace {

absl::Status InvalidJoint(int index, absl::string_view what) {
  return absl::InvalidArgumentError(
      absl::StrCat("settings.joints[", index, "]", what));
}

}  // namespace

absl::Status TorqueJob::Validate() const {
  if (absl::Status status = ChainJob::Validate(); !status.ok()) return status;
  const TorqueSettings& s = settings;
  if (!IsFinite(s.gain) || !(s.gain > 0.0) || !(s.gain <= 1.0)) {
    return absl::InvalidArgumentError(
        absl::StrCat("settings.gain: must be in (0, 1], got ", s.gain));
  }
  if (!IsFinite(s.damping) || s.damping < 0.0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "settings.damping: must be finite and >= 0, got ", s.damping));
  }
  if (!IsFinite(s.max_step) || !(s.max_step > 0.0) || !(s.max_step <= kPi)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "settings.max_step: must be in (0, pi], got ", s.max_step));
  }
  if (!IsFinite(s.root_stiffness) || !(s.root_stiffness > 0.0)) {
    return absl::InvalidArgumentError(
        absl::StrCat("settings.root_stiffness: must be finite and > 0, got ",
                     s.root_stiffness));
  }
  if (s.joints.empty()) return absl::OkStatus();
  if (s.joints.size() != locals.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("settings.joints: ", s.joints.size(), " for ",
                     locals.size(), " joints (give none or one per joint)"));
  }
  for (int i = 0; i < static_cast<int>(s.joints.size()); ++i) {
    const TorqueJointSettings& joint = s.joints[i];
    if (!IsFinite(joint.stiffness) || !(joint.stiffness > 0.0)) {
      return InvalidJoint(i, absl::StrCat(".stiffness: must be finite and > "
                                          "0, got ",
                                          joint.stiffness));
    }
    if (!IsFinite(joint.elasticity) || joint.elasticity < 0.0) {
      return InvalidJoint(i, absl::StrCat(".elasticity: must be finite and "
                                          ">= 0, got ",
                                          joint.elasticity));
    }
    if (!IsFinite(joint.comfort) || joint.comfort < 0.0 ||
        joint.comfort > kPi) {
      return InvalidJoint(
          i, absl::StrCat(".comfort: must be in [0, pi], got ", joint.comfort));
    }
    const Quat& preferred = joint.preferred_rotation;
    if (!IsFinite(preferred) || !(std::abs(glm::dot(preferred, preferred) -
                                           1.0) <= kUnitNormSquaredTolerance)) {
      return InvalidJoint(
          i, absl::StrCat(".preferred_rotation: not a unit quaternion (norm ",
                          Norm(preferred), ")"));
    }
  }
  return absl::OkStatus();
}

}  // namespace ik
