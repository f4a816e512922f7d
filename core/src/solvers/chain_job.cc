#include "ik/solvers/chain_job.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "ik/base/validate.h"
#include "solvers/chain_internal.h"

namespace ik {
namespace {

absl::Status Invalid(absl::string_view field, int index,
                     absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat(field, "[", index, "]", what));
}

double SumOfMagnitudes(const Vec3& v) {
  return std::abs(v.x) + std::abs(v.y) + std::abs(v.z);
}

// NaN fails every comparison, and an infinite component makes the sum of
// squares infinite: no separate finiteness test is needed below.
bool IsUnitNormSquared(double norm_squared) {
  return std::abs(norm_squared - 1.0) <= kUnitNormSquaredTolerance;
}

bool IsUnitRotation(const Quat& q) {
  return IsFinite(q) &&
         std::abs(glm::dot(q, q) - 1.0) <= kUnitNormSquaredTolerance;
}

absl::Status CheckOutputsAndSizes(const ChainJob& job) {
  if (job.workspace == nullptr) {
    return absl::InvalidArgumentError("workspace: null");
  }
  if (job.report == nullptr) {
    return absl::InvalidArgumentError("report: null output");
  }
  if (job.locals.size() < 2 ||
      job.locals.size() > static_cast<size_t>(kMaxChainJoints)) {
    return absl::InvalidArgumentError(
        absl::StrCat("locals: ", job.locals.size(), " joints; a chain has 2..",
                     kMaxChainJoints));
  }
  if (!job.constraints.empty() && job.constraints.size() != job.locals.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "constraints: ", job.constraints.size(), " for ", job.locals.size(),
        " joints (give none or one per joint)"));
  }
  return absl::OkStatus();
}

absl::Status CheckParentModel(const Transform& parent_model) {
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
  if (!IsUnitRotation(parent_model.rotation)) {
    return absl::InvalidArgumentError(
        absl::StrCat("parent_model.rotation: not a unit quaternion (norm ",
                     Norm(parent_model.rotation), ")"));
  }
  return absl::OkStatus();
}

// Each local transform, then the chain's reach. Every position lies within
// the root's distance plus the bones' lengths of the origin: bounding that
// sum (with |x| + |y| + |z| >= length, so no square roots) bounds them all.
absl::Status CheckLocals(const Transform& parent_model,
                         absl::Span<const Transform> locals) {
  const int count = static_cast<int>(locals.size());
  Vec3 scale = parent_model.scale;
  double reach = SumOfMagnitudes(parent_model.translation) +
                 SumOfMagnitudes(parent_model.scale * locals[0].translation);
  for (int i = 0; i < count; ++i) {
    const Transform& local = locals[i];
    if (!IsFinite(local.translation)) {
      return Invalid("locals", i, ".translation: not finite");
    }
    if (!IsUnitRotation(local.rotation)) {
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
      if (!(glm::dot(bone, bone) >= kMinSolveBoneSquared)) {
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
  return absl::OkStatus();
}

absl::Status CheckTargetAndSettings(const ChainJob& job) {
  if (!IsWithinRange(job.target_model)) {
    return absl::InvalidArgumentError(
        absl::StrCat("target_model: not finite or beyond ", kMaxCoordinate,
                     " m from the model origin"));
  }
  if (job.max_iterations < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "max_iterations: must be at least 1, got ", job.max_iterations));
  }
  if (!IsFinite(job.tolerance) || job.tolerance < 0.0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "tolerance: must be finite and >= 0, got ", job.tolerance));
  }
  return absl::OkStatus();
}

// The smallest component (NaN may slip through: the scales' product then
// is NaN, which fails its finiteness test).
double SmallestOf(const Vec3& v) { return std::min(std::min(v.x, v.y), v.z); }

}  // namespace

namespace internal {

// Validate()'s conditions, tested in one loop that also does what
// PrepareChain does (the same operations in the same order: the same
// bits); the locals are touched only once all have passed. Some conditions
// are implied rather than tested one by one: the finiteness of every
// translation and the range of the parent's by the chain's reach (each
// translation enters it, scaled by a finite positive product, as its sum
// of magnitudes); the finiteness of each scale by that of their product
// (an infinite one makes it infinite, or NaN against a zero one, which its
// own test rejects anyway).
bool PrepareValidChain(const ChainJob& job, Vec3* root_position) {
  const std::size_t count = job.locals.size();
  if (job.workspace == nullptr || job.report == nullptr || count < 2 ||
      count > static_cast<std::size_t>(kMaxChainJoints) ||
      (!job.constraints.empty() && job.constraints.size() != count)) {
    return false;
  }
  ChainWorkspace& ws = *job.workspace;
  const Transform& parent = job.parent_model;
  const Transform* locals = job.locals.data();
  // Accumulated with &= rather than &&: no branch per condition.
  bool valid = IsUnitNormSquared(glm::dot(parent.rotation, parent.rotation));
  valid &= SmallestOf(parent.scale) > 0.0;
  valid &= IsWithinRange(job.target_model);
  valid &= (job.max_iterations >= 1) & (job.tolerance >= 0.0) &
           (job.tolerance <= std::numeric_limits<double>::max());
  bool unit = true;  // every turned rotation unit to rounding
  Vec3 scale = parent.scale * locals[0].scale;
  double reach = SumOfMagnitudes(parent.translation) +
                 SumOfMagnitudes(parent.scale * locals[0].translation);
  for (std::size_t i = 0; i < count; ++i) {
    const Transform& local = locals[i];
    const double norm_squared = glm::dot(local.rotation, local.rotation);
    valid &= IsUnitNormSquared(norm_squared);
    valid &= SmallestOf(local.scale) > 0.0;
    if (i + 1 < count) {
      unit &= IsUnitToRounding(norm_squared);
      const Vec3 bone = scale * locals[i + 1].translation;
      const double bone_squared = glm::dot(bone, bone);
      valid &= bone_squared >= kMinSolveBoneSquared;
      reach += SumOfMagnitudes(bone);
      ws.bones[i] = bone;
      ws.lengths[i] = std::sqrt(bone_squared);
      scale *= locals[i + 1].scale;
    }
  }
  if (!(valid & IsFinite(scale) & (reach <= kMaxCoordinate))) return false;
  if (!unit) {
    for (std::size_t i = 0; i + 1 < count; ++i) {
      job.locals[i].rotation = Renormalized(job.locals[i].rotation);
    }
  }
  ws.parent_rotation = Renormalized(parent.rotation);
  *root_position = parent.translation +
                   ws.parent_rotation * (parent.scale * locals[0].translation);
  return true;
}

}  // namespace internal

absl::Status ChainJob::Validate() const {
  if (absl::Status status = CheckOutputsAndSizes(*this); !status.ok()) {
    return status;
  }
  if (absl::Status status = CheckParentModel(parent_model); !status.ok()) {
    return status;
  }
  if (absl::Status status = CheckLocals(parent_model, locals); !status.ok()) {
    return status;
  }
  return CheckTargetAndSettings(*this);
}

}  // namespace ik
