// ikd_loadgen --rpc=fairness: how much a flood from one tenant slows another
// tenant's single calls. A victim sends one-goal SolveChains back to back on
// a connection of its own, first alone, then under each flood of
// bench/loadgen_flood.h in turn (this program again, --rpc=flood, in a
// process of its own), with gRPC health checks on a third connection.
//
// ikd answers a single call whose counted work is tiny (at most
// kInlineWork, server/handlers/work.h) on the gRPC thread it arrived on;
// any other call waits for its caller's turn on the solver pool. The two
// victim kinds (VictimKind) meet one path each.
//
// ikd's solver pool takes turns per caller: the bearer token when ikd runs
// with --token_file, else the peer address without its port. So on
// loopback the victim and the flood are two tenants only when they carry
// different tokens (victim_token, flood_token); without tokens they are one
// caller and the run measures the pool's plain queue.
//
// Prints one markdown table row per flood and victim kind: the victim's p50
// and p99 alone (measured once per kind, before the first flood) and under
// the flood, their ratios, the health checks' p99 and max, the flood's
// calls, CPU and request size, and the failures.
#ifndef IK_BENCH_LOADGEN_FAIRNESS_H_
#define IK_BENCH_LOADGEN_FAIRNESS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "ik/client.h"
#include "loadgen_flood.h"

namespace ik::loadgen {

enum class VictimKind {
  // The goal with its chain's own solver: on a three-joint limb (the
  // humanoid's left_arm) the analytic two-bone solver, tiny work that ikd
  // runs inline.
  kTiny,
  // The same goal with SOLVER_FABRIK: iterative, counted past the inline
  // bound, so it takes its caller's turn on the solver pool.
  kPooled,
};

// The kind's name on the command line and in the table ("tiny", "pooled").
absl::string_view VictimKindName(VictimKind kind);

struct FairnessOptions {
  // How long the victim calls alone, and then under each flood.
  double seconds = 5.0;
  // The floods, run one after another.
  std::vector<FloodKind> floods = {FloodKind::kSolveFabrik};
  // The victims, each timed alone and then under every flood in turn (a
  // flood process of its own per victim).
  std::vector<VictimKind> victims = {VictimKind::kTiny};
  // Every flood's settings; its kind and seconds are set per flood.
  FloodOptions flood;
  // Bearer tokens (empty: none sent): the victim's and the health checks',
  // and the flood's, which must be an admin token for FloodKind::kMesh.
  // Never printed; the flood's is on its process's command line.
  std::string victim_token;
  std::string flood_token;
  // The victim's goal: one on `chain` of `rig`, at a seeded point of the
  // box of `half_size` around `center` (world space, m).
  std::uint64_t seed = 1;
  std::string rig = "humanoid";
  std::string chain = "left_arm";
  std::vector<double> center = {0.35, 1.2, 0.15};
  double half_size = 0.15;
};

// The fairness and flood modes' options from ikd_loadgen's flags
// (bench/loadgen_fairness_flags.cc); INVALID_ARGUMENT naming the flag when
// --flood names no kind, or is all with `one_flood` (--rpc=flood), or
// --victim names none.
absl::StatusOr<FairnessOptions> FairnessOptionsFromFlags(bool one_flood);

// Runs the victim alone and under each flood against `options.target`
// (its token unused: the tokens are `fairness`'s) and prints the table.
// Returns 0 when no call failed, else 1.
int RunFairness(const ClientOptions& options, const FairnessOptions& fairness);

}  // namespace ik::loadgen

#endif  // IK_BENCH_LOADGEN_FAIRNESS_H_
