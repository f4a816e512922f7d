// TwoBoneJob::Validate: the field checks, in field order, grouped by what
// they check.
#include "solvers/two_bone_validate.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "ik/base/joint_limits.h"
#include "ik/base/math.h"
#include "ik/base/validate.h"
#include "ik/solvers/solve_report.h"
#include "ik/solvers/two_bone.h"

namespace ik {
namespace {

using internal::IsUnitRotation;
using internal::IsUsableAxis;
using internal::IsUsableRange;

absl::Status CheckRotation(const Quat& q, const char* field) {
  if (!IsFinite(q)) {
    return absl::InvalidArgumentError(absl::StrCat(field, ": not finite"));
  }
  if (!IsUnitRotation(q)) {
    return absl::InvalidArgumentError(
        absl::StrCat(field, ": not a unit quaternion (norm ", Norm(q), ")"));
  }
  return absl::OkStatus();
}

absl::Status CheckOutputs(const TwoBoneJob& job) {
  if (job.root_correction == nullptr) {
    return absl::InvalidArgumentError("root_correction: null output");
  }
  if (job.mid_correction == nullptr) {
    return absl::InvalidArgumentError("mid_correction: null output");
  }
  if (job.report == nullptr) {
    return absl::InvalidArgumentError("report: null output");
  }
  return absl::OkStatus();
}

// The three joints' transforms, then the target and the pole.
absl::Status CheckPoints(const TwoBoneJob& job) {
  if (absl::Status status =
          CheckPoint(job.root_model.translation, "root_model.translation");
      !status.ok()) {
    return status;
  }
  if (absl::Status status =
          CheckRotation(job.root_model.rotation, "root_model.rotation");
      !status.ok()) {
    return status;
  }
  if (absl::Status status =
          CheckPoint(job.mid_model.translation, "mid_model.translation");
      !status.ok()) {
    return status;
  }
  if (absl::Status status =
          CheckRotation(job.mid_model.rotation, "mid_model.rotation");
      !status.ok()) {
    return status;
  }
  if (absl::Status status =
          CheckPoint(job.tip_model.translation, "tip_model.translation");
      !status.ok()) {
    return status;
  }
  if (absl::Status status = CheckPoint(job.target_model, "target_model");
      !status.ok()) {
    return status;
  }
  if (job.pole_model.has_value()) {
    return CheckPoint(*job.pole_model, "pole_model");
  }
  return absl::OkStatus();
}

absl::Status CheckMidAxisAndTurnRange(const TwoBoneJob& job) {
  if (job.mid_axis_model.has_value()) {
    if (!IsFinite(*job.mid_axis_model)) {
      return absl::InvalidArgumentError("mid_axis_model: not finite");
    }
    if (!IsUsableAxis(*job.mid_axis_model)) {
      return absl::InvalidArgumentError("mid_axis_model: zero length");
    }
  }
  if (job.mid_turn_range.has_value()) {
    if (!IsUsableRange(*job.mid_turn_range)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "mid_turn_range: [", job.mid_turn_range->min, ", ",
          job.mid_turn_range->max, "] is not a finite range with min <= max"));
    }
    if (!job.mid_axis_model.has_value()) {
      return absl::InvalidArgumentError(
          "mid_turn_range: set without mid_axis_model");
    }
  }
  return absl::OkStatus();
}

absl::Status CheckToleranceAndBones(const TwoBoneJob& job) {
  const Vec3 upper = job.mid_model.translation - job.root_model.translation;
  const Vec3 lower = job.tip_model.translation - job.mid_model.translation;
  if (!IsFinite(job.tolerance) || job.tolerance < 0.0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "tolerance: must be finite and >= 0, got ", job.tolerance));
  }
  if (!(glm::dot(upper, upper) >= kMinSolveBoneSquared)) {
    return absl::InvalidArgumentError(
        "mid_model.translation: zero-length bone from the root");
  }
  if (!(glm::dot(lower, lower) >= kMinSolveBoneSquared)) {
    return absl::InvalidArgumentError(
        "tip_model.translation: zero-length bone from the middle joint");
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status TwoBoneJob::Validate() const {
  if (internal::LooksValid(*this)) return absl::OkStatus();
  // Look closer, in field order.
  if (absl::Status status = CheckOutputs(*this); !status.ok()) return status;
  if (absl::Status status = CheckPoints(*this); !status.ok()) return status;
  if (absl::Status status = CheckMidAxisAndTurnRange(*this); !status.ok()) {
    return status;
  }
  return CheckToleranceAndBones(*this);
}

}  // namespace ik
