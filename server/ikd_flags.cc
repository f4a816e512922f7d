// ikd's command-line flags, read into the server's options.
#include "ikd_flags.h"

#include <sched.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/strings/str_format.h"
#include "absl/time/time.h"

#ifndef IK_DEFAULT_RIG_DIR
#define IK_DEFAULT_RIG_DIR "examples/rigs"
#endif
#ifndef IK_DEFAULT_TERRAIN_DIR
#define IK_DEFAULT_TERRAIN_DIR "examples/terrains"
#endif

// Every limit's default is ServiceLimits' in-class default.
constexpr ik::server::ServiceLimits kDefaultLimits;

ABSL_FLAG(std::string, listen, ik::server::ServerOptions().listen,
          "host:port to serve on (port 0: any free port, printed at start)");
ABSL_FLAG(std::string, rig_dir, IK_DEFAULT_RIG_DIR,
          "directory whose *.json rigs (protobuf JSON of ik.v1.Rig) are "
          "registered at start; empty for none");
ABSL_FLAG(std::string, terrain_dir, IK_DEFAULT_TERRAIN_DIR,
          "directory whose *.json terrains (protobuf JSON of ik.v1.Terrain) "
          "are registered at start; empty for none");
ABSL_FLAG(std::string, state_dir, "",
          "directory keeping every rig and terrain registered, replaced or "
          "deleted over the API (written before a change is acknowledged, "
          "replayed at start after --rig_dir and --terrain_dir); empty: such "
          "changes last until ikd stops");
ABSL_FLAG(int, max_rigs, kDefaultLimits.max_rigs,
          "rigs the registry holds at most");
ABSL_FLAG(int, max_joints_per_rig, kDefaultLimits.max_joints_per_rig,
          "joints per rig at most");
ABSL_FLAG(int, max_chains_per_rig, kDefaultLimits.max_chains_per_rig,
          "chains per rig at most");
ABSL_FLAG(int, max_parts_per_rig, kDefaultLimits.max_parts_per_rig,
          "legs, colliders and dynamic chains per rig at most (each)");
ABSL_FLAG(int, max_goals_per_request, kDefaultLimits.max_goals_per_request,
          "goals per SolveChain at most");
ABSL_FLAG(int, max_terrains, kDefaultLimits.max_terrains,
          "terrains the registry holds at most");
ABSL_FLAG(int, max_mesh_triangles, kDefaultLimits.max_mesh_triangles,
          "triangles (and vertices) per registered mesh at most");
ABSL_FLAG(int, max_heightfield_samples, kDefaultLimits.max_heightfield_samples,
          "samples per registered heightfield at most");
ABSL_FLAG(int, max_inline_heightfield_samples,
          kDefaultLimits.max_inline_heightfield_samples,
          "samples per heightfield sent inline with GroundFeet at most");
ABSL_FLAG(int, max_ground_shapes, kDefaultLimits.max_ground_shapes,
          "planes, inline heightfields and terrains per GroundFeet at most");
ABSL_FLAG(int, max_message_bytes,
          ik::server::ServerOptions().max_receive_message_bytes,
          "largest request accepted, bytes (raise it to register large "
          "meshes: about 21 bytes per triangle)");
ABSL_FLAG(int64_t, max_registry_bytes,
          ik::server::ServerOptions().max_registry_bytes,
          "memory all registered rigs and terrains may hold together, bytes "
          "(a mesh holds about 82 bytes per triangle); a registration "
          "beyond it is answered RESOURCE_EXHAUSTED");
ABSL_FLAG(int64_t, transport_memory_bytes, 0,
          "bytes gRPC's transport may buffer for all connections together "
          "(requests arrive whole before any size check); beyond it idle "
          "connections are closed and streams refused with "
          "RESOURCE_EXHAUSTED (0: 64 x --max_message_bytes, at least 256 "
          "MiB)");
ABSL_FLAG(int, max_characters_per_tick, kDefaultLimits.max_characters_per_tick,
          "characters per Tick at most");
ABSL_FLAG(std::int64_t, max_work_per_character,
          kDefaultLimits.max_work_per_character,
          "work one character -- a single call's, or each of a tick's -- may "
          "ask, in units of a few nanoseconds of CPU, weighted by kind: "
          "goals (64 x chain joints x iteration cap, plus 256 x joints for "
          "the iterative solvers), grounding (legs x (3 "
          "x 64 + 2 rays x 8 x shapes and triangles a ray may test)), "
          "dynamics (joints x most substeps x (colliders + 1)); refused "
          "before any of it runs");
ABSL_FLAG(std::int64_t, max_work_per_call, kDefaultLimits.max_work_per_call,
          "work one call may ask over all its characters (a tick's summed), "
          "in the units of --max_work_per_character (at least that; the "
          "default is about a second of one core at worst); refused before "
          "any of it runs");
ABSL_FLAG(std::int64_t, max_answer_bytes, kDefaultLimits.max_answer_bytes,
          "bytes one Tick's answer may hold; a tick whose characters' "
          "answers pass it is refused whole with RESOURCE_EXHAUSTED "
          "(\"characters\"), no more of it built once they do");
ABSL_FLAG(std::int64_t, max_unread_answer_bytes_per_caller,
          kDefaultLimits.max_unread_answer_bytes_per_caller,
          "bytes of answers written and not yet read by their client that "
          "ikd holds for one caller (token, else address); while it holds "
          "that much, the caller's next calls are refused with "
          "RESOURCE_EXHAUSTED");
ABSL_FLAG(std::int64_t, max_unread_answer_bytes,
          kDefaultLimits.max_unread_answer_bytes,
          "bytes of answers not yet read that ikd holds for all callers "
          "together; beyond it every caller's next calls are refused with "
          "RESOURCE_EXHAUSTED");
ABSL_FLAG(int, max_connections, 0,
          "connections held open at once at most; more are closed as they "
          "arrive (0: the open-file limit less an eighth, at least 16, kept "
          "for files and gRPC's own)");
ABSL_FLAG(int, max_connections_per_peer, 0,
          "connections held open at once from one peer address (its port "
          "left out) at most; more are closed as they arrive (0: three "
          "quarters of --max_connections; behind a proxy, raise it to "
          "--max_connections: every connection is the proxy's)");
ABSL_FLAG(int, max_idle_connections, 0,
          "connections without a call in flight held at most; beyond it the "
          "longest idle are closed (clients reconnect when they next call), "
          "so connections that never call cannot take every slot (0: half "
          "of --max_connections)");
ABSL_FLAG(double, handshake_timeout_seconds, 5.0,
          "a connection that has not sent the HTTP/2 preface and its "
          "SETTINGS (and finished TLS) within this is closed, so sockets "
          "that connect and never speak do not hold their slots");
ABSL_FLAG(int, max_connection_idle_seconds, 600,
          "a connection without a call for this long is asked to go "
          "(GOAWAY; clients reconnect when they next call); 0: never");
ABSL_FLAG(int, solver_threads, 0,
          "threads of the solver pool that runs every solve (0: one per CPU "
          "this process may run on)");
ABSL_FLAG(int, max_queued_calls, ik::server::ServerOptions().max_queued_calls,
          "solving calls waiting for a solver thread at most (more are "
          "refused: RESOURCE_EXHAUSTED once the pool takes a waiting call); "
          "clients share the pool in turn, one call each");
ABSL_FLAG(std::int64_t, max_queued_bytes_per_caller,
          ik::server::ServerOptions().max_queued_bytes_per_caller,
          "bytes of requests one caller's calls waiting for a solver thread "
          "may hold; beyond it a call is refused, its request freed at once "
          "and RESOURCE_EXHAUSTED answered once the pool takes that caller's "
          "next waiting call (a caller's first waiting call is never refused "
          "for its size)");
ABSL_FLAG(std::int64_t, max_queued_bytes,
          ik::server::ServerOptions().max_queued_bytes,
          "bytes of requests all callers' calls waiting for a solver thread "
          "may hold together; beyond it a call is refused, its request freed "
          "at once and RESOURCE_EXHAUSTED answered once the pool takes a "
          "waiting call (a call that would wait alone is never refused for "
          "its size)");
ABSL_FLAG(int, solver_nice, ik::server::ServerOptions().solver_nice,
          "nice value of the solver threads, 0..19: above gRPC's threads "
          "(0), so reading requests and answering health checks preempt "
          "solving");
ABSL_FLAG(std::string, tls_cert, "",
          "PEM certificate chain to serve TLS with (with --tls_key); empty: "
          "plaintext");
ABSL_FLAG(std::string, tls_key, "", "PEM private key of --tls_cert");
ABSL_FLAG(std::string, tls_client_ca, "",
          "PEM CA bundle: clients must present a certificate it signed "
          "(mutual TLS); empty: none asked");
ABSL_FLAG(int, tls_reload_seconds, 60,
          "how often the TLS files are read again, so a renewed certificate "
          "is served without a restart");
ABSL_FLAG(std::string, token_file, "",
          "file of bearer tokens, one '<role> <token>' a line (role read: "
          "solve and list; admin: also register, replace, delete); empty: "
          "no token needed");
ABSL_FLAG(std::vector<std::string>, trusted_proxies, {},
          "comma-separated addresses (no port) of proxies in front of ikd: "
          "a call from one of them takes the solver pool's turns of the "
          "client its x-forwarded-for names last (nginx: grpc_set_header "
          "X-Forwarded-For $remote_addr); from other peers the header is "
          "ignored");
ABSL_FLAG(std::string, metrics_listen, "",
          "host:port serving Prometheus metrics at /metrics (e.g. "
          "0.0.0.0:9464); empty: none");
ABSL_FLAG(std::string, access_log, "",
          "file to append one JSON line per call to ('-': stderr); empty: "
          "none");
ABSL_FLAG(std::string, record_dir, "",
          "directory to record answered calls to, with the rigs and "
          "terrains they used (docs/operations.md, Recording and replay); "
          "empty: none");
ABSL_FLAG(std::int64_t, record_max_bytes,
          ik::server::RecorderOptions().max_bytes,
          "the recording's files together at most, bytes (the oldest are "
          "deleted; a file rotates past a quarter of it, at most 64 MiB)");
ABSL_FLAG(std::int64_t, record_buffer_bytes,
          ik::server::RecorderOptions().buffer_bytes,
          "records waiting for the disk at most, bytes; beyond it calls are "
          "dropped from the recording (counted), never waited for");
ABSL_FLAG(double, record_sample, ik::server::RecorderOptions().sample,
          "fraction of calls (of streams, for TickStream) recorded, evenly "
          "spaced, in (0, 1]");
ABSL_FLAG(std::vector<std::string>, record_methods,
          ik::server::RecorderOptions().methods,
          "comma-separated methods recorded: Tick, TickStream, SolveChain, "
          "GroundFeet, StepDynamics");
ABSL_FLAG(std::vector<std::string>, record_characters, {},
          "comma-separated character ids: only these characters of each "
          "tick are recorded; empty: all");
ABSL_FLAG(int, max_connection_age_seconds, 0,
          "connections older than this are asked to go (GOAWAY; calls in "
          "flight finish), so DNS round_robin clients find new replicas; 0: "
          "never");
ABSL_FLAG(double, shutdown_grace_seconds, 8.0,
          "on SIGTERM/SIGINT, how long calls in flight may take to finish");

namespace {

// Positive-int flag check shared by all limits.
bool Positive(const char* name, std::int64_t value) {
  if (value > 0) return true;
  absl::FPrintF(stderr, "ikd: --%s must be > 0 (got %d)\n", name, value);
  return false;
}

// A character is at most a call: --max_work_per_call holds at least one.
bool WithinCallBudget(const ik::server::ServiceLimits& limits) {
  if (limits.max_work_per_character <= limits.max_work_per_call) return true;
  absl::FPrintF(stderr,
                "ikd: --max_work_per_character (%d) must not exceed "
                "--max_work_per_call (%d)\n",
                limits.max_work_per_character, limits.max_work_per_call);
  return false;
}

// The built-in default directories point at the source tree's examples;
// when one is not there (an installed binary), start without instead of
// failing.
void DropMissingDefault(std::string& directory, const char* default_directory,
                        const char* kind) {
  if (directory == default_directory &&
      !std::filesystem::is_directory(directory)) {
    absl::FPrintF(stderr, "ikd: default %s directory %s not found; no %ss\n",
                  kind, directory, kind);
    directory.clear();
  }
}

// CPUs this process may run on (its affinity mask: a container's cpuset).
int UsableCpus() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) == 0) {
    return std::max(1, CPU_COUNT(&set));
  }
  return std::max(1u, std::thread::hardware_concurrency());
}

// The limits every room enforces, from the flags (unchecked).
ik::server::ServiceLimits LimitsFromFlags() {
  ik::server::ServiceLimits limits;
  limits.max_rigs = absl::GetFlag(FLAGS_max_rigs);
  limits.max_joints_per_rig = absl::GetFlag(FLAGS_max_joints_per_rig);
  limits.max_chains_per_rig = absl::GetFlag(FLAGS_max_chains_per_rig);
  limits.max_parts_per_rig = absl::GetFlag(FLAGS_max_parts_per_rig);
  limits.max_goals_per_request = absl::GetFlag(FLAGS_max_goals_per_request);
  limits.max_terrains = absl::GetFlag(FLAGS_max_terrains);
  limits.max_mesh_triangles = absl::GetFlag(FLAGS_max_mesh_triangles);
  limits.max_heightfield_samples = absl::GetFlag(FLAGS_max_heightfield_samples);
  limits.max_inline_heightfield_samples =
      absl::GetFlag(FLAGS_max_inline_heightfield_samples);
  limits.max_ground_shapes = absl::GetFlag(FLAGS_max_ground_shapes);
  limits.max_characters_per_tick = absl::GetFlag(FLAGS_max_characters_per_tick);
  limits.max_work_per_character = absl::GetFlag(FLAGS_max_work_per_character);
  limits.max_work_per_call = absl::GetFlag(FLAGS_max_work_per_call);
  limits.max_answer_bytes = absl::GetFlag(FLAGS_max_answer_bytes);
  limits.max_unread_answer_bytes_per_caller =
      absl::GetFlag(FLAGS_max_unread_answer_bytes_per_caller);
  limits.max_unread_answer_bytes = absl::GetFlag(FLAGS_max_unread_answer_bytes);
  return limits;
}

// Flag --`name`'s `seconds` as a duration: within [0, 24 days] (gRPC takes
// milliseconds as an int); nullopt (after saying why) beyond.
std::optional<absl::Duration> WholeSeconds(const char* name, int seconds) {
  if (seconds >= 0 && seconds <= 24 * 3600 * 24) return absl::Seconds(seconds);
  absl::FPrintF(stderr, "ikd: --%s must be within [0, 2073600], got %d\n", name,
                seconds);
  return std::nullopt;
}

// How connections must behave (per peer, handshake, idleness) into
// `options`; false (after saying why) for a value out of range.
bool ReadConnectionFlags(ik::server::ServerOptions& options) {
  options.max_connections_per_peer =
      absl::GetFlag(FLAGS_max_connections_per_peer);
  if (options.max_connections_per_peer < 0) {
    absl::FPrintF(stderr,
                  "ikd: --max_connections_per_peer must be >= 0 (0: auto)\n");
    return false;
  }
  options.max_idle_connections = absl::GetFlag(FLAGS_max_idle_connections);
  if (options.max_idle_connections < 0) {
    absl::FPrintF(stderr,
                  "ikd: --max_idle_connections must be >= 0 (0: auto)\n");
    return false;
  }
  const double handshake = absl::GetFlag(FLAGS_handshake_timeout_seconds);
  if (!(handshake > 0.0 && handshake <= 600.0)) {
    absl::FPrintF(stderr,
                  "ikd: --handshake_timeout_seconds must be within (0, 600], "
                  "got %g\n",
                  handshake);
    return false;
  }
  options.handshake_timeout = absl::Seconds(handshake);
  std::optional<absl::Duration> idle =
      WholeSeconds("max_connection_idle_seconds",
                   absl::GetFlag(FLAGS_max_connection_idle_seconds));
  if (!idle.has_value()) return false;
  options.max_connection_idle = *idle;
  return true;
}

// The connections' and the solver pool's flags into `options` (0 solver
// threads: one per usable CPU); false (after saying why) for a value out
// of range.
bool ReadConcurrencyFlags(ik::server::ServerOptions& options) {
  options.solver_threads = absl::GetFlag(FLAGS_solver_threads);
  options.max_connections = absl::GetFlag(FLAGS_max_connections);
  if (options.max_connections < 0) {
    absl::FPrintF(stderr, "ikd: --max_connections must be >= 0 (0: auto)\n");
    return false;
  }
  options.max_queued_calls = absl::GetFlag(FLAGS_max_queued_calls);
  options.max_queued_bytes_per_caller =
      absl::GetFlag(FLAGS_max_queued_bytes_per_caller);
  options.max_queued_bytes = absl::GetFlag(FLAGS_max_queued_bytes);
  options.solver_nice = absl::GetFlag(FLAGS_solver_nice);
  if (options.solver_nice < 0 || options.solver_nice > 19) {
    absl::FPrintF(stderr, "ikd: --solver_nice must be within [0, 19], got %d\n",
                  options.solver_nice);
    return false;
  }
  if (options.solver_threads == 0) options.solver_threads = UsableCpus();
  return true;
}

// The memory bounds' flags into `options` (0 transport memory: 64
// messages, at least 256 MiB); false (after saying why) for a value out of
// range.
bool ReadMemoryFlags(ik::server::ServerOptions& options) {
  options.max_receive_message_bytes = absl::GetFlag(FLAGS_max_message_bytes);
  options.transport_memory_bytes = absl::GetFlag(FLAGS_transport_memory_bytes);
  options.max_registry_bytes = absl::GetFlag(FLAGS_max_registry_bytes);
  if (options.max_registry_bytes <= 0) {
    absl::FPrintF(stderr, "ikd: --max_registry_bytes must be > 0\n");
    return false;
  }
  if (options.transport_memory_bytes < 0) {
    absl::FPrintF(stderr, "ikd: --transport_memory_bytes must be >= 0\n");
    return false;
  }
  if (options.transport_memory_bytes == 0) {
    options.transport_memory_bytes = std::max<int64_t>(
        int64_t{256} << 20, int64_t{64} * options.max_receive_message_bytes);
  }
  return true;
}

// Whether every limit and count that must be positive is (each one that is
// not is named on stderr).
bool AllPositive(const ik::server::ServerOptions& options) {
  const ik::server::ServiceLimits& limits = options.limits;
  return Positive("max_rigs", limits.max_rigs) &&
         Positive("max_joints_per_rig", limits.max_joints_per_rig) &&
         Positive("max_chains_per_rig", limits.max_chains_per_rig) &&
         Positive("max_parts_per_rig", limits.max_parts_per_rig) &&
         Positive("max_goals_per_request", limits.max_goals_per_request) &&
         Positive("max_terrains", limits.max_terrains) &&
         Positive("max_mesh_triangles", limits.max_mesh_triangles) &&
         Positive("max_heightfield_samples", limits.max_heightfield_samples) &&
         Positive("max_inline_heightfield_samples",
                  limits.max_inline_heightfield_samples) &&
         Positive("max_ground_shapes", limits.max_ground_shapes) &&
         Positive("max_characters_per_tick", limits.max_characters_per_tick) &&
         Positive("max_work_per_character", limits.max_work_per_character) &&
         Positive("max_work_per_call", limits.max_work_per_call) &&
         WithinCallBudget(limits) &&
         Positive("max_answer_bytes", limits.max_answer_bytes) &&
         Positive("max_unread_answer_bytes_per_caller",
                  limits.max_unread_answer_bytes_per_caller) &&
         Positive("max_unread_answer_bytes", limits.max_unread_answer_bytes) &&
         Positive("solver_threads", options.solver_threads) &&
         Positive("max_queued_calls", options.max_queued_calls) &&
         Positive("max_queued_bytes_per_caller",
                  options.max_queued_bytes_per_caller) &&
         Positive("max_queued_bytes", options.max_queued_bytes) &&
         Positive("max_message_bytes", options.max_receive_message_bytes) &&
         Positive("tls_reload_seconds",
                  absl::GetFlag(FLAGS_tls_reload_seconds));
}

}  // namespace

// The server's options from the flags; nullopt (after saying why) when a
// limit is not positive.
std::optional<ik::server::ServerOptions> OptionsFromFlags() {
  ik::server::ServerOptions options;
  options.listen = absl::GetFlag(FLAGS_listen);
  options.rig_dir = absl::GetFlag(FLAGS_rig_dir);
  options.terrain_dir = absl::GetFlag(FLAGS_terrain_dir);
  options.state_dir = absl::GetFlag(FLAGS_state_dir);
  options.tls.cert_file = absl::GetFlag(FLAGS_tls_cert);
  options.tls.key_file = absl::GetFlag(FLAGS_tls_key);
  options.tls.client_ca_file = absl::GetFlag(FLAGS_tls_client_ca);
  options.tls_reload_interval =
      absl::Seconds(absl::GetFlag(FLAGS_tls_reload_seconds));
  options.token_file = absl::GetFlag(FLAGS_token_file);
  options.trusted_proxies = absl::GetFlag(FLAGS_trusted_proxies);
  options.metrics_listen = absl::GetFlag(FLAGS_metrics_listen);
  options.access_log = absl::GetFlag(FLAGS_access_log);
  options.record.dir = absl::GetFlag(FLAGS_record_dir);
  options.record.max_bytes = absl::GetFlag(FLAGS_record_max_bytes);
  options.record.buffer_bytes = absl::GetFlag(FLAGS_record_buffer_bytes);
  options.record.sample = absl::GetFlag(FLAGS_record_sample);
  options.record.methods = absl::GetFlag(FLAGS_record_methods);
  options.record.characters = absl::GetFlag(FLAGS_record_characters);
  std::optional<absl::Duration> age =
      WholeSeconds("max_connection_age_seconds",
                   absl::GetFlag(FLAGS_max_connection_age_seconds));
  if (!age.has_value()) return std::nullopt;
  options.max_connection_age = *age;
  options.limits = LimitsFromFlags();
  if (!ReadConcurrencyFlags(options) || !ReadConnectionFlags(options) ||
      !ReadMemoryFlags(options) || !AllPositive(options)) {
    return std::nullopt;
  }
  // The built-in default points at the source tree's examples; when that is
  // not there (an installed binary), start empty instead of failing.
  DropMissingDefault(options.rig_dir, IK_DEFAULT_RIG_DIR, "rig");
  DropMissingDefault(options.terrain_dir, IK_DEFAULT_TERRAIN_DIR, "terrain");
  return options;
}
