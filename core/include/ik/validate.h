// Input checks shared by the core's jobs, each returning INVALID_ARGUMENT
// with the field path first.
#ifndef IK_VALIDATE_H_
#define IK_VALIDATE_H_

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "ik/math.h"

namespace ik {

// The error CheckPoint returns for a point that fails it.
absl::Status PointError(const Vec3& point, absl::string_view path);

// OK when `point` is finite and every component is within kMaxCoordinate;
// else "<path>: not finite" or "<path>: beyond 1e+09 m from the origin".
// The OK path builds no strings.
inline absl::Status CheckPoint(const Vec3& point, absl::string_view path) {
  if (IsWithinRange(point)) return absl::OkStatus();  // false for NaN too
  return PointError(point, path);
}

}  // namespace ik

#endif  // IK_VALIDATE_H_
