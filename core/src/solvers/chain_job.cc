#include "ik/solvers/chain_job.h"

#include <cmath>
#include <cstdint>
#include <limits>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "ik/base/validate.h"

namespace ik {
namespace {

// Rotations may be this far from unit squared norm (as TwoBoneJob).

absl::Status Invalid(absl::string_view field, int index,
                     absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat(field, "[", index, "]", what));
}

double SumOfMagnitudes(const Vec3& v) {
  return std::abs(v.x) + std::abs(v.y) + std::abs(v.z);
}

}  // namespace

absl::Status ChainJob::Validate() const {
  if (workspace == nullptr) {
    return absl::InvalidArgumentError("workspace: null");
  }
  if (report == nullptr) {
    return absl::InvalidArgumentError("report: null output");
  }
  if (locals.size() < 2 ||
      locals.size() > static_cast<size_t>(kMaxChainJoints)) {
    return absl::InvalidArgumentError(absl::StrCat("locals: ", locals.size(),
                                                   " joints; a chain has 2..",
                                                   kMaxChainJoints));
  }
  if (!constraints.empty() && constraints.size() != locals.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("constraints: ", constraints.size(), " for ",
                     locals.size(), " joints (give none or one per joint)"));
  }
  if (!IsWithinRange(parent_model.translation)) {
    return absl::InvalidArgumentError(
        "parent_model.translation: not finite or beyond kMaxCoordinate");
  }
  const Vec3& parent_scale = parent_model.scale;
  if (!IsFinite(parent_scale) || !(parent_scale.x > 0.0) ||
      !(parent_scale.y > 0.0) || !(parent_scale.z > 0.0)) {
    return absl::InvalidArgumentError(
        "parent_model.scale: must be finite and positive");
  }
  if (!IsFinite(parent_model.rotation) ||
      !(std::abs(glm::dot(parent_model.rotation, parent_model.rotation) -
                 1.0) <= kUnitNormSquaredTolerance)) {
    return absl::InvalidArgumentError(
        absl::StrCat("parent_model.rotation: not a unit quaternion (norm ",
                     Norm(parent_model.rotation), ")"));
  }
  // Every position lies within the root's distance plus the bones' lengths
  // of the origin: bounding that sum (with |x| + |y| + |z| >= length, so no
  // square roots) bounds them all.
  constexpr double kMinBoneSquared = kMinSolveBoneLength * kMinSolveBoneLength;
  const int count = static_cast<int>(locals.size());
  Vec3 scale = parent_scale;
  double reach = SumOfMagnitudes(parent_model.translation) +
                 SumOfMagnitudes(parent_scale * locals[0].translation);
  for (int i = 0; i < count; ++i) {
    const Transform& local = locals[i];
    if (!IsFinite(local.translation)) {
      return Invalid("locals", i, ".translation: not finite");
    }
    if (!IsFinite(local.rotation) ||
        !(std::abs(glm::dot(local.rotation, local.rotation) - 1.0) <=
          kUnitNormSquaredTolerance)) {
      return Invalid("locals", i,
                     absl::StrCat(".rotation: not a unit quaternion (norm ",
                                  Norm(local.rotation), ")"));
    }
    if (!IsFinite(local.scale) || !(local.scale.x > 0.0) ||
        !(local.scale.y > 0.0) || !(local.scale.z > 0.0)) {
      return Invalid("locals", i, ".scale: must be finite and positive");
    }
    if (i > 0) {
      const Vec3 bone = scale * local.translation;
      if (!(glm::dot(bone, bone) >= kMinBoneSquared)) {
        return Invalid("locals", i,
                       ".translation: zero-length bone from the previous "
                       "joint");
      }
      reach += SumOfMagnitudes(bone);
    }
    scale *= local.scale;
  }
  if (!IsFinite(scale)) {
    return absl::InvalidArgumentError("locals: scales overflow");
  }
  if (!(reach <= kMaxCoordinate)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "locals: the chain reaches beyond ", kMaxCoordinate, " m"));
  }
  if (!IsWithinRange(target_model)) {
    return absl::InvalidArgumentError(
        absl::StrCat("target_model: not finite or beyond ", kMaxCoordinate,
                     " m from the model origin"));
  }
  if (max_iterations < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "max_iterations: must be at least 1, got ", max_iterations));
  }
  if (!IsFinite(tolerance) || tolerance < 0.0) {
    return absl::InvalidArgumentError(
        absl::StrCat("tolerance: must be finite and >= 0, got ", tolerance));
  }
  return absl::OkStatus();
}

}  // namespace ik
