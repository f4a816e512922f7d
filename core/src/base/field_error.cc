#include "ik/base/field_error.h"

#include "absl/strings/cord.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace ik {

absl::Status FieldError(absl::StatusCode code, absl::string_view path,
                        absl::string_view description) {
  if (path.empty()) return absl::Status(code, description);
  absl::Status status(code, absl::StrCat(path, ": ", description));
  status.SetPayload(kFieldPathPayload, absl::Cord(path));
  return status;
}

absl::Status InvalidField(absl::string_view path, absl::string_view field,
                          absl::string_view description) {
  return InvalidField(absl::StrCat(path, ".", field), description);
}

std::string FieldPath(absl::string_view prefix, absl::string_view field) {
  if (prefix.empty()) return std::string(field);
  return absl::StrCat(prefix, ".", field);
}

absl::Status Rooted(const absl::Status& status, absl::string_view prefix) {
  if (status.ok() || prefix.empty()) return status;
  std::optional<std::string> path = FieldPathOf(status);
  if (!path.has_value())
    return FieldError(status.code(), prefix, status.message());
  return FieldError(status.code(), FieldPath(prefix, *path),
                    FieldDescriptionOf(status));
}

std::optional<std::string> FieldPathOf(const absl::Status& status) {
  auto payload = status.GetPayload(kFieldPathPayload);
  if (!payload.has_value()) return std::nullopt;
  return std::string(*payload);
}

absl::string_view FieldDescriptionOf(const absl::Status& status) {
  absl::string_view message = status.message();
  std::optional<std::string> path = FieldPathOf(status);
  if (path.has_value() && absl::StartsWith(message, *path) &&
      absl::StartsWith(message.substr(path->size()), ": ")) {
    message.remove_prefix(path->size() + 2);
  }
  return message;
}

}  // namespace ik
