// ikd_loadgen --rpc=tick: a synthetic crowd (client/crowd/crowd.h) ticked
// against a running ikd, unary or on one TickStream, then the same crowd's next
// ticks as single calls for comparison; prints ticks/s, tick latency, ikd's CPU
// per character (from /proc) and the bytes per character each way.
#ifndef IK_BENCH_LOADGEN_TICK_H_
#define IK_BENCH_LOADGEN_TICK_H_

#include <string>

#include "crowd.h"
#include "ik/client.h"

namespace ik::loadgen {

struct TickLoadOptions {
  // The registered rig of the crowd.
  std::string rig = "humanoid";
  CrowdOptions crowd;
  int ticks = 100;
  // Ticks sent again as single calls afterwards (0: none).
  int single_ticks = 3;
  // On one TickStream instead of unary Tick calls.
  bool stream = false;
  // ikd's process id, for its CPU time (0: not measured).
  int ikd_pid = 0;
};

// Returns the process exit status: 0 when every job of every tick was
// answered OK.
int RunTickLoad(Client& client, const TickLoadOptions& options);

}  // namespace ik::loadgen

#endif  // IK_BENCH_LOADGEN_TICK_H_
