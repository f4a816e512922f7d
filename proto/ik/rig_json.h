// Reading rigs and terrains written in protobuf's JSON mapping of ik.v1.Rig
// and ik.v1.Terrain, shared by the server (rig and terrain directories at
// start-up) and the client tools (ikctl).
//
//   absl::StatusOr<ik::v1::Rig> rig =
//   ik::ReadRigFile("examples/rigs/tail.json");
#ifndef IK_PROTO_RIG_JSON_H_
#define IK_PROTO_RIG_JSON_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "ik/v1/ik.pb.h"

namespace ik {

// Parses `json` into `message` (any message type). Unknown fields are
// errors. INVALID_ARGUMENT "not a valid ik.v1.Rig in JSON: <the parser's
// message, which names the offending field>" on failure.
absl::Status ParseJson(absl::string_view json,
                       google::protobuf::Message* message);

// Reads and parses a JSON file into `message`. NOT_FOUND when the file
// cannot be opened; errors are prefixed by the path.
absl::Status ReadJsonFile(const std::string& path,
                          google::protobuf::Message* message);

// Parses `json` as an ik.v1.Rig. Unknown fields are errors. INVALID_ARGUMENT
// with the parser's message (which names the offending field) on failure.
absl::StatusOr<v1::Rig> ParseRigJson(absl::string_view json);

// Reads and parses a rig file. NOT_FOUND when the file cannot be opened;
// errors are prefixed by the path.
absl::StatusOr<v1::Rig> ReadRigFile(const std::string& path);

// Reads and parses a terrain file (ik.v1.Terrain), like ReadRigFile.
absl::StatusOr<v1::Terrain> ReadTerrainFile(const std::string& path);

// Serialises any message in the JSON mapping with the proto's field names
// (snake_case), every field printed (including zero values), indented.
std::string ToJson(const google::protobuf::Message& message);

}  // namespace ik

#endif  // IK_PROTO_RIG_JSON_H_
