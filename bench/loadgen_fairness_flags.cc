// ikd_loadgen's flags of the fairness and flood modes (--rpc=fairness,
// --rpc=flood), and the options they give. The flags these modes share with
// the others (--seed, --rig, --chain, --terrain, the target box) are
// ikd_loadgen.cc's.
#include <cstdint>
#include <iterator>
#include <optional>
#include <string>

#include "absl/flags/declare.h"
#include "absl/flags/flag.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "loadgen_fairness.h"
#include "loadgen_flood.h"

ABSL_DECLARE_FLAG(std::uint64_t, seed);
ABSL_DECLARE_FLAG(std::string, rig);
ABSL_DECLARE_FLAG(std::string, chain);
ABSL_DECLARE_FLAG(std::string, terrain);
ABSL_DECLARE_FLAG(double, center_x);
ABSL_DECLARE_FLAG(double, center_y);
ABSL_DECLARE_FLAG(double, center_z);
ABSL_DECLARE_FLAG(double, half_size);

ABSL_FLAG(double, seconds, 5.0,
          "fairness: seconds the victim calls alone, then under each flood "
          "(flood: seconds it floods; unread: seconds the streams stay open)");
ABSL_FLAG(std::string, flood, "",
          "fairness, flood: the flood's kind: solve_fabrik, solve_ccd, "
          "solve_torque (SolveChain of --flood_goals tail goals with that "
          "solver), tick_full (unary Ticks of the --flood_characters crowd, "
          "packed poses, TICK_DETAIL_FULL), tick_compact (compact poses, "
          "TICK_DETAIL_POSE), stream (the compact, pose-only crowd on "
          "TickStreams), mesh (RegisterTerrain of a 3.7 MB mesh under a new "
          "name, then DeleteTerrain; needs an admin --flood_token), or, for "
          "fairness, all (each in turn, one table row each); empty: stream "
          "when --flood_characters is given, else solve_fabrik");
ABSL_FLAG(std::string, victim, "",
          "fairness: the victim's goal: tiny (the chain's solver; two-bone on "
          "left_arm, which ikd runs inline), pooled (SOLVER_FABRIK, which "
          "takes its caller's turn on ikd's solver pool) or both (each timed "
          "alone and under every flood, a table row each); empty: both with "
          "--flood=all, else tiny");
ABSL_FLAG(int, flood_streams, 8,
          "fairness: the flooding client's concurrent callers (one "
          "connection)");
ABSL_FLAG(std::optional<int>, flood_characters, std::nullopt,
          "fairness: characters of --rig per tick of the tick_full, "
          "tick_compact and stream floods (the synthetic crowd on "
          "--terrain; >= 1); unset: 1000. Without --flood, setting it selects "
          "stream");
ABSL_FLAG(int, flood_goals, 64,
          "fairness: goals per SolveChain of the solve_* floods (on the "
          "example rig tail)");
ABSL_FLAG(std::string, victim_token, "",
          "fairness: bearer token of the victim and the health checks (ikd "
          "--token_file; a read token will do); empty: none. Never printed");
ABSL_FLAG(std::string, flood_token, "",
          "fairness, flood: bearer token of the flood, given to the flood's "
          "process on its command line (admin for --flood=mesh); another "
          "token than --victim_token makes the two separate callers of "
          "ikd's solver pool; empty: none. Never printed");

namespace ik::loadgen {

absl::StatusOr<FairnessOptions> FairnessOptionsFromFlags(bool one_flood) {
  FairnessOptions fairness;
  fairness.seconds = absl::GetFlag(FLAGS_seconds);
  fairness.victim_token = absl::GetFlag(FLAGS_victim_token);
  fairness.flood_token = absl::GetFlag(FLAGS_flood_token);
  fairness.seed = absl::GetFlag(FLAGS_seed);
  fairness.rig = absl::GetFlag(FLAGS_rig);
  fairness.chain = absl::GetFlag(FLAGS_chain);
  fairness.center = {absl::GetFlag(FLAGS_center_x),
                     absl::GetFlag(FLAGS_center_y),
                     absl::GetFlag(FLAGS_center_z)};
  fairness.half_size = absl::GetFlag(FLAGS_half_size);

  FloodOptions& flood = fairness.flood;
  flood.seconds = fairness.seconds;
  flood.streams = absl::GetFlag(FLAGS_flood_streams);
  flood.goals = absl::GetFlag(FLAGS_flood_goals);
  const std::optional<int> characters = absl::GetFlag(FLAGS_flood_characters);
  flood.characters = characters.value_or(flood.characters);
  flood.rig = fairness.rig;
  flood.terrain = absl::GetFlag(FLAGS_terrain);
  flood.seed = fairness.seed;

  std::string kind = absl::GetFlag(FLAGS_flood);
  if (flood.streams < 1 || flood.goals < 1 || flood.characters < 1) {
    return absl::InvalidArgumentError(
        "--flood_streams, --flood_goals and --flood_characters must be >= 1");
  }
  if (kind.empty()) kind = characters ? "stream" : "solve_fabrik";
  if (kind == "all" && one_flood) {
    return absl::InvalidArgumentError(
        "--rpc=flood runs one --flood kind, not all");
  }
  if (kind == "all") {
    fairness.floods.assign(std::begin(kFloodKinds), std::end(kFloodKinds));
  } else if (std::optional<FloodKind> one = ParseFloodKind(kind)) {
    fairness.floods = {*one};
  } else {
    return absl::InvalidArgumentError(absl::StrCat(
        "--flood must be solve_fabrik, solve_ccd, solve_torque, tick_full, "
        "tick_compact, stream, mesh or all, not '",
        kind, "'"));
  }
  flood.kind = fairness.floods.front();

  std::string victim = absl::GetFlag(FLAGS_victim);
  if (victim.empty()) victim = kind == "all" ? "both" : "tiny";
  if (victim == "tiny") {
    fairness.victims = {VictimKind::kTiny};
  } else if (victim == "pooled") {
    fairness.victims = {VictimKind::kPooled};
  } else if (victim == "both") {
    fairness.victims = {VictimKind::kTiny, VictimKind::kPooled};
  } else {
    return absl::InvalidArgumentError(absl::StrCat(
        "--victim must be tiny, pooled or both, not '", victim, "'"));
  }
  return fairness;
}

}  // namespace ik::loadgen
