// ikd_loadgen's flags of the unread mode (--rpc=unread), and the options
// they give. The flags it shares with the others (--characters, --rig,
// --terrain, --seed, --ikd_pid, --seconds) are ikd_loadgen.cc's and
// loadgen_fairness_flags.cc's.
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>

#include "absl/flags/declare.h"
#include "absl/flags/flag.h"
#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "loadgen_unread.h"

ABSL_DECLARE_FLAG(std::uint64_t, seed);
ABSL_DECLARE_FLAG(std::string, rig);
ABSL_DECLARE_FLAG(std::string, terrain);
ABSL_DECLARE_FLAG(int, characters);
ABSL_DECLARE_FLAG(int, ikd_pid);
ABSL_DECLARE_FLAG(double, seconds);

ABSL_FLAG(int, unread_callers, 16,
          "unread: callers, each on a connection of its own with a token of "
          "its own from --unread_tokens_file");
ABSL_FLAG(int, unread_streams, 4,
          "unread: TickStreams each caller opens, writing one tick on each "
          "and reading none");
ABSL_FLAG(std::string, unread_tokens_file, "",
          "unread: bearer tokens, one a line, the first line's the first "
          "caller's (at least --unread_callers lines; ikd --token_file's read "
          "tokens will do); empty: no tokens, and ikd takes every caller on "
          "loopback for one. Never printed");

namespace ik::loadgen {

absl::StatusOr<UnreadOptions> UnreadOptionsFromFlags() {
  UnreadOptions unread;
  unread.callers = absl::GetFlag(FLAGS_unread_callers);
  unread.streams = absl::GetFlag(FLAGS_unread_streams);
  unread.characters = absl::GetFlag(FLAGS_characters);
  unread.rig = absl::GetFlag(FLAGS_rig);
  unread.terrain = absl::GetFlag(FLAGS_terrain);
  unread.seed = absl::GetFlag(FLAGS_seed);
  unread.seconds = absl::GetFlag(FLAGS_seconds);
  unread.ikd_pid = absl::GetFlag(FLAGS_ikd_pid);
  if (unread.callers < 1 || unread.streams < 1 || unread.characters < 1) {
    return absl::InvalidArgumentError(
        "--unread_callers, --unread_streams and --characters must be >= 1");
  }
  if (!(unread.seconds > 0.0)) {
    return absl::InvalidArgumentError("--seconds must be > 0");
  }
  if (unread.ikd_pid <= 0) {
    return absl::InvalidArgumentError(
        "--rpc=unread reads ikd's memory: give its --ikd_pid");
  }
  const std::string path = absl::GetFlag(FLAGS_unread_tokens_file);
  if (path.empty()) return unread;
  std::ifstream file(path);
  if (!file) {
    return absl::InvalidArgumentError(
        absl::StrCat("--unread_tokens_file=", path, " cannot be read"));
  }
  for (std::string line; std::getline(file, line);) {
    absl::StripAsciiWhitespace(&line);
    if (!line.empty()) unread.tokens.push_back(line);
  }
  if (static_cast<int>(unread.tokens.size()) < unread.callers) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--unread_tokens_file=", path, " holds ", unread.tokens.size(),
        " tokens, fewer than --unread_callers=", unread.callers));
  }
  return unread;
}

int RunUnreadWithFlags(const ClientOptions& options) {
  absl::StatusOr<UnreadOptions> unread = UnreadOptionsFromFlags();
  if (unread.ok()) return RunUnread(options, *unread);
  absl::FPrintF(stderr, "ikd_loadgen: %s\n", unread.status().message());
  return 2;
}

}  // namespace ik::loadgen
