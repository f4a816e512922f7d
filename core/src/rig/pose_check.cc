#include "ik/rig/pose_check.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include "absl/strings/str_cat.h"
#include "ik/base/field_error.h"
#include "ik/base/joint_limits.h"
#include "ik/base/trig.h"
#include "ik/base/validate.h"
#include "rig/two_bone_limits.h"

namespace ik {
namespace {

using Kind = PoseViolation::Kind;

// An amount as reported: beyond the largest double (a difference of two
// huge finite numbers), the largest double.
double Reported(double amount) {
  return std::min(amount, std::numeric_limits<double>::max());
}

// The claimed rotation made finite and unit (reporting what it was);
// nullopt when there is no rotation to keep (not finite, or zero).
std::optional<Quat> UnitRotation(int joint, const Quat& claimed,
                                 std::vector<PoseViolation>& violations) {
  if (!IsFinite(claimed)) {
    violations.push_back({joint, Kind::kRotationNotFinite, 0.0});
    return std::nullopt;
  }
  const double norm = Norm(claimed);
  if (!(norm > 0.0)) {
    violations.push_back({joint, Kind::kRotationNotUnit, 1.0});
    return std::nullopt;
  }
  if (std::abs(norm - 1.0) > kUnitQuatTolerance) {
    violations.push_back(
        {joint, Kind::kRotationNotUnit, Reported(std::abs(norm - 1.0))});
  }
  if (std::isfinite(norm)) return Unit(claimed, norm);
  // A norm beyond the largest double: the rotation shrunk first.
  const Quat shrunk = claimed * 0x1p-4;
  return shrunk / Norm(shrunk);
}

// The largest per-axis difference of two vectors, or NaN when `claimed` is
// not finite.
double LargestDifference(const Vec3& claimed, const Vec3& rest) {
  if (!IsFinite(claimed)) return std::nan("");
  const Vec3 d = glm::abs(claimed - rest);
  return Reported(std::max({d.x, d.y, d.z}));
}

}  // namespace

absl::Status PoseCheckJob::Validate() const {
  if (rig == nullptr) return InvalidField("rig", "required");
  if (violations == nullptr) return InvalidField("violations", "required");
  const size_t joints = static_cast<size_t>(rig->joint_count());
  if (claimed.size() != joints) {
    return InvalidField(
        "claimed",
        absl::StrCat(claimed.size(), " transforms for ", joints, " joints"));
  }
  if (repaired.size() != joints) {
    return InvalidField(
        "repaired",
        absl::StrCat(repaired.size(), " transforms for ", joints, " joints"));
  }
  if (!IsFinite(tolerance) || !(tolerance >= 0.0)) {
    return InvalidField("tolerance", "must be finite and >= 0");
  }
  return absl::OkStatus();
}

absl::Status PoseCheckJob::Run() const {
  if (absl::Status status = Validate(); !status.ok()) return status;
  violations->clear();
  for (int j = 0; j < rig->joint_count(); ++j) {
    const JointDefinition& joint = rig->joint(j);
    const Transform& rest = joint.rest;
    const Transform& in = claimed[j];
    Transform& out = repaired[j];
    const std::optional<Quat> unit = UnitRotation(j, in.rotation, *violations);
    // A rotation that cannot be kept is replaced by the rest rotation, which
    // is within the limit (Rig::Create sees to it).
    const LimitedRotation limited = ApplyJointConstraint(
        internal::JointConstraintOf(joint), unit.value_or(rest.rotation));
    if (limited.clamped && unit.has_value()) {
      // The clamp's turn, from its vector and scalar parts (an arccosine
      // of the dot product loses small angles).
      const Quat turn = glm::conjugate(*unit) * limited.rotation;
      const double angle =
          2.0 *
          Atan2(glm::length(Vec3(turn.x, turn.y, turn.z)), std::abs(turn.w));
      violations->push_back({j, Kind::kOutsideLimit, angle});
    }
    const double moved =
        IsFinite(in.translation)
            ? Reported(Length(in.translation - rest.translation))
            : std::nan("");
    if (!(moved <= tolerance)) {
      violations->push_back(
          {j, Kind::kTranslation, std::isnan(moved) ? 0.0 : moved});
    }
    const double scaled = LargestDifference(in.scale, rest.scale);
    if (!(scaled <= tolerance)) {
      violations->push_back(
          {j, Kind::kScale, std::isnan(scaled) ? 0.0 : scaled});
    }
    out.rotation = limited.rotation;
    out.translation = rest.translation;
    out.scale = rest.scale;
  }
  return absl::OkStatus();
}

}  // namespace ik
