// TwoBoneJob's input checks: the branch-free quick test Run() takes on its
// common path, and the predicates Validate() shares with it. Not part of the
// public API.
#ifndef IK_SRC_TWO_BONE_VALIDATE_H_
#define IK_SRC_TWO_BONE_VALIDATE_H_

#include <cmath>
#include <limits>

#include "ik/base/joint_limits.h"
#include "ik/base/math.h"
#include "ik/base/validate.h"
#include "ik/solvers/solve_report.h"
#include "ik/solvers/two_bone.h"

namespace ik::internal {

// |q|^2 within kUnitNormSquaredTolerance of 1.
inline bool IsUnitRotation(const Quat& q) {
  const double norm_squared = q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w;
  return std::abs(norm_squared - 1.0) <= kUnitNormSquaredTolerance;
}

// Finite and not of zero length (after IsFinite, so no NaN/inf here).
inline bool IsUsableAxis(const Vec3& axis) {
  return IsFinite(axis) &&
         glm::dot(axis, axis) >= kMinDirectionLength * kMinDirectionLength;
}

// Finite, min <= max.
inline bool IsUsableRange(const AngleRange& range) {
  return IsFinite(range.min) && IsFinite(range.max) && range.min <= range.max;
}

// |x| + |y| + |z| (std::abs: glm::abs branches on the sign).
inline double SumOfMagnitudes(const Vec3& v) {
  return (std::abs(v.x) + std::abs(v.y)) + std::abs(v.z);
}

// A quick test that the job is valid, for Run()'s common case: false
// means "look closer" (Validate() then decides and names the first
// offending field), true implies Validate() would pass. Coordinates are
// bounded through the sum of their magnitudes, which NaN and infinity
// poison. Written without data-dependent branches.
inline bool LooksValid(const TwoBoneJob& job) {
  const Vec3 upper = job.mid_model.translation - job.root_model.translation;
  const Vec3 lower = job.tip_model.translation - job.mid_model.translation;
  const double magnitude = (SumOfMagnitudes(job.root_model.translation) +
                            SumOfMagnitudes(job.mid_model.translation)) +
                           (SumOfMagnitudes(job.tip_model.translation) +
                            SumOfMagnitudes(job.target_model));
  // `&=` rather than `&&`: every test is cheap, a branch per test is not.
  bool valid = job.root_correction != nullptr;
  valid &= job.mid_correction != nullptr;
  valid &= job.report != nullptr;
  valid &= magnitude <= kMaxCoordinate;
  valid &= IsUnitRotation(job.root_model.rotation);
  valid &= IsUnitRotation(job.mid_model.rotation);
  valid &= !job.pole_model.has_value() || IsWithinRange(*job.pole_model);
  valid &= !job.mid_axis_model.has_value() || IsUsableAxis(*job.mid_axis_model);
  valid &=
      !job.mid_turn_range.has_value() ||
      (job.mid_axis_model.has_value() && IsUsableRange(*job.mid_turn_range));
  valid &= job.tolerance >= 0.0;
  valid &= job.tolerance <= std::numeric_limits<double>::max();
  valid &= glm::dot(upper, upper) >= kMinSolveBoneSquared;
  valid &= glm::dot(lower, lower) >= kMinSolveBoneSquared;
  return valid;
}

}  // namespace ik::internal

#endif  // IK_SRC_TWO_BONE_VALIDATE_H_
