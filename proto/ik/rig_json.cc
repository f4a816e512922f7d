#include "ik/rig_json.h"

#include <fstream>
#include <sstream>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/util/json_util.h"

namespace ik {

absl::StatusOr<v1::Rig> ParseRigJson(absl::string_view json) {
  v1::Rig rig;
  google::protobuf::util::JsonParseOptions options;
  options.ignore_unknown_fields = false;
  auto status = google::protobuf::util::JsonStringToMessage(
      google::protobuf::StringPiece(json.data(), json.size()), &rig, options);
  if (!status.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "not a valid ik.v1.Rig in JSON: ", std::string(status.message())));
  }
  return rig;
}

absl::StatusOr<v1::Rig> ReadRigFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat(path, ": cannot open"));
  std::ostringstream text;
  text << in.rdbuf();
  absl::StatusOr<v1::Rig> rig = ParseRigJson(text.str());
  if (!rig.ok()) {
    return absl::Status(rig.status().code(),
                        absl::StrCat(path, ": ", rig.status().message()));
  }
  return rig;
}

std::string ToJson(const google::protobuf::Message& message) {
  google::protobuf::util::JsonPrintOptions options;
  options.add_whitespace = true;
  options.always_print_primitive_fields = true;
  options.preserve_proto_field_names = true;
  std::string out;
  // Printing a well-formed message cannot fail.
  (void)google::protobuf::util::MessageToJsonString(message, &out, options);
  return out;
}

}  // namespace ik
