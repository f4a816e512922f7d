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
#include <grpc/grpc.h>
#include <signal.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "channelz_counts.h"
#include "gtest/gtest.h"
#include "ik/v1/ik.grpc.pb.h"
#include "ikd_process.h"
#include "nginx_process.h"

namespace ik {
namespace {

using ::ik::testing::ChannelCounts;
using ::ik::testing::ChannelzCounts;
using ::ik::testing::HostPort;
using ::ik::testing::IkdProcess;
using ::ik::testing::NginxCounts;
using ::ik::testing::NginxProcess;
using ::ik::testing::ParseAccessLog;
using ::ik::testing::PrintChannelCounts;

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

// Every call of the application succeeded, and gRPC's own count on the
// channel to `target` (channelz; `label` names it in the printout) agrees:
// its retries hid every failure.
void ExpectNoFailures(const SteadyLoad& load, const std::string& target,
                      const char* label) {
  const std::vector<std::string> failures = load.failures();
  EXPECT_TRUE(failures.empty())
      << failures.size() << " of " << load.calls()
      << " calls failed; the first: "
      << absl::StrJoin(failures.begin(),
                       failures.begin() + std::min<size_t>(failures.size(), 10),
                       "\n");
  std::printf("  application: %lld calls, %zu failed\n",
              static_cast<long long>(load.calls()), failures.size());
  const ChannelCounts counts = ChannelzCounts(target);
  PrintChannelCounts(label, counts);
  EXPECT_EQ(counts.calls.started, load.calls());
  EXPECT_EQ(counts.calls.failed, 0);
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

  ExpectNoFailures(load, target, "round_robin");
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

  ExpectNoFailures(load, target, "through nginx");
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
