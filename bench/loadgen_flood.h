// ikd_loadgen --rpc=flood: one kind of heavy traffic from one client (its
// own connection and bearer token) for a fixed time, the load that
// --rpc=fairness runs in a process of its own while it times a victim.
//
//   FloodOptions flood;
//   flood.kind = FloodKind::kMesh;  // needs an admin token
//   int exit_status = RunFlood(client_options, flood);
//
// Every kind keeps `streams` calls in flight, each caller sending its next
// call as soon as the last is answered. The flood is meant to load ikd, not
// the machine it shares with ikd: each caller's requests are serialized
// once before it starts and cycled through, and they travel as raw bytes
// (grpc::GenericStub) whose answers are not parsed: a tick's answer is read
// only as far as its first field, to tell a tick that failed as a whole,
// whose few bytes are then parsed for its status.
#ifndef IK_BENCH_LOADGEN_FLOOD_H_
#define IK_BENCH_LOADGEN_FLOOD_H_

#include <cstdint>
#include <optional>
#include <string>

#include "absl/strings/string_view.h"
#include "ik/client.h"

namespace ik::loadgen {

enum class FloodKind {
  // SolveChain: `goals` seeded goals on the example rig "tail" (chain
  // "tail", 13 joints), each with the named solver. Under 4 KiB a request.
  kSolveFabrik,
  kSolveCcd,
  kSolveTorque,
  // Unary Tick calls of the synthetic crowd (client/crowd/crowd.h) of
  // `characters` characters, its first kFloodTicks ticks in turn (none
  // carries dynamics states: ikd steps each chain from rest): packed double
  // poses (Pose.rotations) with every job's answer
  // (TICK_DETAIL_FULL) ...
  kTickFull,
  // ... or compact float32 poses (CompactPose) with the final poses only
  // (TICK_DETAIL_POSE).
  kTickCompact,
  // The compact, pose-only crowd on a TickStream per caller.
  kStream,
  // RegisterTerrain of a seeded grid mesh of 180,000 triangles
  // (about 3.7 MB a request, under ikd's default 4 MiB --max_message_bytes)
  // under a name of its own each call, then DeleteTerrain of it. Needs an
  // admin token when ikd runs with --token_file.
  kMesh,
};

// Every kind, in the order --flood=all runs them.
inline constexpr FloodKind kFloodKinds[] = {
    FloodKind::kSolveFabrik, FloodKind::kSolveCcd,    FloodKind::kSolveTorque,
    FloodKind::kTickFull,    FloodKind::kTickCompact, FloodKind::kStream,
    FloodKind::kMesh,
};

// The ticks of its crowd that each caller of a tick kind sends in turn.
inline constexpr int kFloodTicks = 4;

// The line RunFlood prints once its requests are built and its connection
// is up, before it floods.
inline constexpr char kFloodReadyLine[] = "flood ready";

// The kind's name on the command line ("solve_fabrik", ..., "mesh").
absl::string_view FloodKindName(FloodKind kind);
// The kind named `name`; nullopt for another name.
std::optional<FloodKind> ParseFloodKind(absl::string_view name);

struct FloodOptions {
  FloodKind kind = FloodKind::kSolveFabrik;
  // How long the callers keep sending; a call in flight at the end is
  // finished.
  double seconds = 5.0;
  // Callers on the flood's one connection, each keeping a call in flight.
  int streams = 8;
  // The solve kinds: goals per SolveChain.
  int goals = 64;
  // The tick kinds: characters of `rig` per tick, walking on `terrain`.
  int characters = 1000;
  std::string rig = "humanoid";
  std::string terrain = "stairs";
  // Seeds the solve kinds' targets, the crowd and the mesh's heights.
  std::uint64_t seed = 1;
};

// A client of `options` on a connection of its own (channels to one target
// share a connection unless told not to). Which caller ikd's solver pool
// takes it for is still its token, or without tokens its address.
Client OwnConnection(const ClientOptions& options);

// What a flood of `flood` sends, for a report: "SolveChain, 64 FABRIK tail
// goals", "Tick, 1000 characters, packed poses, TICK_DETAIL_FULL", ...
std::string DescribeFlood(const FloodOptions& flood);

// Builds the flood's requests, connects to `options.target` and prints
// kFloodReadyLine; then floods it with `options.token` (each call's
// deadline `options.deadline`) for `flood.seconds` and prints one line,
// "flood calls: C failed: F request bytes: B cpu seconds: S" (calls
// answered, those failed, the first request's serialized size, this
// process's CPU time, user + system, while it flooded), and the first
// failure's status to stderr. Returns 0 when no call failed, 1 when one did or
// the flood could not be set up (then nothing on stdout).
int RunFlood(const ClientOptions& options, const FloodOptions& flood);

}  // namespace ik::loadgen

#endif  // IK_BENCH_LOADGEN_FLOOD_H_
