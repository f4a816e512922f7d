#include "ik/validate.h"

#include "absl/strings/str_cat.h"

namespace ik {

absl::Status PointError(const Vec3& point, absl::string_view path) {
  if (!IsFinite(point)) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": not finite"));
  }
  return absl::InvalidArgumentError(
      absl::StrCat(path, ": beyond ", kMaxCoordinate, " m from the origin"));
}

}  // namespace ik
