// Failover of real ikd replicas under steady load, as a client with a retry
// policy sees it. Three replicas serve while several threads call
// SolveChain back to back, each call with a deadline; one replica is
// drained (SIGTERM), then another is killed (SIGKILL), and the load goes on
// on the replica left. The client's gRPC service config (kServiceConfig,
// the one deploy/README.md gives) balances with round_robin and retries, on
// another replica, UNAVAILABLE -- what a draining replica answers, and what
// a call in flight on a killed replica ends with -- and CANCELLED, what
// gRPC's server answers a call that reaches a replica in the moment it
// shuts gRPC down (kServiceConfig says more).
//
// Checked two ways: client-side round_robin over the three addresses, and
// one address with a real nginx in front (deploy/nginx/ikd.conf, filled in
// with the replicas' ports). Either way every call the application makes
// succeeds, with the same answer whichever replica gave it; every replica
// answered calls before the failures, and the replicas left answer the load
// after each. The attempts behind the calls are counted by gRPC's channelz
// (and nginx's access log) and printed; they are not asserted, since how
// many calls a failure catches in flight depends on timing.
#include <arpa/inet.h>
#include <fcntl.h>
#include <google/protobuf/struct.pb.h>
#include <google/protobuf/util/json_util.h>
#include <grpc/grpc.h>
#include <grpc/support/alloc.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "absl/synchronization/mutex.h"
#include "gtest/gtest.h"
#include "ik/v1/ik.grpc.pb.h"
#include "tests/e2e/ikd_process.h"

#ifndef NGINX_BINARY
#error "NGINX_BINARY must name the nginx binary"
#endif
#ifndef IKD_NGINX_CONF
#error "IKD_NGINX_CONF must name deploy/nginx/ikd.conf"
#endif

namespace ik {
namespace {

using ::grpc::health::v1::HealthCheckResponse;
using ::ik::testing::IkdProcess;

// The client's service config: round_robin over every address the target
// resolves to, and up to 5 attempts of any IkService call answered
// UNAVAILABLE or CANCELLED, the retries up to 0.1, 0.2, 0.4, 0.8 s apart
// (randomised). deploy/README.md gives the same.
//
// CANCELLED: a draining ikd answers UNAVAILABLE until its calls are done,
// then shuts gRPC down, which sends the clients a GOAWAY; a call that
// reaches it after that and before the client has read the GOAWAY is
// dropped by gRPC 1.51's server before ikd sees it (a "zombie" call), and
// the client gets CANCELLED. Retrying it is safe: a client's own
// cancellation is never retried; ikd's other CANCELLED answers are a call
// cancelled before it ran, and a call still running when a drain's grace
// ends, which another replica then runs again -- and every IkService call
// may run twice (solving is a pure function, registering the same content
// again changes nothing, replicas keep no state for each other).
constexpr char kServiceConfig[] = R"json({
  "loadBalancingConfig": [{"round_robin": {}}],
  "methodConfig": [{
    "name": [{"service": "ik.v1.IkService"}],
    "retryPolicy": {
      "maxAttempts": 5,
      "initialBackoff": "0.1s",
      "maxBackoff": "1s",
      "backoffMultiplier": 2,
      "retryableStatusCodes": ["UNAVAILABLE", "CANCELLED"]
    }
  }]
})json";

constexpr int kReplicas = 3;
constexpr int kClientThreads = 4;
// Calls each replica that should serve must answer in each phase: enough
// that the load is steady when the next failure comes.
constexpr int64_t kCallsPerPhase = 1000;
// Generous for a loaded CI machine: a call answers in a millisecond.
constexpr auto kCallDeadline = std::chrono::seconds(10);

// Where SolveChain's goal goes: reachable targets of the humanoid's left arm.
constexpr double kTargets[][3] = {
    {0.45, 1.20, 0.15}, {0.40, 1.25, 0.20}, {0.50, 1.10, 0.10},
    {0.35, 1.30, 0.25}, {0.42, 1.15, 0.30}, {0.48, 1.22, 0.05},
};
constexpr int kTargetCount = sizeof(kTargets) / sizeof(kTargets[0]);

v1::SolveChainRequest SolveRequest(int target) {
  v1::SolveChainRequest request;
  request.set_rig("humanoid");
  v1::ChainGoal* goal = request.add_goals();
  goal->set_chain("left_arm");
  goal->mutable_target()->set_x(kTargets[target][0]);
  goal->mutable_target()->set_y(kTargets[target][1]);
  goal->mutable_target()->set_z(kTargets[target][2]);
  return request;
}

// A channel with kServiceConfig and subchannels of its own (so channelz
// counts only its attempts).
std::shared_ptr<grpc::Channel> RetryingChannel(const std::string& target) {
  grpc::ChannelArguments arguments;
  arguments.SetServiceConfigJSON(kServiceConfig);
  arguments.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
  return grpc::CreateCustomChannel(target, grpc::InsecureChannelCredentials(),
                                   arguments);
}

// "ipv4:127.0.0.1:5000" (a peer or channelz address) -> "127.0.0.1:5000".
std::string HostPort(absl::string_view uri) {
  absl::ConsumePrefix(&uri, "ipv4:");
  return std::string(uri);
}

// ---------------------------------------------------------------------------
// The load: SolveChain back to back from several threads on one channel.

class SteadyLoad {
 public:
  // `expected[i]`: the answer to SolveRequest(i), byte for byte.
  SteadyLoad(std::shared_ptr<grpc::Channel> channel,
             std::vector<std::string> expected)
      : stub_(v1::IkService::NewStub(channel)), expected_(std::move(expected)) {
    for (int i = 0; i < kClientThreads; ++i) {
      threads_.emplace_back([this, i] { CallUntilStopped(i); });
    }
  }
  ~SteadyLoad() { Stop(); }

  // What is happening to the replicas now; named in failures.
  void SetPhase(const char* phase) { phase_ = phase; }

  void Stop() {
    stop_ = true;
    for (std::thread& thread : threads_) thread.join();
    threads_.clear();
  }

  // Calls answered so far, by the peer (host:port) that answered them.
  std::map<std::string, int64_t> AnsweredByPeer() const {
    absl::MutexLock lock(&mutex_);
    return answered_by_peer_;
  }
  int64_t calls() const {
    absl::MutexLock lock(&mutex_);
    return calls_;
  }
  // Calls that failed or answered differently, described.
  std::vector<std::string> failures() const {
    absl::MutexLock lock(&mutex_);
    return failures_;
  }

 private:
  void CallUntilStopped(int thread) {
    for (int call = 0; !stop_; ++call) {
      const int target = (thread + call) % kTargetCount;
      grpc::ClientContext context;
      context.set_deadline(std::chrono::system_clock::now() + kCallDeadline);
      v1::SolveChainResponse response;
      const grpc::Status status =
          stub_->SolveChain(&context, SolveRequest(target), &response);
      const std::string peer = HostPort(context.peer());
      absl::MutexLock lock(&mutex_);
      ++calls_;
      if (!status.ok()) {
        failures_.push_back(absl::StrCat(status.error_code(), ": ",
                                         status.error_message(), " (", peer,
                                         ", ", phase_.load(), ")"));
      } else if (response.SerializeAsString() != expected_[target]) {
        failures_.push_back(absl::StrCat("a different answer from ", peer, ": ",
                                         response.ShortDebugString()));
      } else {
        ++answered_by_peer_[peer];
      }
    }
  }

  std::unique_ptr<v1::IkService::Stub> stub_;
  const std::vector<std::string> expected_;
  std::atomic<bool> stop_{false};
  std::atomic<const char*> phase_{"all serving"};
  std::vector<std::thread> threads_;
  mutable absl::Mutex mutex_;
  int64_t calls_ ABSL_GUARDED_BY(mutex_) = 0;
  std::map<std::string, int64_t> answered_by_peer_ ABSL_GUARDED_BY(mutex_);
  std::vector<std::string> failures_ ABSL_GUARDED_BY(mutex_);
};

// ---------------------------------------------------------------------------
// Attempts, as gRPC's channelz counts them: a channel's calls are the
// application's, its subchannels' calls are the attempts (retries
// included), one subchannel per address.

struct CallCounts {
  int64_t started = 0;
  int64_t succeeded = 0;
  int64_t failed = 0;
};

struct ChannelCounts {
  CallCounts calls;
  std::map<std::string, CallCounts> attempts_by_address;  // host:port
};

// Channelz's JSON (int64 values are strings; zero counts are left out).
google::protobuf::Struct ParseChannelz(char* json) {
  google::protobuf::Struct parsed;
  if (json != nullptr) {
    EXPECT_TRUE(google::protobuf::util::JsonStringToMessage(json, &parsed).ok())
        << json;
    gpr_free(json);
  }
  return parsed;
}

const google::protobuf::Value& Field(const google::protobuf::Struct& object,
                                     const std::string& name) {
  static const google::protobuf::Value* const kNull =
      new google::protobuf::Value();
  auto found = object.fields().find(name);
  return found == object.fields().end() ? *kNull : found->second;
}

int64_t Count(const google::protobuf::Struct& data, const std::string& name) {
  const google::protobuf::Value& value = Field(data, name);
  if (value.has_number_value())
    return static_cast<int64_t>(value.number_value());
  int64_t count = 0;
  if (value.has_string_value()) absl::SimpleAtoi(value.string_value(), &count);
  return count;
}

CallCounts Counts(const google::protobuf::Struct& data) {
  return {Count(data, "callsStarted"), Count(data, "callsSucceeded"),
          Count(data, "callsFailed")};
}

// The counts of the channel created for `target` (the first such channel).
ChannelCounts ChannelzCounts(const std::string& target) {
  ChannelCounts counts;
  const google::protobuf::Struct top =
      ParseChannelz(grpc_channelz_get_top_channels(0));
  for (const google::protobuf::Value& channel :
       Field(top, "channel").list_value().values()) {
    const google::protobuf::Struct& data =
        Field(channel.struct_value(), "data").struct_value();
    if (Field(data, "target").string_value() != target) continue;
    counts.calls = Counts(data);
    for (const google::protobuf::Value& ref :
         Field(channel.struct_value(), "subchannelRef").list_value().values()) {
      int64_t id = 0;
      if (!absl::SimpleAtoi(
              Field(ref.struct_value(), "subchannelId").string_value(), &id)) {
        continue;
      }
      const google::protobuf::Struct subchannel =
          ParseChannelz(grpc_channelz_get_subchannel(id));
      const google::protobuf::Struct& sub_data =
          Field(Field(subchannel, "subchannel").struct_value(), "data")
              .struct_value();
      counts.attempts_by_address[HostPort(
          Field(sub_data, "target").string_value())] = Counts(sub_data);
    }
    break;
  }
  return counts;
}

void PrintChannelCounts(const char* label, const ChannelCounts& counts) {
  int64_t attempts = 0;
  for (const auto& [address, attempt] : counts.attempts_by_address) {
    attempts += attempt.started;
    std::printf("  %s: attempts to %s: %lld (succeeded %lld, failed %lld)\n",
                label, address.c_str(), static_cast<long long>(attempt.started),
                static_cast<long long>(attempt.succeeded),
                static_cast<long long>(attempt.failed));
  }
  std::printf(
      "  %s: calls %lld (succeeded %lld, failed %lld), attempts %lld: "
      "%lld beyond the first of each call\n",
      label, static_cast<long long>(counts.calls.started),
      static_cast<long long>(counts.calls.succeeded),
      static_cast<long long>(counts.calls.failed),
      static_cast<long long>(attempts),
      static_cast<long long>(attempts - counts.calls.started));
}

// ---------------------------------------------------------------------------
// nginx: Debian's binary, deploy/nginx/ikd.conf filled in.

// A free loopback port now (nothing holds it after the call returns).
int FreePort() {
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

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// deploy/nginx/ikd.conf with the replicas' ports, the listener on
// 127.0.0.1:`port` and the logs in `directory`; empty (and `error` says
// why) when the file no longer has the lines the test fills in.
std::string FillNginxConf(const std::vector<int>& upstream_ports, int port,
                          const std::string& directory, std::string* error) {
  std::string conf = ReadFile(IKD_NGINX_CONF);
  std::vector<std::pair<std::string, std::string>> fills = {
      {"listen 50050 http2;",
       absl::StrCat("listen 127.0.0.1:", port, " http2;")},
      {"/var/log/nginx/", directory + "/"}};
  for (int i = 0; i < kReplicas; ++i) {
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
          response.status() == HealthCheckResponse::SERVING) {
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
absl::string_view LogField(absl::string_view line, absl::string_view name) {
  const size_t at = line.find(absl::StrCat(" ", name, "="));
  if (at == absl::string_view::npos) return "";
  absl::string_view value = line.substr(at + name.size() + 2);
  if (absl::ConsumePrefix(&value, "\""))
    return value.substr(0, value.find('"'));
  return value.substr(0, value.find(' '));
}

NginxCounts ParseAccessLog(const std::string& log) {
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

// ---------------------------------------------------------------------------
// The scenario, whichever way the client reaches the replicas.

using AnsweredFn = std::function<std::map<std::string, int64_t>()>;

std::vector<std::unique_ptr<IkdProcess>> StartReplicas() {
  std::vector<std::unique_ptr<IkdProcess>> replicas;
  for (int i = 0; i < kReplicas; ++i) {
    replicas.push_back(std::make_unique<IkdProcess>(std::vector<std::string>{
        "--solver_threads=1", "--shutdown_grace_seconds=8"}));
    if (!replicas.back()->Start()) {
      ADD_FAILURE() << "replica " << i << " did not start\n"
                    << replicas.back()->Log();
      return {};
    }
  }
  return replicas;
}

// The answer to SolveRequest(i), byte for byte, from `replica` directly.
std::vector<std::string> ExpectedAnswers(const IkdProcess& replica) {
  auto stub = v1::IkService::NewStub(replica.Channel(7));
  std::vector<std::string> expected;
  for (int i = 0; i < kTargetCount; ++i) {
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + kCallDeadline);
    v1::SolveChainResponse response;
    const grpc::Status status =
        stub->SolveChain(&context, SolveRequest(i), &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
    EXPECT_EQ(response.results_size(), 1);
    expected.push_back(response.SerializeAsString());
  }
  return expected;
}

// Waits (at most 60 s) until each replica in `serving` has answered at
// least kCallsPerPhase calls more than in `before`.
bool EachAnswers(const AnsweredFn& answered,
                 const std::map<std::string, int64_t>& before,
                 const std::vector<std::string>& serving) {
  for (int poll = 0; poll < 3000; ++poll) {
    const std::map<std::string, int64_t> now = answered();
    bool enough = true;
    for (const std::string& replica : serving) {
      auto was = before.find(replica);
      const int64_t since = (now.count(replica) ? now.at(replica) : 0) -
                            (was == before.end() ? 0 : was->second);
      enough = enough && since >= kCallsPerPhase;
    }
    if (enough) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

std::string Describe(const std::map<std::string, int64_t>& counts) {
  return absl::StrJoin(counts, ", ", absl::PairFormatter(": "));
}

// Under the running load: all replicas answer; replica 0 is drained and
// exits 0, and the other two answer; replica 1 is killed, and replica 2
// answers. `answered`: calls answered so far per replica (host:port).
void DrainOneThenKillOne(std::vector<std::unique_ptr<IkdProcess>>& replicas,
                         SteadyLoad& load, const AnsweredFn& answered) {
  std::vector<std::string> serving;
  for (const auto& replica : replicas) serving.push_back(replica->address());

  ASSERT_TRUE(EachAnswers(answered, {}, serving))
      << "not every replica answered calls: " << Describe(answered());
  std::printf("  all %d replicas serving: answered %s\n", kReplicas,
              Describe(answered()).c_str());

  std::map<std::string, int64_t> before = answered();
  load.SetPhase("draining");
  replicas[0]->Signal(SIGTERM);
  EXPECT_EQ(replicas[0]->Wait(), 0) << replicas[0]->Log();
  load.SetPhase("drained");
  serving.erase(serving.begin());
  ASSERT_TRUE(EachAnswers(answered, before, serving))
      << "after the drain: " << Describe(answered());
  std::printf("  replica %s drained (SIGTERM, exit 0): answered %s\n",
              replicas[0]->address().c_str(), Describe(answered()).c_str());

  before = answered();
  load.SetPhase("killing");
  replicas[1]->Signal(SIGKILL);
  EXPECT_EQ(replicas[1]->Wait(), 128 + SIGKILL);
  load.SetPhase("killed");
  serving.erase(serving.begin());
  ASSERT_TRUE(EachAnswers(answered, before, serving))
      << "after the kill: " << Describe(answered());
  std::printf("  replica %s killed (SIGKILL): answered %s\n",
              replicas[1]->address().c_str(), Describe(answered()).c_str());
}

void ExpectNoFailures(const SteadyLoad& load) {
  const std::vector<std::string> failures = load.failures();
  EXPECT_TRUE(failures.empty())
      << failures.size() << " of " << load.calls()
      << " calls failed; the first: "
      << absl::StrJoin(failures.begin(),
                       failures.begin() + std::min<size_t>(failures.size(), 10),
                       "\n");
  std::printf("  application: %lld calls, %zu failed\n",
              static_cast<long long>(load.calls()), failures.size());
}

TEST(FailoverE2eTest, RoundRobinWithRetriesHidesADrainAndAKill) {
  std::vector<std::unique_ptr<IkdProcess>> replicas = StartReplicas();
  ASSERT_EQ(replicas.size(), kReplicas);
  const std::vector<std::string> expected = ExpectedAnswers(*replicas[0]);

  std::vector<std::string> addresses;
  for (const auto& replica : replicas) addresses.push_back(replica->address());
  const std::string target =
      absl::StrCat("ipv4:", absl::StrJoin(addresses, ","));
  SteadyLoad load(RetryingChannel(target), expected);
  DrainOneThenKillOne(replicas, load,
                      [&load] { return load.AnsweredByPeer(); });
  load.Stop();

  ExpectNoFailures(load);
  const ChannelCounts counts = ChannelzCounts(target);
  PrintChannelCounts("round_robin", counts);
  EXPECT_EQ(counts.calls.started, load.calls());
  EXPECT_EQ(counts.calls.failed, 0);
}

TEST(FailoverE2eTest, NginxWithClientRetriesHidesADrainAndAKill) {
  std::vector<std::unique_ptr<IkdProcess>> replicas = StartReplicas();
  ASSERT_EQ(replicas.size(), kReplicas);
  const std::vector<std::string> expected = ExpectedAnswers(*replicas[0]);

  std::vector<int> ports;
  for (const auto& replica : replicas) ports.push_back(replica->port());
  NginxProcess nginx(ports);
  std::string error;
  ASSERT_TRUE(nginx.Start(&error)) << error;

  const std::string target = nginx.address();
  SteadyLoad load(RetryingChannel(target), expected);
  DrainOneThenKillOne(replicas, load, [&nginx] {
    return ParseAccessLog(nginx.AccessLog()).answered_by_replica;
  });
  load.Stop();

  ExpectNoFailures(load);
  const ChannelCounts counts = ChannelzCounts(target);
  PrintChannelCounts("through nginx", counts);
  EXPECT_EQ(counts.calls.started, load.calls());
  EXPECT_EQ(counts.calls.failed, 0);
  const NginxCounts seen = ParseAccessLog(nginx.AccessLog());
  const std::string replica_errors =
      seen.replica_errors.empty() ? "none" : Describe(seen.replica_errors);
  std::printf(
      "  nginx: %lld requests; %lld sent to a second replica after a "
      "connection error; answered by replicas other than OK: %s; "
      "UNAVAILABLE from nginx itself: %lld\n",
      static_cast<long long>(seen.requests),
      static_cast<long long>(seen.passed_on_again), replica_errors.c_str(),
      static_cast<long long>(seen.nginx_unavailable));
  std::printf("  nginx: requests by replica: %s\n",
              Describe(seen.tries_by_replica).c_str());
  EXPECT_EQ(nginx.Stop(), 0) << nginx.Log();
  if (::testing::Test::HasFailure()) {
    std::printf("nginx's log:\n%s\n", nginx.Log().c_str());
    std::printf("nginx's access log, other than OK:\n");
    for (absl::string_view line :
         absl::StrSplit(nginx.AccessLog(), '\n', absl::SkipEmpty())) {
      if (!absl::StrContains(line, "grpc_status=0 ")) {
        std::printf("%s\n", std::string(line).c_str());
      }
    }
  }
}

}  // namespace
}  // namespace ik
