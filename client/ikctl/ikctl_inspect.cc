// ikctl inspect: an ikd recording (ikd --record_dir) shown in 3D on a local
// web page -- every recorded tick's characters, their incoming and corrected
// poses and what each job did (client/inspector/). Prints the page's URL as
// its first line of output and serves until SIGINT or SIGTERM.
#include <pthread.h>
#include <signal.h>

#include <cstdio>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/strings/match.h"
#include "absl/strings/str_format.h"
#include "ikctl_util.h"
#include "inspection.h"
#include "inspector_server.h"
#include "recording.h"

ABSL_FLAG(std::string, listen, "127.0.0.1:0",
          "inspect: HOST:PORT to serve the page on, an IPv4 address (port 0: "
          "any free port)");
ABSL_FLAG(std::string, assets, "",
          "inspect: the folder of the page and its node_modules (default: "
          "client/inspector of the source tree ikctl was built from)");

namespace ik::ctl {
namespace {

// SIGINT and SIGTERM, blocked in the calling thread (and so in every
// thread it starts afterwards, civetweb's included) to be taken by
// sigwait: no handler runs on an arbitrary thread.
sigset_t BlockStopSignals() {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  return signals;
}

// The recording read and its rigs built; what was skipped goes to stderr.
absl::StatusOr<std::unique_ptr<inspector::Inspection>> Load(
    const std::string& path) {
  absl::StatusOr<inspector::Recording> recording =
      inspector::ReadRecording(path);
  if (!recording.ok()) return recording.status();
  for (const std::string& warning : recording->warnings) {
    absl::FPrintF(stderr, "ikctl: warning: %s\n", warning);
  }
  if (recording->dropped > 0) {
    absl::FPrintF(stderr,
                  "ikctl: warning: the server dropped %d records (buffer "
                  "full); the ticks shown are those it kept\n",
                  recording->dropped);
  }
  auto inspection =
      std::make_unique<inspector::Inspection>(*std::move(recording));
  for (const std::string& error : inspection->rig_errors()) {
    absl::FPrintF(stderr, "ikctl: warning: %s (its characters have no pose)\n",
                  error);
  }
  return inspection;
}

}  // namespace

int InspectCommand(const std::vector<std::string>& args) {
  if (args.size() != 1) {
    return Usage("inspect: give one recording file or directory");
  }
  const std::string listen = absl::GetFlag(FLAGS_listen);
  if (!absl::StrContains(listen, ':')) {
    return Usage("inspect: --listen takes HOST:PORT, e.g. 127.0.0.1:8080");
  }
  std::string assets = absl::GetFlag(FLAGS_assets);
  if (assets.empty()) assets = inspector::DefaultAssetsDirectory();

  absl::StatusOr<std::unique_ptr<inspector::Inspection>> inspection =
      Load(args[0]);
  if (!inspection.ok()) return Failed(inspection.status());
  const sigset_t stop_signals = BlockStopSignals();
  absl::StatusOr<std::unique_ptr<inspector::InspectorServer>> server =
      inspector::InspectorServer::Start(**inspection, listen, assets);
  if (!server.ok()) return Failed(server.status());

  absl::PrintF("inspector: %s\n", (*server)->url());
  std::fflush(stdout);
  absl::FPrintF(stderr, "ikctl: inspecting %d tick(s) of %s; Ctrl-C stops\n",
                (*inspection)->tick_count(), args[0]);
  int signal = 0;
  sigwait(&stop_signals, &signal);
  absl::FPrintF(stderr, "ikctl: inspector stopped\n");
  return kOk;
}

}  // namespace ik::ctl
