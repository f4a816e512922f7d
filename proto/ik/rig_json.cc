#include "ik/rig_json.h"

#include <fstream>
#include <sstream>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/util/json_util.h"

namespace ik {

absl::Status ParseJson(absl::string_view json,
                       google::protobuf::Message* message) {
  google::protobuf::util::JsonParseOptions options;
  options.ignore_unknown_fields = false;
  auto status = google::protobuf::util::JsonStringToMessage(
      google::protobuf::StringPiece(json.data(), json.size()), message,
      options);
  if (!status.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("not a valid ", message->GetDescriptor()->full_name(),
                     " in JSON: ", std::string(status.message())));
  }
  return absl::OkStatus();
}

absl::Status ReadJsonFile(const std::string& path,
                          google::protobuf::Message* message) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat(path, ": cannot open"));
  std::ostringstream text;
  text << in.rdbuf();
  absl::Status status = ParseJson(text.str(), message);
  if (!status.ok()) {
    return absl::Status(status.code(),
                        absl::StrCat(path, ": ", status.message()));
  }
  return absl::OkStatus();
}

absl::StatusOr<v1::Rig> ParseRigJson(absl::string_view json) {
  v1::Rig rig;
  if (absl::Status status = ParseJson(json, &rig); !status.ok()) return status;
  return rig;
}

absl::StatusOr<v1::Rig> ReadRigFile(const std::string& path) {
  v1::Rig rig;
  if (absl::Status status = ReadJsonFile(path, &rig); !status.ok()) {
    return status;
  }
  return rig;
}

absl::StatusOr<v1::Terrain> ReadTerrainFile(const std::string& path) {
  v1::Terrain terrain;
  if (absl::Status status = ReadJsonFile(path, &terrain); !status.ok()) {
    return status;
  }
  return terrain;
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
