#include "ops/access_log.h"

#include <cerrno>
#include <cstring>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/time.h"

namespace ik::server {
namespace {

// `text` as a JSON string's contents: quotes, backslashes and control
// characters escaped (a peer is an address, but it comes from outside).
std::string JsonEscaped(absl::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (byte < 0x20) {
      absl::StrAppendFormat(&out, "\\u%04x", byte);
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace

absl::StatusOr<std::unique_ptr<AccessLog>> AccessLog::Open(
    const std::string& path) {
  if (path == "-")
    return std::unique_ptr<AccessLog>(new AccessLog(stderr, false));
  std::FILE* file = std::fopen(path.c_str(), "a");
  if (file == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--access_log ", path, ": cannot be opened: ", std::strerror(errno)));
  }
  return std::unique_ptr<AccessLog>(new AccessLog(file, true));
}

AccessLog::~AccessLog() {
  if (owned_) std::fclose(file_);
}

std::string AccessLog::Line(const CallRecord& record, absl::StatusCode code,
                            absl::Time end) {
  return absl::StrFormat(
      "{\"time\":\"%s\",\"method\":\"%s\",\"code\":\"%s\","
      "\"duration_ms\":%.3f,\"peer\":\"%s\",\"request_bytes\":%d}",
      absl::FormatTime("%Y-%m-%dT%H:%M:%E6SZ", record.start,
                       absl::UTCTimeZone()),
      JsonEscaped(record.method), absl::StatusCodeToString(code),
      absl::ToDoubleMilliseconds(end - record.start), JsonEscaped(record.peer),
      record.request_bytes);
}

void AccessLog::CallEnded(const CallRecord& record, absl::StatusCode code,
                          absl::Time end) {
  std::string line = Line(record, code, end);
  line += '\n';
  absl::MutexLock lock(&mutex_);
  std::fwrite(line.data(), 1, line.size(), file_);
  std::fflush(file_);
}

}  // namespace ik::server
