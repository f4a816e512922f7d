// ikd_loadgen --rpc=unread: the memory ikd holds for callers that never read
// their answers. ikd bounds the bytes of answers written and not yet read,
// per caller and in all (server/rpc/unread_answers.h), and refuses a
// caller's next calls with RESOURCE_EXHAUSTED once it holds its bound; this
// mode measures what that leaves ikd holding.
//
//   UnreadOptions unread;
//   unread.tokens = {...};  // one read token per caller
//   unread.ikd_pid = pid;   // ikd on this machine
//   int exit_status = RunUnread(client_options, unread);
//
// Each caller has a connection of its own whose stream flow-control window
// stays at HTTP/2's 64 KiB (no BDP probing), and its own bearer token, so
// ikd counts it as a caller of its own. It opens `streams` TickStreams,
// writes one tick on each -- the synthetic crowd's (client/crowd/crowd.h)
// first tick of `characters` characters with every job's answer and its
// rotations, an answer far larger than the window -- and never reads them.
// Meanwhile it sends the same tick as unary Tick calls, one after another,
// for `seconds` (these answers it does read, as raw bytes), counting them
// by status code. ikd's resident memory (VmRSS) is read before any call,
// after one tick was answered and read, and every 50 ms while the streams
// are open (and its CPU time meanwhile, a hint of how many ticks it ran
// rather than refused); then everything is cancelled.
#ifndef IK_BENCH_LOADGEN_UNREAD_H_
#define IK_BENCH_LOADGEN_UNREAD_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "ik/client.h"

namespace ik::loadgen {

struct UnreadOptions {
  // Callers, each on its own connection with its own token.
  int callers = 16;
  // Bearer tokens, the i-th caller's first (at least `callers` of them, e.g.
  // ikd --token_file's read tokens); empty: none, and then ikd tells the
  // callers apart by address only, which on loopback makes them one. Never
  // printed.
  std::vector<std::string> tokens;
  // TickStreams each caller opens, one tick written on each, none read.
  int streams = 4;
  // The tick: `characters` characters of the registered `rig` walking on
  // the registered `terrain`, packed poses, TICK_DETAIL_FULL with job
  // rotations. Its answer must fit ikd's --max_answer_bytes, its request
  // ikd's --max_message_bytes.
  int characters = 1000;
  std::string rig = "humanoid";
  std::string terrain = "stairs";
  std::uint64_t seed = 1;
  // How long the streams stay open and each caller sends unary Ticks.
  double seconds = 5.0;
  // The target ikd's process id (on this machine), whose VmRSS is read.
  int ikd_pid = 0;
};

// The unread mode's options from ikd_loadgen's flags
// (bench/loadgen_unread_flags.cc); INVALID_ARGUMENT naming the flag that is
// out of range or missing, or the tokens file that cannot be read or holds
// fewer tokens than --unread_callers.
absl::StatusOr<UnreadOptions> UnreadOptionsFromFlags();

// Runs the mode against `options.target` (its token unused: the callers'
// are `unread.tokens`) and prints the tick's sizes, ikd's resident memory
// idle, after one tick, at its peak and after the cancel, its CPU time while
// the streams were open, and the unary Ticks by status code (those cut at
// the end are DEADLINE_EXCEEDED). Returns 0 once it ran (whatever the codes), 1
// when it could not be set up: the target not serving, the rig missing, the
// probing tick failing (e.g. its answer over ikd's --max_answer_bytes) or
// ikd's memory unreadable.
int RunUnread(const ClientOptions& options, const UnreadOptions& unread);

// RunUnread with UnreadOptionsFromFlags(); 2, after saying why on stderr,
// when they are not valid.
int RunUnreadWithFlags(const ClientOptions& options);

}  // namespace ik::loadgen

#endif  // IK_BENCH_LOADGEN_UNREAD_H_
