// ikctl: command-line client for ikd.
//
//   ikctl [--server=HOST:PORT] [--json] COMMAND ...
//     rigs register FILE [--replace]
//     rigs list
//     rigs get NAME
//     rigs delete NAME [--revision=R]
//     solve --rig=NAME (--chain=NAME | --root=J --tip=J) --target=X,Y,Z
//           [--pole=X,Y,Z] [--solver=S] [--orientation=X,Y,Z,W]
//           [--revision=R]
//     dynamics --rig=NAME [--chain=NAME] [--steps=N] [--dt=S]
//              [--position=X,Y,Z] [--velocity=X,Y,Z]
//     terrain register FILE [--replace] | list | delete NAME
//     ground --rig=NAME (--plane=PX,PY,PZ,NX,NY,NZ ... | --terrain=NAME)
//            [--root=X,Y,Z] [--pose=FILE] [--weights=L,R]
//     tick --rig=NAME [--characters=N] [--ticks=T] [--terrain=NAME]
//          [--dt=S] [--stream]
//     health
//
// Exit status: 0 success, 1 the server answered with an error (or is not
// serving), 2 usage error.
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/flags/usage_config.h"
#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/time/time.h"
#include "absl/types/span.h"
#include "ik/client.h"
#include "ik/program_flags.h"
#include "ik/rig_json.h"
#include "ikctl_util.h"

ABSL_FLAG(std::string, server, "127.0.0.1:50051", "ikd address, HOST:PORT");
ABSL_FLAG(double, timeout, 5.0, "deadline of each call, seconds");
ABSL_FLAG(bool, tls, false,
          "connect with TLS (implied by --tls_ca, --tls_cert); without "
          "--tls_ca the server's certificate is checked against the system's "
          "CAs");
ABSL_FLAG(std::string, tls_ca, "",
          "PEM CA bundle that signs ikd's certificate");
ABSL_FLAG(std::string, tls_cert, "",
          "PEM client certificate chain (ikd --tls_client_ca)");
ABSL_FLAG(std::string, tls_key, "", "PEM private key of --tls_cert");
ABSL_FLAG(std::string, tls_server_name, "",
          "name to check ikd's certificate against instead of --server's "
          "host");
ABSL_FLAG(std::string, token_file, "",
          "file holding the bearer token to send (ikd --token_file); "
          "default: the environment variable IKD_TOKEN, if set");
ABSL_FLAG(bool, replace, false,
          "rigs / terrain register: replace different content");
ABSL_FLAG(std::string, revision, "",
          "rigs delete / solve / dynamics / ground: the revision the rig must "
          "have; terrain delete: the terrain's");
ABSL_FLAG(std::string, rig, "", "solve, dynamics, ground: rig name");
ABSL_FLAG(std::string, chain, "", "solve: chain name");
ABSL_FLAG(std::string, target, "", "solve: target X,Y,Z in world space, m");
ABSL_FLAG(std::string, pole, "", "solve: optional pole target X,Y,Z, m");
ABSL_FLAG(std::string, root, "",
          "solve: ad hoc chain root joint (with --tip, instead of --chain); "
          "ground: the character's root position X,Y,Z, m");
ABSL_FLAG(std::string, tip, "", "solve: ad hoc chain tip joint");
ABSL_FLAG(
    std::string, solver, "",
    "solve: two_bone | fabrik | ccd | torque | auto (default: the chain's)");
ABSL_FLAG(int, max_iterations, 0, "solve: iteration cap override (> 0)");
ABSL_FLAG(double, tolerance, 0.0, "solve, ground: tolerance override, m (> 0)");
ABSL_FLAG(std::string, orientation, "",
          "solve: optional world rotation of the tip, X,Y,Z,W quaternion");
ABSL_FLAG(std::string, swivel, "",
          "solve: optional swivel angle, radians (instead of --pole)");
ABSL_FLAG(bool, history_free, false,
          "solve: the limb's in-limit choice ignores the incoming pose's "
          "swivel (ChainGoal.history_free)");
ABSL_FLAG(double, orientation_weight, 1.0,
          "solve: blend weight of --orientation in [0, 1]");

namespace {

using ik::ctl::Failed;
using ik::ctl::FormatVec3;
using ik::ctl::kFailed;
using ik::ctl::kOk;
using ik::ctl::ParseQuat;
using ik::ctl::ParseVec3;
using ik::ctl::Print;
using ik::ctl::PrintDeleted;
using ik::ctl::PrintRegistered;
using ik::ctl::Usage;

// TLS and the token from the flags (and IKD_TOKEN) into `options`.
absl::Status Secure(ik::ClientOptions& options) {
  ik::TlsFiles files;
  files.ca_file = absl::GetFlag(FLAGS_tls_ca);
  files.cert_file = absl::GetFlag(FLAGS_tls_cert);
  files.key_file = absl::GetFlag(FLAGS_tls_key);
  if (absl::GetFlag(FLAGS_tls) || !files.ca_file.empty() ||
      !files.cert_file.empty() || !files.key_file.empty()) {
    absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> credentials =
        ik::TlsCredentials(files);
    if (!credentials.ok()) return credentials.status();
    options.credentials = *std::move(credentials);
    const std::string server_name = absl::GetFlag(FLAGS_tls_server_name);
    if (!server_name.empty()) {
      options.channel_arguments.SetSslTargetNameOverride(server_name);
    }
  }
  const std::string token_file = absl::GetFlag(FLAGS_token_file);
  if (!token_file.empty()) {
    std::ifstream file(token_file);
    std::string token;
    if (!file || !std::getline(file, token)) {
      return absl::InvalidArgumentError(
          absl::StrCat("--token_file ", token_file, ": cannot be read"));
    }
    options.token = std::string(absl::StripAsciiWhitespace(token));
  } else if (const char* token = std::getenv("IKD_TOKEN"); token != nullptr) {
    options.token = std::string(absl::StripAsciiWhitespace(token));
  }
  return absl::OkStatus();
}

// Whether the command line's words (not flags) begin with `rigs import`.
bool IsRigsImport(const std::vector<char*>& argv) {
  std::vector<std::string> words;
  for (size_t i = 1; i < argv.size() && words.size() < 2; ++i) {
    if (argv[i][0] != '-') words.push_back(argv[i]);
  }
  return words.size() == 2 && words[0] == "rigs" && words[1] == "import";
}

// Maps --solver's value; false for an unknown name.
bool ParseSolver(const std::string& name, ik::v1::Solver* out) {
  if (name.empty()) {
    *out = ik::v1::SOLVER_UNSPECIFIED;
  } else if (name == "auto") {
    *out = ik::v1::SOLVER_AUTO;
  } else if (name == "two_bone") {
    *out = ik::v1::SOLVER_TWO_BONE;
  } else if (name == "fabrik") {
    *out = ik::v1::SOLVER_FABRIK;
  } else if (name == "ccd") {
    *out = ik::v1::SOLVER_CCD;
  } else if (name == "torque") {
    *out = ik::v1::SOLVER_TORQUE;
  } else {
    return false;
  }
  return true;
}

int RigsCommand(ik::Client& client, const std::vector<std::string>& args,
                const std::vector<std::string>& import_chains) {
  if (args.empty())
    return Usage("rigs: expected register, import, list, get or delete");
  const std::string& verb = args[0];
  if (verb == "import" && args.size() == 2) {
    return ik::ctl::ImportCommand(client, args[1], import_chains,
                                  absl::GetFlag(FLAGS_replace));
  }
  if (verb == "register" && args.size() == 2) {
    absl::StatusOr<ik::v1::Rig> rig = ik::ReadRigFile(args[1]);
    if (!rig.ok()) return Failed(rig.status());
    return PrintRegistered(
        client.RegisterRig(*rig, absl::GetFlag(FLAGS_replace)));
  }
  if (verb == "list" && args.size() == 1) {
    auto answer = client.ListRigs();
    if (!answer.ok()) return Failed(answer.status());
    return Print(*answer, [](const ik::v1::ListRigsResponse& r) {
      absl::PrintF("%-24s %-24s %6s  %s\n", "NAME", "REVISION", "JOINTS",
                   "CHAINS");
      for (const ik::v1::RigSummary& rig : r.rigs()) {
        absl::PrintF("%-24s %-24s %6d  %s\n", rig.name(), rig.revision(),
                     rig.joint_count(), absl::StrJoin(rig.chains(), ","));
      }
    });
  }
  if (verb == "get" && args.size() == 2) {
    auto answer = client.GetRig(args[1]);
    if (!answer.ok()) return Failed(answer.status());
    return Print(*answer, [](const ik::v1::GetRigResponse& r) {
      absl::PrintF("# revision %s\n%s\n", r.revision(), ik::ToJson(r.rig()));
    });
  }
  if (verb == "delete" && args.size() == 2) {
    return PrintDeleted(
        client.DeleteRig(args[1], absl::GetFlag(FLAGS_revision)), args[1]);
  }
  return Usage(
      "rigs: expected register FILE | import FILE | list | get NAME | delete "
      "NAME");
}

// The goal of --chain (or --root and --tip), --target and the solver's
// flags into `goal`; kOk, or the usage error's exit code.
int GoalFromFlags(ik::v1::ChainGoal& goal) {
  const std::string chain = absl::GetFlag(FLAGS_chain);
  const std::string root = absl::GetFlag(FLAGS_root);
  const std::string tip = absl::GetFlag(FLAGS_tip);
  if (!chain.empty() && root.empty() && tip.empty()) {
    goal.set_chain(chain);
  } else if (chain.empty() && !root.empty() && !tip.empty()) {
    goal.mutable_ad_hoc_chain()->set_root(root);
    goal.mutable_ad_hoc_chain()->set_tip(tip);
  } else {
    return Usage("solve: give --chain, or --root and --tip");
  }
  ik::v1::Solver solver;
  if (!ParseSolver(absl::GetFlag(FLAGS_solver), &solver)) {
    return Usage(
        "solve: --solver must be two_bone, fabrik, ccd, torque or auto");
  }
  goal.set_solver(solver);
  goal.set_max_iterations(absl::GetFlag(FLAGS_max_iterations));
  goal.set_tolerance(absl::GetFlag(FLAGS_tolerance));
  if (!absl::GetFlag(FLAGS_orientation).empty()) {
    if (!ParseQuat(absl::GetFlag(FLAGS_orientation),
                   goal.mutable_orientation())) {
      return Usage("solve: --orientation must be X,Y,Z,W");
    }
    goal.set_orientation_weight(absl::GetFlag(FLAGS_orientation_weight));
  }
  if (!ParseVec3(absl::GetFlag(FLAGS_target), goal.mutable_target())) {
    return Usage("solve: --target must be X,Y,Z");
  }
  if (!absl::GetFlag(FLAGS_pole).empty() &&
      !ParseVec3(absl::GetFlag(FLAGS_pole), goal.mutable_pole())) {
    return Usage("solve: --pole must be X,Y,Z");
  }
  if (!absl::GetFlag(FLAGS_swivel).empty()) {
    double swivel = 0.0;
    if (!absl::SimpleAtod(absl::GetFlag(FLAGS_swivel), &swivel)) {
      return Usage("solve: --swivel must be a number of radians");
    }
    goal.set_swivel(swivel);
  }
  goal.set_history_free(absl::GetFlag(FLAGS_history_free));
  return kOk;
}

// A SolveChain answer, readable: each goal's result and rotations.
void PrintSolved(const ik::v1::SolveChainResponse& response) {
  for (const ik::v1::GoalResult& result : response.results()) {
    absl::PrintF("%s: %s, residual %.3g m, %d iteration(s), %s, %s, tip %s\n",
                 result.chain(), result.reached() ? "reached" : "NOT reached",
                 result.residual(), result.iterations(),
                 ik::v1::Solver_Name(result.solver()),
                 ik::v1::StopReason_Name(result.stop_reason()),
                 FormatVec3(result.effector()));
    for (const ik::v1::JointRotation& joint : result.rotations()) {
      const ik::v1::Quat& q = joint.rotation();
      absl::PrintF("  %-16s rotation (x %.6f, y %.6f, z %.6f, w %.6f)\n",
                   joint.name(), q.x(), q.y(), q.z(), q.w());
    }
    if (result.singularity_angle() > 0.0 || result.near_singularity()) {
      absl::PrintF(
          "  plane: %.3f rad from a singular direction%s\n",
          result.singularity_angle(),
          result.near_singularity() ? " (NEAR: the plane may flip)" : "");
    }
    if (result.branch_switch()) {
      absl::PrintF(
          "  branch switch: no allowed solution continues the incoming "
          "pose\n");
    }
    if (result.limited_joints_size() > 0) {
      absl::PrintF("  limited: %s\n",
                   absl::StrJoin(result.limited_joints(), ", "));
    }
  }
}

int SolveCommand(ik::Client& client, const std::vector<std::string>& args) {
  if (!args.empty()) return Usage("solve: takes flags only");
  ik::v1::SolveChainRequest request;
  request.set_rig(absl::GetFlag(FLAGS_rig));
  request.set_revision(absl::GetFlag(FLAGS_revision));
  ik::v1::ChainGoal* goal = request.add_goals();
  if (request.rig().empty()) return Usage("solve: --rig is required");
  if (const int code = GoalFromFlags(*goal); code != kOk) return code;
  auto answer = client.SolveChain(request);
  if (!answer.ok()) return Failed(answer.status());
  return Print(*answer, PrintSolved);
}

int HealthCommand(ik::Client& client, const std::vector<std::string>& args) {
  if (!args.empty()) return Usage("health: takes no arguments");
  absl::StatusOr<bool> serving = client.CheckHealth();
  if (!serving.ok()) return Failed(serving.status());
  const char* status = *serving ? "SERVING" : "NOT_SERVING";
  if (absl::GetFlag(FLAGS_json)) {
    absl::PrintF("{\"status\": \"%s\"}\n", status);
  } else {
    absl::PrintF("%s\n", status);
  }
  return *serving ? kOk : kFailed;
}

// The program's usage message (--help and usage errors).
constexpr char kUsageMessage[] =
    "usage: ikctl [--server=HOST:PORT] [--json] [--timeout=S] COMMAND\n"
    "  rigs register FILE [--replace]\n"
    "  rigs list\n"
    "  rigs get NAME\n"
    "  rigs delete NAME [--revision=R]\n"
    "  solve --rig=NAME (--chain=NAME | --root=JOINT --tip=JOINT)\n"
    "        --target=X,Y,Z [--pole=X,Y,Z | --swivel=RAD]\n"
    "        [--solver=two_bone|fabrik|ccd|torque|auto]\n"
    "        [--orientation=X,Y,Z,W [--orientation_weight=W]]\n"
    "        [--max_iterations=N] [--tolerance=M] [--revision=R]\n"
    "  dynamics --rig=NAME [--chain=NAME] [--steps=N] [--dt=S]\n"
    "        [--position=X,Y,Z] [--velocity=X,Y,Z]\n"
    "  terrain register FILE [--replace]\n"
    "  terrain list\n"
    "  terrain delete NAME [--revision=R]\n"
    "  ground --rig=NAME (--plane=PX,PY,PZ,NX,NY,NZ ... | "
    "--terrain=NAME[,...])\n"
    "        [--root=X,Y,Z] [--pose=FILE] [--weights=W1,W2,...]\n"
    "        [--tolerance=M] [--revision=R]   (--plane may be repeated)\n"
    "  rigs import FILE.gltf|FILE.glb [--name=N] [--skin=K] "
    "[--chain=NAME=ROOT:TIP ...] [--register [--replace]]\n"
    "  tick --rig=NAME [--characters=N] [--ticks=T] [--terrain=NAME] "
    "[--dt=S] [--stream]\n"
    "  render --rig=NAME --svg=FILE [--chain=NAME --target=X,Y,Z]\n"
    "        [--terrain=NAME | --plane=...] [--root=X,Y,Z] "
    "[--trail_steps=N [--dt=S]]\n"
    "  replay FILE|DIR [--replace] [--max_differences=N]\n"
    "  inspect FILE|DIR [--listen=127.0.0.1:0] [--assets=DIR]\n"
    "  health";

// `ikctl --help` lists ikctl's own flags under one heading. Abseil would
// group them by the source file that defines each one, printing the build's
// source paths, and list its own flags (--flagfile, --fromenv, ...) too.
void ConfigureHelp() {
  absl::FlagsUsageConfig config;
  config.contains_help_flags = [](absl::string_view file) {
    return absl::StrContains(file, "ikctl");
  };
  config.contains_helpshort_flags = config.contains_help_flags;
  config.normalize_filename = [](absl::string_view file) {
    return absl::StrContains(file, "ikctl") ? std::string("ikctl")
                                            : std::string(file);
  };
  absl::SetFlagsUsageConfig(config);
}

}  // namespace

int main(int argc, char** argv) {
  ConfigureHelp();
  absl::SetProgramUsageMessage(kUsageMessage);
  std::vector<std::string> planes;
  std::vector<char*> rest =
      ik::ctl::TakeRepeatedFlag(argc, argv, "plane", planes);
  // `rigs import` takes --chain NAME=ROOT:TIP any number of times (solve's
  // --chain is one name).
  std::vector<std::string> import_chains;
  if (IsRigsImport(rest)) {
    rest = ik::ctl::TakeRepeatedFlag(static_cast<int>(rest.size()), rest.data(),
                                     "chain", import_chains);
  }
  std::vector<char*> positional = ik::ParseFlagsHelpingWithSuccess(
      static_cast<int>(rest.size()), rest.data());
  std::vector<std::string> args(positional.begin() + 1, positional.end());
  if (args.empty()) return Usage("no command");

  ik::ClientOptions options;
  options.target = absl::GetFlag(FLAGS_server);
  options.deadline = absl::Seconds(absl::GetFlag(FLAGS_timeout));
  if (absl::Status secured = Secure(options); !secured.ok()) {
    absl::FPrintF(stderr, "ikctl: %s\n", secured.message());
    return 2;
  }
  ik::Client client(options);

  const std::string command = args[0];
  args.erase(args.begin());
  if (command == "rigs") return RigsCommand(client, args, import_chains);
  if (command == "solve") return SolveCommand(client, args);
  if (command == "health") return HealthCommand(client, args);
  if (command == "dynamics") return ik::ctl::DynamicsCommand(client, args);
  if (command == "terrain" || command == "terrains") {
    return ik::ctl::TerrainCommand(client, args, absl::GetFlag(FLAGS_replace));
  }
  if (command == "ground") {
    return ik::ctl::GroundCommand(client, args, planes);
  }
  if (command == "tick") return ik::ctl::TickCommand(client, args);
  // These write a report, a page or a file, not an answer: --json has
  // nothing to print as JSON, and says so rather than print text.
  if (absl::GetFlag(FLAGS_json) &&
      (command == "replay" || command == "inspect" || command == "render")) {
    return Usage(command + ": --json has no JSON form (" +
                 (command == "render" ? "the answer is the --svg file"
                  : command == "replay"
                      ? "the differences are text; the exit status says "
                        "whether every answer was identical"
                      : "the recording is shown in a browser") +
                 ")");
  }
  if (command == "replay") return ik::ctl::ReplayCommand(client, args);
  if (command == "inspect") return ik::ctl::InspectCommand(args);
  if (command == "render") {
    return ik::ctl::RenderCommand(client, args, planes);
  }
  return Usage("unknown command '" + command + "'");
}
