// A real nginx in front of ikd replicas for the end-to-end tests written in
// C++: Debian's binary running deploy/nginx/ikd.conf, filled in with the
// replicas' ports, in the foreground as one process, every file it writes
// (configuration, logs, temporary files) in a temporary directory; and what
// its access log says about the requests it passed on.
//
//   NginxProcess nginx({replica_a.port(), replica_b.port(), replica_c.port()});
//   std::string error;
//   ASSERT_TRUE(nginx.Start(&error)) << error;
//   auto stub = ik::v1::IkService::NewStub(grpc::CreateChannel(
//       nginx.address(), grpc::InsecureChannelCredentials()));
//   NginxCounts seen = ParseAccessLog(nginx.AccessLog());
//   EXPECT_EQ(nginx.Stop(), 0) << nginx.Log();
#ifndef IK_TESTS_E2E_NGINX_PROCESS_H_
#define IK_TESTS_E2E_NGINX_PROCESS_H_

#include <arpa/inet.h>
#include <fcntl.h>
#include <grpcpp/grpcpp.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "grpc/health/v1/health.grpc.pb.h"

#ifndef NGINX_BINARY
#error "NGINX_BINARY must name the nginx binary"
#endif
#ifndef IKD_NGINX_CONF
#error "IKD_NGINX_CONF must name deploy/nginx/ikd.conf"
#endif

extern char** environ;

namespace ik::testing {

// A free loopback port now (nothing holds it after the call returns).
inline int FreePort() {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  inet_pton(AF_INET, "127.0.0.1", &address.sin_addr);
  socklen_t length = sizeof(address);
  int port = 0;
  if (bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0 &&
      getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) == 0) {
    port = ntohs(address.sin_port);
  }
  close(fd);
  return port;
}

inline std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// deploy/nginx/ikd.conf with the replicas' ports (replica i in place of
// 127.0.0.1:50051 + i), the listener on 127.0.0.1:`port` and the logs in
// `directory`; empty (and `error` says why) when the file lacks the lines
// the test fills in.
inline std::string FillNginxConf(const std::vector<int>& upstream_ports,
                                 int port, const std::string& directory,
                                 std::string* error) {
  std::string conf = ReadFile(IKD_NGINX_CONF);
  std::vector<std::pair<std::string, std::string>> fills = {
      {"listen 50050 http2;",
       absl::StrCat("listen 127.0.0.1:", port, " http2;")},
      {"/var/log/nginx/", directory + "/"}};
  for (int i = 0; i < static_cast<int>(upstream_ports.size()); ++i) {
    fills.emplace_back(
        absl::StrCat("server 127.0.0.1:", 50051 + i, " "),
        absl::StrCat("server 127.0.0.1:", upstream_ports[i], " "));
  }
  for (const auto& [from, to] : fills) {
    if (absl::StrReplaceAll({{from, to}}, &conf) == 0) {
      *error = absl::StrCat(IKD_NGINX_CONF, " has no '", from, "'");
      return "";
    }
  }
  return conf;
}

// A real nginx in front of the replicas, in the foreground, as one process
// (master_process off), every file it writes in a temporary directory.
class NginxProcess {
 public:
  // `upstream_ports`: the replicas' ports, in the order of ikd.conf's
  // `server` lines (no more than it has).
  explicit NginxProcess(std::vector<int> upstream_ports)
      : upstream_ports_(std::move(upstream_ports)) {
    char pattern[] = "/tmp/ikd-e2e-nginx-XXXXXX";
    if (mkdtemp(pattern) != nullptr) directory_ = pattern;
  }
  ~NginxProcess() {
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
    if (!directory_.empty()) std::filesystem::remove_all(directory_);
  }
  NginxProcess(const NginxProcess&) = delete;
  NginxProcess& operator=(const NginxProcess&) = delete;

  // Starts nginx on a free port and waits (at most 30 s) until a health
  // check through it passes; false, and `error` says why, otherwise. A port
  // taken between picking and binding is picked again.
  bool Start(std::string* error) {
    if (access(NGINX_BINARY, X_OK) != 0) {
      *error = absl::StrCat(NGINX_BINARY,
                            " is missing: apt-get install nginx "
                            "(scripts/setup.sh --test)");
      return false;
    }
    for (int attempt = 0; attempt < 5; ++attempt) {
      port_ = FreePort();
      const std::string conf =
          FillNginxConf(upstream_ports_, port_, directory_, error);
      if (conf.empty()) return false;
      std::ofstream(directory_ + "/ikd.conf") << conf;
      std::ofstream(directory_ + "/nginx.conf") << MainConf();
      if (!Spawn()) {
        *error = "nginx did not start";
        return false;
      }
      if (WaitServing()) return true;
      if (pid_ > 0) {
        kill(pid_, SIGKILL);
        waitpid(pid_, nullptr, 0);
        pid_ = -1;
      }
      *error = absl::StrCat("nginx did not serve: ", Log());
      if (!absl::StrContains(Log(), "Address already in use")) return false;
    }
    return false;
  }

  int port() const { return port_; }
  std::string address() const { return absl::StrCat("127.0.0.1:", port_); }
  std::string AccessLog() const {
    return ReadFile(directory_ + "/ikd.access.log");
  }
  // nginx's own messages (start-up, and its error logs).
  std::string Log() const {
    return ReadFile(directory_ + "/stderr.log") +
           ReadFile(directory_ + "/error.log") +
           ReadFile(directory_ + "/ikd.error.log");
  }

  // Stops nginx (SIGQUIT: graceful) and waits: its exit code, or 128 + the
  // signal that ended it.
  int Stop() {
    if (pid_ <= 0) return -1;
    kill(pid_, SIGQUIT);
    int status = 0;
    waitpid(pid_, &status, 0);
    pid_ = -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }

 private:
  // The main context around ikd.conf: in the foreground, one process, no
  // path of the system's installation used (pid, logs, temporary files).
  std::string MainConf() const {
    constexpr char kMainConf[] = R"conf(daemon off;
master_process off;
pid DIR/nginx.pid;
error_log DIR/error.log warn;
events { worker_connections 1024; }
http {
  client_body_temp_path DIR/body;
  proxy_temp_path DIR/proxy;
  fastcgi_temp_path DIR/fastcgi;
  uwsgi_temp_path DIR/uwsgi;
  scgi_temp_path DIR/scgi;
  include DIR/ikd.conf;
}
)conf";
    return absl::StrReplaceAll(kMainConf, {{"DIR", directory_}});
  }

  bool Spawn() {
    std::vector<std::string> args = {NGINX_BINARY,
                                     "-p",
                                     directory_,
                                     "-c",
                                     directory_ + "/nginx.conf",
                                     "-e",
                                     directory_ + "/error.log"};
    std::vector<char*> argv;
    for (std::string& arg : args) argv.push_back(arg.data());
    argv.push_back(nullptr);
    const std::string stderr_path = directory_ + "/stderr.log";
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO,
                                     stderr_path.c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int spawned = posix_spawn(&pid_, args[0].c_str(), &actions, nullptr,
                                    argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    if (spawned != 0) pid_ = -1;
    return spawned == 0;
  }

  bool WaitServing() {
    for (int attempt = 0; attempt < 300; ++attempt) {
      if (waitpid(pid_, nullptr, WNOHANG) == pid_) {
        pid_ = -1;
        return false;
      }
      grpc::ChannelArguments arguments;
      arguments.SetInt("ik.test.nginx_probe", attempt);
      auto stub = grpc::health::v1::Health::NewStub(grpc::CreateCustomChannel(
          address(), grpc::InsecureChannelCredentials(), arguments));
      grpc::ClientContext context;
      context.set_deadline(std::chrono::system_clock::now() +
                           std::chrono::seconds(2));
      grpc::health::v1::HealthCheckResponse response;
      if (stub->Check(&context, grpc::health::v1::HealthCheckRequest(),
                      &response)
              .ok() &&
          response.status() == grpc::health::v1::HealthCheckResponse::SERVING) {
        return true;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return false;
  }

  std::vector<int> upstream_ports_;
  std::string directory_;
  pid_t pid_ = -1;
  int port_ = 0;
};

// What nginx's access log (ikd.conf's ikd_grpc format) says about the
// requests (the client's attempts) it passed on: per replica (host:port),
// the calls it answered (grpc-status 0) and the requests it was given; the
// requests nginx sent to more than one replica (after a connection error);
// the statuses other than OK that replicas answered, by grpc-status; and
// the UNAVAILABLEs nginx answered itself (no replica answered: ikd.conf's
// @ikd_unavailable).
struct NginxCounts {
  std::map<std::string, int64_t> answered_by_replica;
  std::map<std::string, int64_t> tries_by_replica;
  int64_t requests = 0;
  int64_t passed_on_again = 0;
  std::map<std::string, int64_t> replica_errors;
  int64_t nginx_unavailable = 0;
};

// The value of `name="..."` or `name=...` in an access-log line.
inline absl::string_view LogField(absl::string_view line,
                                  absl::string_view name) {
  const size_t at = line.find(absl::StrCat(" ", name, "="));
  if (at == absl::string_view::npos) return "";
  absl::string_view value = line.substr(at + name.size() + 2);
  if (absl::ConsumePrefix(&value, "\""))
    return value.substr(0, value.find('"'));
  return value.substr(0, value.find(' '));
}

inline NginxCounts ParseAccessLog(const std::string& log) {
  NginxCounts counts;
  for (absl::string_view line : absl::StrSplit(log, '\n', absl::SkipEmpty())) {
    if (!absl::StrContains(line, "/ik.v1.IkService/")) continue;
    ++counts.requests;
    const std::vector<std::string> tried =
        absl::StrSplit(LogField(line, "upstream"), ", ", absl::SkipEmpty());
    for (const std::string& replica : tried) ++counts.tries_by_replica[replica];
    if (tried.size() > 1) ++counts.passed_on_again;
    const absl::string_view grpc_status = LogField(line, "grpc_status");
    if (absl::StrContains(line, "\" 204 ")) {
      ++counts.nginx_unavailable;
    } else if (grpc_status != "0") {
      ++counts.replica_errors[absl::StrCat("grpc-status ", grpc_status)];
    } else if (!tried.empty()) {
      ++counts.answered_by_replica[tried.back()];
    }
  }
  return counts;
}

}  // namespace ik::testing

#endif  // IK_TESTS_E2E_NGINX_PROCESS_H_
