// ikd_loadgen's fairness modes: a victim's single calls alone and while
// another connection floods the server (--rpc=fairness), and the flood
// itself, run as a process of its own (--rpc=flood).
#ifndef IK_BENCH_LOADGEN_FAIRNESS_H_
#define IK_BENCH_LOADGEN_FAIRNESS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "ik/client.h"

namespace ik::loadgen {

struct FairnessOptions {
  // How long the victim calls, alone and then under the flood.
  double seconds = 5.0;
  // Callers on the flood's one connection, each keeping a call in flight.
  int flood_streams = 8;
  // A SolveChain flood: FABRIK goals on the tail per call.
  int flood_goals = 64;
  // A tick flood instead (> 0): each caller sends the synthetic crowd's
  // ticks of this many characters of `rig` on `terrain` on a TickStream.
  int flood_characters = 0;
  std::uint64_t seed = 1;
  // The victim's goal: one on `chain` of `rig`, at a point of the box of
  // `half_size` around `center`.
  std::string rig = "humanoid";
  std::string chain = "left_arm";
  std::string terrain = "stairs";
  std::vector<double> center = {0.35, 1.2, 0.15};
  double half_size = 0.15;
};

// --rpc=flood: the flood for `fairness.seconds`; prints "flood calls: N".
int RunFlood(const ClientOptions& options, const FairnessOptions& fairness);

// --rpc=fairness: the victim alone, then under the flood (this program
// again with --rpc=flood, in a process of its own), with health checks on
// a third connection; prints the victim's p50 and p99 both ways and their
// p99 ratio.
int RunFairness(const ClientOptions& options, const FairnessOptions& fairness);

}  // namespace ik::loadgen

#endif  // IK_BENCH_LOADGEN_FAIRNESS_H_
