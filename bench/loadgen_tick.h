// ikd_loadgen --rpc=tick: a synthetic crowd (client/crowd/crowd.h) ticked
// against an ikd, unary or on one TickStream, then the same crowd's next
// ticks as single calls for comparison; prints ticks/s, tick latency, ikd's
// CPU per character (from /proc) and the bytes per character each way.
//
// The ikd is the client's target, or, with solver thread counts given, an
// ikd started in this process for each count (bench/example_ikd.h) and
// loaded the same way over a loopback channel: then the latencies of every
// count and their ratios to one thread. Last, the core reference: the last
// tick's request converted as ikd converts it and run through
// ik::TickBatchJob in this process, timed with Google Benchmark
// (bench/crowd_core.h): the core's CPU per character, and ikd's CPU per
// character over it.
#ifndef IK_BENCH_LOADGEN_TICK_H_
#define IK_BENCH_LOADGEN_TICK_H_

#include <string>
#include <vector>

#include "crowd.h"
#include "crowd_core.h"
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
  // The target ikd's process id, for its CPU time (0: not measured).
  int ikd_pid = 0;
  // Solver thread counts (each >= 1): one ikd in this process per count,
  // serving examples_dir, loaded in turn. Empty: the client's target.
  std::vector<int> solver_threads;
  // The examples' directory (rigs/, terrains/): what the ikd in this
  // process serves and what the core reference reads.
  std::string examples_dir;
  // Time the last tick through the core in this process too.
  bool core_reference = true;
  server::CoreTimingOptions core_timing;
};

// Runs the load of `options` against `client_options.target` or, with
// solver thread counts, against ikds in this process (the target unused).
// Returns the process exit status: 0 when every job of every tick was
// answered OK, 1 when one was not or a step failed, 2 when the core
// reference cannot be set up (before any load).
int RunTick(const ClientOptions& client_options,
            const TickLoadOptions& options);

}  // namespace ik::loadgen

#endif  // IK_BENCH_LOADGEN_TICK_H_
