// A real ikd process for the end-to-end tests written in C++: started from
// its binary with the flags a test gives, on a free loopback port, its
// stderr kept in a file; signalled, waited for and read like an operator
// would.
//
//   IkdProcess ikd({"--state_dir=/tmp/x"});
//   ASSERT_TRUE(ikd.Start());
//   auto stub = ik::v1::IkService::NewStub(ikd.Channel());
//   ikd.Signal(SIGTERM);
//   EXPECT_EQ(ikd.Wait(), 0);
#ifndef IK_TESTS_E2E_IKD_PROCESS_H_
#define IK_TESTS_E2E_IKD_PROCESS_H_

#include <fcntl.h>
#include <grpcpp/grpcpp.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "grpc/health/v1/health.grpc.pb.h"

#ifndef IKD_BINARY
#error "IKD_BINARY must name the ikd binary"
#endif

extern char** environ;

namespace ik::testing {

class IkdProcess {
 public:
  // `wrapper`: a command ikd runs under, e.g. {"/usr/bin/prlimit",
  // "--nofile=64:64"} (it must exec ikd in its own process).
  explicit IkdProcess(std::vector<std::string> flags,
                      std::vector<std::string> wrapper = {})
      : flags_(std::move(flags)), wrapper_(std::move(wrapper)) {
    char pattern[] = "/tmp/ikd-e2e-log-XXXXXX";
    const int fd = mkstemp(pattern);
    if (fd >= 0) close(fd);
    log_path_ = pattern;
  }
  ~IkdProcess() {
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      Wait();
    }
    unlink(log_path_.c_str());
  }
  IkdProcess(const IkdProcess&) = delete;
  IkdProcess& operator=(const IkdProcess&) = delete;

  // Starts ikd and waits (at most 60 s) until it says where it listens;
  // false when it exits first or never says.
  bool Start() {
    std::vector<std::string> args = wrapper_;
    args.push_back(IKD_BINARY);
    args.push_back("--listen=127.0.0.1:0");
    args.insert(args.end(), flags_.begin(), flags_.end());
    std::vector<char*> argv;
    for (std::string& arg : args) argv.push_back(arg.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, log_path_.c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int spawned = posix_spawn(&pid_, args[0].c_str(), &actions, nullptr,
                                    argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    if (spawned != 0) {
      pid_ = -1;
      return false;
    }
    for (int i = 0; i < 600; ++i) {
      const std::string log = Log();
      const size_t at = log.find("ikd: listening on 127.0.0.1:");
      if (at != std::string::npos) {
        const size_t start = at + sizeof("ikd: listening on 127.0.0.1:") - 1;
        const size_t end = log.find(' ', start);
        if (end != std::string::npos &&
            absl::SimpleAtoi(log.substr(start, end - start), &port_)) {
          return true;
        }
      }
      int status = 0;
      if (waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        return false;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return false;
  }

  int port() const { return port_; }
  pid_t pid() const { return pid_; }

  // A line of /proc/<pid>/status in kB ("VmRSS", "VmHWM"); -1 if unknown.
  long StatusKb(const std::string& field) const {
    std::ifstream in(absl::StrCat("/proc/", pid_, "/status"));
    std::string line;
    while (std::getline(in, line)) {
      if (!absl::StartsWith(line, field + ":")) continue;
      long kb = -1;
      std::istringstream(line.substr(field.size() + 1)) >> kb;
      return kb;
    }
    return -1;
  }
  // The process's mappings holding more than `min_kb` resident, one line
  // each ("<range> <name> <kB>"; heaps of gRPC's threads have no name), for
  // telling where memory is when a bound fails.
  std::string ResidentMappings(long min_kb = 1024) const {
    std::ifstream in(absl::StrCat("/proc/", pid_, "/smaps"));
    std::string line, mapping, out;
    while (std::getline(in, line)) {
      if (absl::StartsWith(line, "Rss:")) {
        long kb = 0;
        std::istringstream(line.substr(4)) >> kb;
        if (kb > min_kb) absl::StrAppend(&out, mapping, " ", kb, " kB\n");
      } else if (!line.empty() && line.find(':') > line.find(' ')) {
        mapping = line;  // a mapping's header: range, perms, ..., path
      }
    }
    return out;
  }
  std::string address() const { return absl::StrCat("127.0.0.1:", port_); }

  // A new channel (a connection of its own: `tag` makes its arguments
  // unique) to the server, taking answers up to 64 MiB.
  std::shared_ptr<grpc::Channel> Channel(int tag = 0) const {
    grpc::ChannelArguments arguments;
    arguments.SetInt("ik.test.channel", tag);
    arguments.SetMaxReceiveMessageSize(64 << 20);
    return grpc::CreateCustomChannel(
        address(), grpc::InsecureChannelCredentials(), arguments);
  }

  // A health check of the whole server on a new connection (`tag`, as for
  // Channel), with a 5 s deadline; `serving` gets the answer.
  grpc::Status CheckHealth(
      int tag,
      grpc::health::v1::HealthCheckResponse::ServingStatus* serving) const {
    auto stub = grpc::health::v1::Health::NewStub(Channel(tag));
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() +
                         std::chrono::seconds(5));
    grpc::health::v1::HealthCheckResponse response;
    const grpc::Status status = stub->Check(
        &context, grpc::health::v1::HealthCheckRequest(), &response);
    *serving = response.status();
    return status;
  }

  void Signal(int signal_number) const {
    if (pid_ > 0) kill(pid_, signal_number);
  }

  // Waits for the process to end: its exit code, or 128 + the signal that
  // killed it.
  int Wait() {
    if (pid_ <= 0) return -1;
    int status = 0;
    waitpid(pid_, &status, 0);
    pid_ = -1;
    if (WIFEXITED(status)) return WEXITSTATUS(status);
    return 128 + WTERMSIG(status);
  }

  // Everything ikd wrote to stderr so far.
  std::string Log() const {
    std::ifstream in(log_path_);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }

 private:
  std::vector<std::string> flags_;
  std::vector<std::string> wrapper_;
  std::string log_path_;
  pid_t pid_ = -1;
  int port_ = 0;
};

}  // namespace ik::testing

#endif  // IK_TESTS_E2E_IKD_PROCESS_H_
