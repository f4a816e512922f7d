#include "ik/base/validate.h"

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"

namespace ik {

absl::Status ValidateName(absl::string_view name, absl::string_view path) {
  if (name.empty()) return InvalidField(path, "empty");
  bool valid = name.size() <= static_cast<size_t>(kMaxNameLength);
  for (size_t i = 0; valid && i < name.size(); ++i) {
    const char c = name[i];
    valid = absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '_' ||
            c == '-' || c == '.';
  }
  if (valid) return absl::OkStatus();
  return InvalidField(
      path, absl::StrCat(Quoted(name), " is not a valid name (", name.size(),
                         " characters; 1-", kMaxNameLength,
                         " of A-Z a-z 0-9 _ - .)"));
}

std::string Quoted(absl::string_view text) {
  if (text.size() <= static_cast<size_t>(kMaxNameLength)) {
    return absl::StrCat("'", text, "'");
  }
  return absl::StrCat("'", text.substr(0, kMaxNameLength), "...'");
}

absl::Status OutOfRange(absl::string_view path, double value, double low,
                        double high, absl::string_view unit) {
  return InvalidField(path, absl::StrCat("must be within [", low, ", ", high,
                                         "]", unit, ", got ", value));
}

absl::Status PointError(const Vec3& point, absl::string_view path) {
  if (!IsFinite(point)) return InvalidField(path, "not finite");
  return InvalidField(
      path, absl::StrCat("beyond ", kMaxCoordinate, " m from the origin"));
}

}  // namespace ik
