// Shared pieces of the ikctl commands: exit codes, error and usage
// output, --json printing and argument parsing.
#ifndef IK_CLIENT_IKCTL_IKCTL_UTIL_H_
#define IK_CLIENT_IKCTL_IKCTL_UTIL_H_

#include <string>
#include <vector>

#include "absl/flags/declare.h"
#include "absl/flags/flag.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_format.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "ik/client.h"
#include "ik/rig_json.h"
#include "ik/v1/ik.pb.h"

ABSL_DECLARE_FLAG(bool, json);
ABSL_DECLARE_FLAG(std::string, rig);
ABSL_DECLARE_FLAG(std::string, chain);
ABSL_DECLARE_FLAG(std::string, revision);

namespace ik::ctl {

inline constexpr int kOk = 0;
inline constexpr int kFailed = 1;
inline constexpr int kUsage = 2;

// Prints the problem and the usage message to stderr; returns kUsage.
int Usage(const std::string& problem);

// Prints the status to stderr; returns kFailed.
int Failed(const absl::Status& status);

// Prints `message` as JSON when --json, else runs `print_readable`.
template <typename Message, typename Readable>
int Print(const Message& message, Readable&& print_readable) {
  if (absl::GetFlag(FLAGS_json)) {
    absl::PrintF("%s\n", ik::ToJson(message));
  } else {
    print_readable(message);
  }
  return kOk;
}

// Prints a Register{Rig,Terrain} answer ("NAME REVISION (created)").
template <typename Response>
int PrintRegistered(const absl::StatusOr<Response>& answer) {
  if (!answer.ok()) return Failed(answer.status());
  return Print(*answer, [](const Response& r) {
    absl::PrintF("%s %s (%s)\n", r.name(), r.revision(),
                 r.replaced()  ? "replaced"
                 : r.created() ? "created"
                               : "unchanged");
  });
}

// Prints a Delete{Rig,Terrain} answer ("deleted NAME REVISION").
template <typename Response>
int PrintDeleted(const absl::StatusOr<Response>& answer,
                 const std::string& name) {
  if (!answer.ok()) return Failed(answer.status());
  return Print(*answer, [&](const Response& r) {
    absl::PrintF("deleted %s %s\n", name, r.revision());
  });
}

// Parses exactly values.size() comma-separated numbers.
bool ParseNumbers(const std::string& text, absl::Span<double> values);
// Parses "X,Y,Z" into `out`; false on anything else.
bool ParseVec3(const std::string& text, ik::v1::Vec3* out);
// Parses "X,Y,Z,W" into `out`; false on anything else.
bool ParseQuat(const std::string& text, ik::v1::Quat* out);

std::string FormatVec3(const ik::v1::Vec3& v);

// ikctl dynamics (ikctl_dynamics.cc).
int DynamicsCommand(ik::Client& client, const std::vector<std::string>& args);

// ikctl terrain and ikctl ground (ikctl_ground.cc). `planes` are the values
// of every --plane flag.
int TerrainCommand(ik::Client& client, const std::vector<std::string>& args,
                   bool replace);
// GroundFeet's request from the flags (--rig, --revision, --plane values,
// --terrain, --pose, --root, --weights, --tolerance); INVALID_ARGUMENT
// saying which flag is wrong (a --pose file that does not parse: its
// error).
absl::StatusOr<ik::v1::GroundFeetRequest> GroundRequestFromFlags(
    const std::vector<std::string>& planes);
// In ikctl_render.cc: `render --svg=FILE`.
int RenderCommand(ik::Client& client, const std::vector<std::string>& args,
                  const std::vector<std::string>& planes);
int GroundCommand(ik::Client& client, const std::vector<std::string>& args,
                  const std::vector<std::string>& planes);

// ikctl tick (ikctl_tick.cc): a synthetic crowd of --characters driven for
// --ticks through Tick or TickStream.
int TickCommand(ik::Client& client, const std::vector<std::string>& args);
// ikctl replay (ikctl_replay.cc): re-sends an ikd recording's calls and
// compares every answer with the recorded one, bit for bit.
int ReplayCommand(ik::Client& client, const std::vector<std::string>& args);
// ikctl inspect (ikctl_inspect.cc): serves a recording's ticks in 3D on a
// local web page until SIGINT or SIGTERM.
int InspectCommand(const std::vector<std::string>& args);
// In ikctl_import.cc: `rigs import FILE`; `chains` are the --chain values
// (NAME=ROOT:TIP).
int ImportCommand(ik::Client& client, const std::string& path,
                  const std::vector<std::string>& chains, bool replace);

// Removes every `--NAME=V` and `--NAME V` from argv (a flag that may be
// given more than once, which absl flags do not support), appending each V
// to `values`; returns the remaining arguments.
std::vector<char*> TakeRepeatedFlag(int argc, char** argv,
                                    absl::string_view name,
                                    std::vector<std::string>& values);

}  // namespace ik::ctl

#endif  // IK_CLIENT_IKCTL_IKCTL_UTIL_H_
