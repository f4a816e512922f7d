// ikd: the inverse-kinematics gRPC server.
//
//   ikd --listen=127.0.0.1:50051 --rig_dir=examples/rigs
//       --terrain_dir=examples/terrains
//
// Serves ik.v1.IkService, grpc.health.v1.Health and server reflection. Stops
// gracefully on SIGTERM or SIGINT: health turns NOT_SERVING, new calls are
// refused, calls in flight get --shutdown_grace_seconds to finish.
#include <malloc.h>
#include <sys/resource.h>

#include <algorithm>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/flags/usage_config.h"
#include "absl/strings/match.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "ik/program_flags.h"
#include "ikd_flags.h"
#include "ops/memory_reclaimer.h"
#include "server.h"

void LogListening(const ik::server::ServerOptions& options,
                  const ik::server::IkServer& server) {
  if (!options.state_dir.empty()) {
    const ik::server::StateStore::Replayed& replayed = server.replayed();
    for (const std::string& skipped : replayed.skipped) {
      absl::FPrintF(stderr, "ikd: skipped state file %s\n", skipped);
    }
    absl::FPrintF(stderr,
                  "ikd: state from %s: %d rigs, %d terrains, %d deleted, %d "
                  "files skipped\n",
                  options.state_dir, replayed.rigs, replayed.terrains,
                  replayed.deleted, replayed.skipped.size());
  }
  std::string host = options.listen.substr(0, options.listen.rfind(':'));
  absl::FPrintF(
      stderr,
      "ikd: listening on %s:%d (%d rigs from %s, %d terrains from %s, %d "
      "solver threads)\n",
      host, server.port(), server.loaded_rigs(),
      options.rig_dir.empty() ? "nowhere" : options.rig_dir,
      server.loaded_terrains(),
      options.terrain_dir.empty() ? "nowhere" : options.terrain_dir,
      server.solver_threads());
  const ik::server::RecorderOptions& record = options.record;
  if (!record.dir.empty()) {
    absl::FPrintF(
        stderr, "ikd: recording %s to %s (%s; characters %s)\n",
        absl::StrJoin(record.methods, ", "), record.dir,
        record.sample >= 1.0
            ? std::string("every call")
            : absl::StrCat("a share ", record.sample, " of the calls"),
        record.characters.empty() ? std::string("all")
                                  : absl::StrJoin(record.characters, ", "));
  }
  const ik::server::TlsFiles& tls = options.tls;
  absl::FPrintF(stderr, "ikd: %s%s\n",
                tls.tls() ? "TLS" : "plaintext (no --tls_cert)",
                tls.client_ca_file.empty()
                    ? ""
                    : ", client certificates required (--tls_client_ca)");
  if (server.metrics_port() != 0) {
    absl::FPrintF(
        stderr, "ikd: metrics on %s:%d/metrics\n",
        options.metrics_listen.substr(0, options.metrics_listen.rfind(':')),
        server.metrics_port());
  }
  if (!options.token_file.empty()) {
    absl::FPrintF(
        stderr, "ikd: bearer tokens from %s required for IkService%s\n",
        options.token_file, tls.tls() ? "" : " (WARNING: sent in plaintext)");
  }
}

// Raises the soft limit on open files to the hard one (every connection
// holds a descriptor); returns the limit now in force.
rlim_t RaiseFileLimit() {
  rlimit limit;
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return 0;
  if (limit.rlim_cur < limit.rlim_max) {
    rlimit raised = limit;
    raised.rlim_cur = limit.rlim_max;
    if (setrlimit(RLIMIT_NOFILE, &raised) == 0) return raised.rlim_cur;
  }
  return limit.rlim_cur;
}

// The connections a file limit allows: all but an eighth of it (at least
// 16), left for the state files, the listener's spare and gRPC's own.
int ConnectionsWithin(rlim_t file_limit) {
  const rlim_t spare = std::max<rlim_t>(16, file_limit / 8);
  return static_cast<int>(std::clamp<rlim_t>(
      file_limit > spare ? file_limit - spare : 1, 1, 1 << 20));
}

// `ikd --help` lists ikd's flags (all defined in ikd_flags.cc) under one
// heading. Abseil would look for flags in files named after the program,
// find none and say "No flags matched", and would print source paths.
void ConfigureHelp() {
  absl::FlagsUsageConfig config;
  config.contains_help_flags = [](absl::string_view file) {
    return absl::EndsWith(file, "server/ikd_flags.cc") || file == "ikd";
  };
  config.contains_helpshort_flags = config.contains_help_flags;
  config.normalize_filename = [](absl::string_view file) {
    return absl::EndsWith(file, "server/ikd_flags.cc") ? std::string("ikd")
                                                       : std::string(file);
  };
  absl::SetFlagsUsageConfig(config);
}

// The connection caps left at 0 (auto): all connections within the file
// limit `file_limit`, three quarters of them from one peer, half of them
// idle.
void SizeConnections(rlim_t file_limit, ik::server::ServerOptions& options) {
  if (options.max_connections == 0) {
    options.max_connections = ConnectionsWithin(file_limit);
  }
  if (options.max_connections_per_peer == 0) {
    options.max_connections_per_peer =
        std::max(1, options.max_connections / 4 * 3);
  }
  if (options.max_idle_connections == 0) {
    options.max_idle_connections = std::max(1, options.max_connections / 2);
  }
}

// The process's signals: SIGTERM and SIGINT blocked in every thread
// (gRPC's threads inherit the mask) and returned, for main to take
// synchronously; SIGXFSZ ignored: a write past a file-size limit (ulimit
// -f) would end the process, and ignored it fails with EFBIG instead,
// which the recording handles as a full disk (the calls are served, the
// dropped records counted and logged).
sigset_t TakeSignals() {
  signal(SIGXFSZ, SIG_IGN);
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  return stop_signals;
}

int main(int argc, char** argv) {
  ConfigureHelp();
  absl::SetProgramUsageMessage(
      "inverse kinematics as a gRPC service.\n"
      "  ikd [--listen=HOST:PORT] [--rig_dir=DIR] [--terrain_dir=DIR] "
      "[--state_dir=DIR] "
      "[limits...]");
  ik::ParseFlagsHelpingWithSuccess(argc, argv);
  // Abseil's mutexes check every lock order for cycles unless told not to
  // (a global graph updated on each lock: several microseconds a call); the
  // tests keep the check, the server does not pay for it.
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
  // A tick's request and answer are megabytes: keep such buffers in the heap
  // for reuse instead of mapping fresh zeroed pages for every call (glibc
  // maps blocks above M_MMAP_THRESHOLD). Free memory at the top of a heap
  // beyond M_TRIM_THRESHOLD goes back at once -- the only way it goes back
  // from the per-thread heaps, which malloc_trim (MemoryReclaimer) does not
  // shrink -- so a burst of large requests does not stay resident.
  mallopt(M_MMAP_THRESHOLD, 64 << 20);
  mallopt(M_TRIM_THRESHOLD, 16 << 20);

  const sigset_t stop_signals = TakeSignals();

  std::optional<ik::server::ServerOptions> options = OptionsFromFlags();
  if (!options.has_value()) return 2;
  const rlim_t file_limit = RaiseFileLimit();
  SizeConnections(file_limit, *options);
  auto server = ik::server::IkServer::Start(*options);
  if (!server.ok()) {
    // The message names the flag or file (its payload, the field path, is
    // for RPC clients); a flag's value refused is a usage error, exit 2, a
    // file that cannot be served 1.
    absl::FPrintF(stderr, "ikd: %s\n", server.status().message());
    return absl::StartsWith(server.status().message(), "--") ? 2 : 1;
  }
  LogListening(*options, **server);
  absl::FPrintF(stderr,
                "ikd: %d connections at most, %d from one peer, %d idle (%d "
                "open files)\n",
                options->max_connections, options->max_connections_per_peer,
                options->max_idle_connections, file_limit);
  // Free heap memory above 16 MiB goes back to the system within a second.
  ik::server::MemoryReclaimer reclaimer(size_t{16} << 20);

  int signal_number = 0;
  sigwait(&stop_signals, &signal_number);
  absl::FPrintF(stderr, "ikd: %s received, shutting down\n",
                signal_number == SIGTERM ? "SIGTERM" : "SIGINT");
  (*server)->Shutdown(
      absl::Seconds(absl::GetFlag(FLAGS_shutdown_grace_seconds)));
  absl::FPrintF(stderr, "ikd: stopped\n");
  return 0;
}
