// Errors that name the input at fault. Every error of the core that a
// caller's input caused carries the field path of that input twice: as the
// start of its message ("<path>: <description>") and as a payload, so the
// server can report it in a structured form (google.rpc.BadRequest) without
// parsing the message. Paths are the caller's: callers pass the path of
// what they hand to the core (e.g. "goals[3].target"), the core appends the
// parts it walks into (".joints[2].parent"), and nobody rewrites a message
// afterwards.
//
//   absl::Status status = FieldError(absl::StatusCode::kInvalidArgument,
//                                    "pose.root.scale", "must be > 0");
//   status.message()  -> "pose.root.scale: must be > 0"
//   FieldPathOf(status) -> "pose.root.scale"
#ifndef IK_FIELD_ERROR_H_
#define IK_FIELD_ERROR_H_

#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace ik {

// The payload type URL under which a status carries its field path.
inline constexpr absl::string_view kFieldPathPayload =
    "type.googleapis.com/ik.FieldPath";

// A status with `code`, the message "<path>: <description>" and `path` as
// its field-path payload. An empty path gives the description alone and no
// payload.
absl::Status FieldError(absl::StatusCode code, absl::string_view path,
                        absl::string_view description);

// FieldError with INVALID_ARGUMENT, the common case.
inline absl::Status InvalidField(absl::string_view path,
                                 absl::string_view description) {
  return FieldError(absl::StatusCode::kInvalidArgument, path, description);
}

// InvalidField for `field` of the input at `path` ("<path>.<field>").
absl::Status InvalidField(absl::string_view path, absl::string_view field,
                          absl::string_view description);

// "<prefix>.<field>", or `field` alone when `prefix` is empty.
std::string FieldPath(absl::string_view prefix, absl::string_view field);

// The same error seen from one level up: its path becomes
// "<prefix>.<path>" in the payload and the message alike (a status without
// a path gets `prefix` as its path). OK stays OK; an empty prefix changes
// nothing. For callers that hand the core a part of their input whose path
// the core cannot know.
absl::Status Rooted(const absl::Status& status, absl::string_view prefix);

// The field path a status carries, if any.
std::optional<std::string> FieldPathOf(const absl::Status& status);

// The description of a FieldError: its message without "<path>: ".
absl::string_view FieldDescriptionOf(const absl::Status& status);

}  // namespace ik

#endif  // IK_FIELD_ERROR_H_
