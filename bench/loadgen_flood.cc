#include "loadgen_flood.h"

#include <grpc/grpc.h>
#include <unistd.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "crowd.h"
#include "loadgen_raw_call.h"
#include "loadgen_util.h"

namespace ik::loadgen {
namespace {

using Clock = std::chrono::steady_clock;

// The mesh kind's grid: kMeshGridSide x kMeshGridSide vertices, two
// triangles per cell. A request holds 24 bytes per vertex (packed doubles)
// and 3 varint indices per triangle of mostly 3 bytes each: 301 vertices a
// side give 180,000 triangles in about 3.7 MB, under the 4 MiB that ikd's
// --max_message_bytes accepts by default.
constexpr int kMeshGridSide = 301;
constexpr int kMeshTriangles = 2 * (kMeshGridSide - 1) * (kMeshGridSide - 1);

// What one caller counts.
struct Tally {
  void Count(const absl::Status& status) {
    ++calls;
    if (!status.ok() && failed++ == 0) first_error = status.ToString();
  }
  void Add(const Tally& other) {
    calls += other.calls;
    failed += other.failed;
    if (first_error.empty()) first_error = other.first_error;
  }
  int calls = 0;
  int failed = 0;
  std::string first_error;
};

v1::Solver SolverOf(FloodKind kind) {
  switch (kind) {
    case FloodKind::kSolveCcd:
      return v1::SOLVER_CCD;
    case FloodKind::kSolveTorque:
      return v1::SOLVER_TORQUE;
    default:
      return v1::SOLVER_FABRIK;
  }
}

// `flood.goals` goals on the example tail, at seeded points of a 3 cm box
// the tail reaches (world space, m), all with the kind's solver.
v1::SolveChainRequest TailSolve(const FloodOptions& flood) {
  v1::SolveChainRequest request;
  request.set_rig("tail");
  BoxPoints targets(flood.seed + 1, {0.2, 0.6, -0.9}, 0.015);
  for (int g = 0; g < flood.goals; ++g) {
    v1::ChainGoal* goal = request.add_goals();
    goal->set_chain("tail");
    goal->set_solver(SolverOf(flood.kind));
    targets.Next(goal->mutable_target());
  }
  return request;
}

// The crowd of a tick kind's caller (its own seed, so callers differ).
CrowdOptions CrowdOf(const FloodOptions& flood, int caller) {
  CrowdOptions crowd;
  crowd.characters = flood.characters;
  crowd.terrain = flood.terrain;
  crowd.seed = flood.seed + caller;
  if (flood.kind == FloodKind::kTickFull) {
    crowd.pose_form = CrowdPoseForm::kPacked;
    crowd.detail = v1::TICK_DETAIL_FULL;
  } else {
    crowd.pose_form = CrowdPoseForm::kCompact;
    crowd.detail = v1::TICK_DETAIL_POSE;
  }
  return crowd;
}

// A grid mesh of kMeshGridSide^2 vertices 0.25 m apart in x and z, seeded
// heights within +-0.1 m (no triangle is degenerate: each spans a grid
// cell's half in x and z). Unnamed.
v1::RegisterTerrainRequest GridMesh(std::uint64_t seed) {
  v1::RegisterTerrainRequest request;
  v1::TriangleMesh* mesh = request.mutable_terrain()->mutable_mesh();
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> height(-0.1, 0.1);
  constexpr double kSpacing = 0.25;
  mesh->mutable_vertices()->Reserve(3 * kMeshGridSide * kMeshGridSide);
  for (int row = 0; row < kMeshGridSide; ++row) {
    for (int column = 0; column < kMeshGridSide; ++column) {
      mesh->add_vertices(column * kSpacing);
      mesh->add_vertices(height(rng));
      mesh->add_vertices(row * kSpacing);
    }
  }
  mesh->mutable_indices()->Reserve(3 * kMeshTriangles);
  for (int row = 0; row + 1 < kMeshGridSide; ++row) {
    for (int column = 0; column + 1 < kMeshGridSide; ++column) {
      const std::uint32_t near_left = row * kMeshGridSide + column;
      const std::uint32_t far_left = near_left + kMeshGridSide;
      for (std::uint32_t index : {near_left, near_left + 1, far_left,
                                  near_left + 1, far_left + 1, far_left}) {
        mesh->add_indices(index);
      }
    }
  }
  return request;
}

// Unary `method` with `requests` in turn until `end`; with `ticks`, an
// answer without characters counts as failed (TickStatus).
void FloodUnary(RawCaller& caller, const std::string& method,
                const std::vector<grpc::ByteBuffer>& requests, bool ticks,
                Clock::time_point end, Tally& tally) {
  grpc::ByteBuffer answer;
  for (std::size_t n = 0; Clock::now() < end; ++n) {
    absl::Status status =
        FromGrpc(caller.Call(method, requests[n % requests.size()], &answer));
    if (status.ok() && ticks) status = TickStatus(answer);
    tally.Count(status);
  }
}

// Registers `mesh` (an unnamed RegisterTerrainRequest's bytes) under a name
// of this process and caller, call by call, deleting each after it; a call
// counts as failed when either step does. The name travels as a request of
// its own in front of the mesh's bytes: a parser merges a singular message
// field met twice (the protobuf encoding guide, "Last One Wins"), so the
// two read as one terrain, and the mesh's bytes are never copied.
void FloodMeshes(RawCaller& caller, Client& client, const grpc::Slice& mesh,
                 int caller_index, Clock::time_point end, Tally& tally) {
  const std::string method = "/ik.v1.IkService/RegisterTerrain";
  grpc::ByteBuffer answer;
  for (int n = 0; Clock::now() < end; ++n) {
    v1::RegisterTerrainRequest named;
    named.mutable_terrain()->set_name(
        absl::StrCat("loadgen_flood_", getpid(), "_", caller_index, "_", n));
    const grpc::Slice parts[] = {grpc::Slice(named.SerializeAsString()), mesh};
    const grpc::ByteBuffer request(parts, 2);
    absl::Status status = FromGrpc(caller.Call(method, request, &answer));
    if (status.ok()) {
      status = client.DeleteTerrain(named.terrain().name()).status();
    }
    tally.Count(status);
  }
}

// What a flood sends, serialized before it starts: each caller's requests,
// to cycle through, and for the mesh kind the unnamed mesh.
struct FloodRequests {
  std::vector<std::vector<grpc::ByteBuffer>> callers;
  grpc::Slice mesh;
  // The first request's size (the mesh's with its name left out).
  std::size_t first_bytes = 0;
};

absl::StatusOr<FloodRequests> SerializeRequests(Client& client,
                                                const FloodOptions& flood) {
  FloodRequests requests;
  requests.callers.resize(flood.streams);
  if (flood.kind == FloodKind::kMesh) {
    requests.mesh = grpc::Slice(GridMesh(flood.seed).SerializeAsString());
    requests.first_bytes = requests.mesh.size();
    return requests;
  }
  if (flood.kind == FloodKind::kTickFull ||
      flood.kind == FloodKind::kTickCompact ||
      flood.kind == FloodKind::kStream) {
    absl::StatusOr<v1::GetRigResponse> got = client.GetRig(flood.rig);
    if (!got.ok()) return got.status();
    for (int caller = 0; caller < flood.streams; ++caller) {
      SyntheticCrowd walkers(got->rig(), CrowdOf(flood, caller));
      for (int tick = 0; tick < kFloodTicks; ++tick) {
        requests.callers[caller].push_back(Serialized(walkers.NextTick()));
      }
    }
  } else {
    const grpc::ByteBuffer solve = Serialized(TailSolve(flood));
    for (auto& caller : requests.callers) caller = {solve};
  }
  requests.first_bytes = requests.callers[0].front().Length();
  return requests;
}

// One caller's part of the flood until `end`.
void RunCaller(Client& client, absl::Duration deadline,
               const FloodOptions& flood, const FloodRequests& requests,
               int caller_index, Clock::time_point end, Tally& tally) {
  RawCaller caller(client, deadline);
  const std::vector<grpc::ByteBuffer>& mine = requests.callers[caller_index];
  switch (flood.kind) {
    case FloodKind::kSolveFabrik:
    case FloodKind::kSolveCcd:
    case FloodKind::kSolveTorque:
      return FloodUnary(caller, "/ik.v1.IkService/SolveChain", mine,
                        /*ticks=*/false, end, tally);
    case FloodKind::kTickFull:
    case FloodKind::kTickCompact:
      return FloodUnary(caller, "/ik.v1.IkService/Tick", mine,
                        /*ticks=*/true, end, tally);
    case FloodKind::kStream:
      return caller.Stream(
          "/ik.v1.IkService/TickStream", mine, end,
          [&tally](const absl::Status& status) { tally.Count(status); });
    case FloodKind::kMesh:
      return FloodMeshes(caller, client, requests.mesh, caller_index, end,
                         tally);
  }
}

}  // namespace

absl::string_view FloodKindName(FloodKind kind) {
  // In FloodKind's order.
  constexpr absl::string_view kNames[] = {
      "solve_fabrik", "solve_ccd", "solve_torque", "tick_full",
      "tick_compact", "stream",    "mesh"};
  return kNames[static_cast<int>(kind)];
}

std::optional<FloodKind> ParseFloodKind(absl::string_view name) {
  for (FloodKind kind : kFloodKinds) {
    if (FloodKindName(kind) == name) return kind;
  }
  return std::nullopt;
}

Client OwnConnection(const ClientOptions& base) {
  ClientOptions options = base;
  options.channel_arguments.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
  return Client(options);
}

std::string DescribeFlood(const FloodOptions& flood) {
  switch (flood.kind) {
    case FloodKind::kSolveFabrik:
    case FloodKind::kSolveCcd:
    case FloodKind::kSolveTorque:
      return absl::StrFormat("SolveChain, %d %s tail goals", flood.goals,
                             v1::Solver_Name(SolverOf(flood.kind)));
    case FloodKind::kTickFull:
    case FloodKind::kTickCompact:
    case FloodKind::kStream: {
      const bool full = flood.kind == FloodKind::kTickFull;
      return absl::StrFormat(
          "%s, %d characters, %s poses, %s",
          flood.kind == FloodKind::kStream ? "TickStream" : "Tick",
          flood.characters, full ? "packed" : "compact",
          full ? "TICK_DETAIL_FULL" : "TICK_DETAIL_POSE");
    }
    case FloodKind::kMesh:
      return absl::StrFormat(
          "RegisterTerrain of a %d-triangle grid mesh, then DeleteTerrain",
          kMeshTriangles);
  }
  return "";
}

int RunFlood(const ClientOptions& options, const FloodOptions& flood) {
  Client client = OwnConnection(options);
  absl::StatusOr<FloodRequests> requests = SerializeRequests(client, flood);
  if (requests.ok() && !client.channel()->WaitForConnected(absl::ToChronoTime(
                           absl::Now() + options.deadline))) {
    requests = absl::UnavailableError(
        absl::StrCat("cannot connect to ", options.target));
  }
  if (!requests.ok()) {
    absl::FPrintF(stderr, "ikd_loadgen: flood %s: %s\n",
                  FloodKindName(flood.kind), requests.status().ToString());
    return 1;
  }
  absl::PrintF("%s\n", kFloodReadyLine);
  std::fflush(stdout);

  const double cpu_seconds_before = ProcessCpuSeconds(getpid());
  const Clock::time_point end =
      Clock::now() + std::chrono::duration_cast<Clock::duration>(
                         std::chrono::duration<double>(flood.seconds));
  std::vector<Tally> tallies(flood.streams);
  std::vector<std::thread> callers;
  for (int caller = 0; caller < flood.streams; ++caller) {
    callers.emplace_back([&, caller] {
      RunCaller(client, options.deadline, flood, *requests, caller, end,
                tallies[caller]);
    });
  }
  Tally total;
  for (int caller = 0; caller < flood.streams; ++caller) {
    callers[caller].join();
    total.Add(tallies[caller]);
  }
  absl::PrintF(
      "flood calls: %d failed: %d request bytes: %d cpu seconds: %.3f\n",
      total.calls, total.failed, requests->first_bytes,
      ProcessCpuSeconds(getpid()) - cpu_seconds_before);
  if (total.failed == 0) return 0;
  absl::FPrintF(stderr, "ikd_loadgen: flood %s: %d of %d calls failed; %s\n",
                FloodKindName(flood.kind), total.failed, total.calls,
                total.first_error);
  return 1;
}

}  // namespace ik::loadgen
