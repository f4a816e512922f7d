// GroundFeetJob::Validate: every input and output, named by its field
// (ik/ground/grounding.h).
#include <limits>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "ik/base/field_error.h"
#include "ik/base/validate.h"
#include "ik/ground/grounding.h"

namespace ik {
namespace {

absl::Status CheckSize(size_t size, size_t expected, absl::string_view path,
                       absl::string_view what, const Rig& rig,
                       absl::string_view per) {
  if (size == expected) return absl::OkStatus();
  return InvalidField(
      path, absl::StrCat(size, " ", what, " for rig '", rig.name(), "' of ",
                         expected, " ", per));
}

// Finite and >= 0; +infinity too when `allow_infinity`.
absl::Status CheckNonNegative(double value, absl::string_view path,
                              absl::string_view unit, bool allow_infinity) {
  if (value >= 0.0 && (allow_infinity || value < kInfinity)) {
    return absl::OkStatus();
  }
  return InvalidField(
      path, absl::StrCat("must be ", allow_infinity ? "" : "finite and ",
                         ">= 0", unit, ", got ", value));
}

absl::Status ValidateSmoothing(const GroundSmoothing& smoothing, const Rig& rig,
                               size_t leg_count) {
  if (absl::Status status =
          CheckNonNegative(smoothing.previous_pelvis_drop,
                           "smoothing.previous_pelvis_drop", " m", false);
      !status.ok()) {
    return status;
  }
  if (absl::Status status =
          CheckSize(smoothing.previous_foot_offsets.size(), leg_count,
                    "smoothing.previous_foot_offsets", "offsets", rig, "legs");
      !status.ok()) {
    return status;
  }
  for (size_t l = 0; l < smoothing.previous_foot_offsets.size(); ++l) {
    if (!IsWithinRange(smoothing.previous_foot_offsets[l])) {
      return InvalidField(
          absl::StrCat("smoothing.previous_foot_offsets[", l, "]"),
          absl::StrCat("not finite or beyond ", kMaxCoordinate, " m"));
    }
  }
  if (absl::Status status = CheckNonNegative(
          smoothing.delta_time, "smoothing.delta_time", " s", false);
      !status.ok()) {
    return status;
  }
  if (absl::Status status =
          CheckNonNegative(smoothing.max_pelvis_speed,
                           "smoothing.max_pelvis_speed", " m/s", true);
      !status.ok()) {
    return status;
  }
  return CheckNonNegative(smoothing.max_foot_speed, "smoothing.max_foot_speed",
                          " m/s", true);
}

// Calls `visit` (bool(int joint)) on each joint of `leg` that grounding
// reads (internal::PoseOfLeg): its ancestors (unless `ancestors` is false),
// hip, knee, ankle, and the toe with the joints between it and the ankle.
// Whether every call returned true; all are made either way.
template <typename Visit>
bool ForEachLegJoint(absl::Span<const int> parents, const Leg& leg,
                     bool ancestors, Visit visit) {
  bool all = true;
  if (ancestors) {
    for (const int joint : leg.ancestors) all &= visit(joint);
  }
  all &= visit(leg.hip);
  all &= visit(leg.knee);
  all &= visit(leg.ankle);
  if (leg.toe == kNoParent) return all;
  for (int j = leg.toe; j != leg.ankle; j = parents[j]) all &= visit(j);
  return all;
}

// The rig, its legs and the pose: `locals` (the joints the legs read) and
// `root`, named by the job's pose path.
absl::Status CheckPose(const GroundFeetJob& job) {
  if (job.rig == nullptr) return InvalidField("rig", "null");
  const Rig& rig = *job.rig;
  if (job.legs.empty()) {
    return FieldError(absl::StatusCode::kFailedPrecondition, "legs",
                      absl::StrCat("rig ", Quoted(rig.name()), " has no legs"));
  }
  const size_t joint_count = static_cast<size_t>(rig.joint_count());
  // No string built unless there is an error: a crowd's pose paths are
  // longer than a std::string holds without allocating.
  const absl::string_view locals_path =
      job.pose_path.empty() ? absl::string_view("locals") : job.pose_path;
  if (absl::Status status = CheckSize(job.locals.size(), joint_count,
                                      locals_path, "transforms", rig, "joints");
      !status.ok()) {
    return status;
  }
  // Only the joints the job reads: every other joint passes through as it
  // came (the server has validated a request's every joint already).
  bool locals_valid = true;
  for (size_t l = 0; l < job.legs.size(); ++l) {
    // Legs whose hips share a parent share their ancestors: checked once.
    const bool ancestors_checked =
        l > 0 &&
        rig.parents()[job.legs[l].hip] == rig.parents()[job.legs[l - 1].hip];
    locals_valid &= ForEachLegJoint(
        rig.parents(), job.legs[l], !ancestors_checked,
        [&](int joint) { return TransformLooksValid(job.locals[joint]); });
  }
  std::vector<bool> read;  // on the error path only: the joints read
  if (!locals_valid) {
    read.assign(job.locals.size(), false);
    for (const Leg& leg : job.legs) {
      ForEachLegJoint(rig.parents(), leg, /*ancestors=*/true, [&](int joint) {
        read[joint] = true;
        return true;
      });
    }
  }
  for (size_t i = 0; !locals_valid && i < job.locals.size(); ++i) {
    if (!read[i] || TransformLooksValid(job.locals[i])) continue;
    absl::Status status =
        ValidateTransform(job.locals[i], absl::StrCat("locals[", i, "]"))
            .status();
    if (status.ok()) continue;
    if (job.pose_path.empty()) return status;
    // The dense pose has no field of the caller's own per joint.
    return InvalidField(
        job.pose_path,
        absl::StrCat("joint ", Quoted(rig.joint(static_cast<int>(i)).name),
                     ": ", FieldDescriptionOf(status)));
  }
  if (TransformLooksValid(job.root)) return absl::OkStatus();
  return ValidateTransform(job.root, FieldPath(job.pose_path, "root")).status();
}

// The ground, the weights, the smoothing and the tolerance.
absl::Status CheckSettings(const GroundFeetJob& job) {
  if (absl::Status status = job.ground.Validate("ground"); !status.ok()) {
    return status;
  }
  const size_t leg_count = job.legs.size();
  if (absl::Status status = CheckSize(job.weights.size(), leg_count, "weights",
                                      "values", *job.rig, "legs");
      !status.ok()) {
    return status;
  }
  for (size_t l = 0; l < job.weights.size(); ++l) {
    if (!(job.weights[l] >= 0.0 && job.weights[l] <= 1.0)) {
      return InvalidField(absl::StrCat("weights[", l, "]"),
                          absl::StrCat(job.weights[l], " is not in [0, 1]"));
    }
  }
  if (job.smoothing.has_value()) {
    if (absl::Status status =
            ValidateSmoothing(*job.smoothing, *job.rig, leg_count);
        !status.ok()) {
      return status;
    }
  }
  return CheckNonNegative(job.tolerance, "tolerance", " m", false);
}

}  // namespace

absl::Status GroundFeetJob::Validate() const {
  if (absl::Status status = CheckPose(*this); !status.ok()) return status;
  if (absl::Status status = CheckSettings(*this); !status.ok()) return status;
  if (absl::Status status =
          CheckSize(feet.size(), legs.size(), "feet", "results", *rig, "legs");
      !status.ok()) {
    return status;
  }
  if (report == nullptr) return InvalidField("report", "null output");
  return absl::OkStatus();
}

}  // namespace ik
