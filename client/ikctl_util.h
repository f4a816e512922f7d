// Shared pieces of the ikctl commands: exit codes, error and usage
// output, --json printing and argument parsing.
#ifndef IK_CLIENT_IKCTL_UTIL_H_
#define IK_CLIENT_IKCTL_UTIL_H_

#include <string>
#include <vector>

#include "absl/flags/declare.h"
#include "absl/flags/flag.h"
#include "absl/status/status.h"
#include "absl/strings/str_format.h"
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

// Parses exactly values.size() comma-separated numbers.
bool ParseNumbers(const std::string& text, absl::Span<double> values);
// Parses "X,Y,Z" into `out`; false on anything else.
bool ParseVec3(const std::string& text, ik::v1::Vec3* out);
// Parses "X,Y,Z,W" into `out`; false on anything else.
bool ParseQuat(const std::string& text, ik::v1::Quat* out);

std::string FormatVec3(const ik::v1::Vec3& v);

// ikctl dynamics (ikctl_dynamics.cc).
int DynamicsCommand(ik::Client& client, const std::vector<std::string>& args);

}  // namespace ik::ctl

#endif  // IK_CLIENT_IKCTL_UTIL_H_
