#include "ikctl_util.h"

#include "absl/flags/usage.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"

ABSL_FLAG(bool, json, false, "print answers as JSON (protobuf JSON mapping)");

namespace ik::ctl {

int Usage(const std::string& problem) {
  absl::FPrintF(stderr, "ikctl: %s\n%s\n", problem,
                absl::ProgramUsageMessage());
  return kUsage;
}

int Failed(const absl::Status& status) {
  absl::FPrintF(stderr, "ikctl: %s: %s\n",
                absl::StatusCodeToString(status.code()), status.message());
  return kFailed;
}

// Parses exactly values.size() comma-separated numbers.
bool ParseNumbers(const std::string& text, absl::Span<double> values) {
  std::vector<std::string> parts = absl::StrSplit(text, ',');
  if (parts.size() != values.size()) return false;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (!absl::SimpleAtod(parts[i], &values[i])) return false;
  }
  return true;
}

// Parses "X,Y,Z" into `out`; false on anything else.
bool ParseVec3(const std::string& text, ik::v1::Vec3* out) {
  double v[3];
  if (!ParseNumbers(text, absl::MakeSpan(v))) return false;
  out->set_x(v[0]);
  out->set_y(v[1]);
  out->set_z(v[2]);
  return true;
}

// Parses "X,Y,Z,W" into `out`; false on anything else.
bool ParseQuat(const std::string& text, ik::v1::Quat* out) {
  double q[4];
  if (!ParseNumbers(text, absl::MakeSpan(q))) return false;
  out->set_x(q[0]);
  out->set_y(q[1]);
  out->set_z(q[2]);
  out->set_w(q[3]);
  return true;
}

std::string FormatVec3(const ik::v1::Vec3& v) {
  // + 0.0 prints -0 as 0.
  return absl::StrFormat("(%.6f, %.6f, %.6f)", v.x() + 0.0, v.y() + 0.0,
                         v.z() + 0.0);
}

}  // namespace ik::ctl
