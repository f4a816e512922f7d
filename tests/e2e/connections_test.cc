// Connections against a real ikd process: a burst of idle TCP connections
// beyond the open-file limit (set low with prlimit), beyond
// --max_connections or beyond --max_connections_per_peer is cut off -- the
// extra connections are closed at once instead of hanging -- and once the
// burst is gone ikd accepts and answers again; sockets that connect and
// never speak are closed after --handshake_timeout_seconds; idle
// connections beyond --max_idle_connections are closed longest idle first.
// (gRPC 1.51's own listener stopped for good after running out of descriptors
// once, and held a silent socket for two minutes.)
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "ikd_process.h"

namespace ik {
namespace {

using ::grpc::health::v1::HealthCheckResponse;
using ::ik::testing::IkdProcess;

// Idle TCP connections to ikd, as a flood of clients that never speak,
// from loopback address `from` (127.0.0.1 unless said: another 127.x
// address is another peer).
class Burst {
 public:
  Burst(int port, int count, const char* from = "127.0.0.1") {
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(port);
    inet_pton(AF_INET, "127.0.0.1", &address.sin_addr);
    sockaddr_in source{};
    source.sin_family = AF_INET;
    inet_pton(AF_INET, from, &source.sin_addr);
    for (int i = 0; i < count; ++i) {
      const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
      if (fd < 0) break;
      if (bind(fd, reinterpret_cast<sockaddr*>(&source), sizeof(source)) != 0 ||
          connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) !=
              0) {
        close(fd);
        continue;
      }
      fds_.push_back(fd);
    }
  }
  ~Burst() { Close(); }

  int size() const { return static_cast<int>(fds_.size()); }

  // Whether ikd has ended each connection (end of stream or reset), in the
  // order they were opened. What ikd sent first (its HTTP/2 SETTINGS, then
  // a GOAWAY) is read and dropped.
  std::vector<bool> EndedEach() const {
    std::vector<bool> ended;
    for (int fd : fds_) {
      char bytes[512];
      ssize_t n;
      do {
        n = recv(fd, bytes, sizeof(bytes), MSG_DONTWAIT);
      } while (n > 0);
      ended.push_back(n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK));
    }
    return ended;
  }
  int Ended() const {
    int ended = 0;
    for (bool one : EndedEach()) ended += one ? 1 : 0;
    return ended;
  }

  // Waits (at most 20 s) until ikd has ended `count` of them.
  int WaitForEnded(int count) const {
    int ended = Ended();
    for (int i = 0; i < 200 && ended < count; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      ended = Ended();
    }
    return ended;
  }

  void Close() {
    for (int fd : fds_) close(fd);
    fds_.clear();
  }

 private:
  std::vector<int> fds_;
};

// Waits (at most 30 s) for a health check on a new connection to pass.
bool ServesAgain(const IkdProcess& ikd) {
  for (int attempt = 0; attempt < 60; ++attempt) {
    HealthCheckResponse::ServingStatus serving;
    if (ikd.CheckHealth(100 + attempt, &serving).ok() &&
        serving == HealthCheckResponse::SERVING) {
      return true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
  return false;
}

TEST(ConnectionsE2eTest, RunningOutOfDescriptorsDoesNotStopTheListener) {
  // 64 open files, and a connection cap above it: the burst exhausts them.
  // The silent sockets are not closed for their silence within the test.
  IkdProcess ikd({"--max_connections=1000", "--handshake_timeout_seconds=120",
                  "--solver_threads=1"},
                 {"/usr/bin/prlimit", "--nofile=64:64"});
  ASSERT_TRUE(ikd.Start()) << ikd.Log();
  {
    Burst burst(ikd.port(), 150);
    ASSERT_EQ(burst.size(), 150);
    // At least 150 - 64 (more: ikd's own descriptors and those it keeps
    // free) are ended at once.
    const int ended = burst.WaitForEnded(150 - 64);
    EXPECT_GE(ended, 150 - 64);
    std::printf("150 idle connections at a 64-file limit: %d ended by ikd\n",
                ended);
    // Meanwhile a real client is told at once, not left waiting.
    HealthCheckResponse::ServingStatus serving;
    const grpc::Status status = ikd.CheckHealth(1, &serving);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAVAILABLE)
        << status.error_message();
  }
  EXPECT_TRUE(ServesAgain(ikd)) << ikd.Log();
}

TEST(ConnectionsE2eTest, ConnectionsBeyondTheCapAreClosed) {
  IkdProcess ikd({"--max_connections=16", "--max_connections_per_peer=16",
                  "--max_idle_connections=16",
                  "--handshake_timeout_seconds=120", "--solver_threads=1"});
  ASSERT_TRUE(ikd.Start()) << ikd.Log();
  {
    Burst burst(ikd.port(), 40);
    ASSERT_EQ(burst.size(), 40);
    EXPECT_EQ(burst.WaitForEnded(24), 24);
    HealthCheckResponse::ServingStatus serving;
    const grpc::Status status = ikd.CheckHealth(1, &serving);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAVAILABLE)
        << status.error_message();
  }
  EXPECT_TRUE(ServesAgain(ikd)) << ikd.Log();
}

// One peer cannot take every slot: a burst from 127.0.0.2 beyond the
// per-peer cap is cut off while 127.0.0.1's health checks find room.
TEST(ConnectionsE2eTest, OnePeerGetsAtMostItsShareOfTheConnections) {
  IkdProcess ikd({"--max_connections=8", "--max_connections_per_peer=4",
                  "--max_idle_connections=8", "--handshake_timeout_seconds=120",
                  "--solver_threads=1"});
  ASSERT_TRUE(ikd.Start()) << ikd.Log();
  Burst burst(ikd.port(), 10, "127.0.0.2");
  ASSERT_EQ(burst.size(), 10);
  EXPECT_EQ(burst.WaitForEnded(6), 6);
  HealthCheckResponse::ServingStatus serving;
  const grpc::Status status = ikd.CheckHealth(1, &serving);
  ASSERT_TRUE(status.ok()) << status.error_message() << ikd.Log();
  EXPECT_EQ(serving, HealthCheckResponse::SERVING);
}

// Sockets that connect and never send the HTTP/2 preface are closed after
// the handshake timeout, however many slots they hold (here all of them),
// and health is served again.
TEST(ConnectionsE2eTest, SocketsThatNeverSpeakAreClosedAfterTheHandshake) {
  IkdProcess ikd({"--max_connections=4", "--max_connections_per_peer=4",
                  "--max_idle_connections=4", "--handshake_timeout_seconds=1",
                  "--solver_threads=1"});
  ASSERT_TRUE(ikd.Start()) << ikd.Log();
  Burst burst(ikd.port(), 4);
  ASSERT_EQ(burst.size(), 4);
  // WaitForEnded gives up after 20 s: gRPC's own deadline is two minutes.
  EXPECT_EQ(burst.WaitForEnded(4), 4);
  EXPECT_TRUE(ServesAgain(ikd)) << ikd.Log();
}

// Idle connections beyond --max_idle_connections are closed longest idle
// first: of ten silent sockets with room for four idle, the first six go,
// and a real client is served all the while.
TEST(ConnectionsE2eTest,
     IdleConnectionsBeyondTheBoundAreClosedLongestIdleFirst) {
  IkdProcess ikd({"--max_idle_connections=4", "--handshake_timeout_seconds=120",
                  "--solver_threads=1"});
  ASSERT_TRUE(ikd.Start()) << ikd.Log();
  Burst burst(ikd.port(), 10);
  ASSERT_EQ(burst.size(), 10);
  EXPECT_EQ(burst.WaitForEnded(6), 6);
  const std::vector<bool> ended = burst.EndedEach();
  for (int i = 0; i < 10; ++i) {
    EXPECT_EQ(ended[i], i < 6) << "connection " << i;
  }
  HealthCheckResponse::ServingStatus serving;
  const grpc::Status status = ikd.CheckHealth(1, &serving);
  ASSERT_TRUE(status.ok()) << status.error_message() << ikd.Log();
  EXPECT_EQ(serving, HealthCheckResponse::SERVING);
}

// A connection with a call in flight is not idle, however old: a health
// Watch stays open through a burst beyond the bound (its deadline ends it,
// not its connection). Of the idle ones -- a channel whose call has ended
// and four silent sockets, two allowed -- the two longest idle sockets go,
// then whichever of the channel and the third socket became idle first
// (the server ends the channel's call a moment after answering it).
TEST(ConnectionsE2eTest, ACallInFlightKeepsItsConnection) {
  IkdProcess ikd({"--max_idle_connections=2", "--handshake_timeout_seconds=120",
                  "--solver_threads=1"});
  ASSERT_TRUE(ikd.Start()) << ikd.Log();
  auto watching = ikd.Channel(1);
  grpc::ClientContext watch;
  watch.set_deadline(std::chrono::system_clock::now() +
                     std::chrono::seconds(8));
  auto watcher = grpc::health::v1::Health::NewStub(watching)->Watch(
      &watch, grpc::health::v1::HealthCheckRequest());
  HealthCheckResponse response;
  ASSERT_TRUE(watcher->Read(&response));
  EXPECT_EQ(response.status(), HealthCheckResponse::SERVING);

  auto called = ikd.Channel(2);
  {
    grpc::ClientContext context;
    HealthCheckResponse answer;
    ASSERT_TRUE(
        grpc::health::v1::Health::NewStub(called)
            ->Check(&context, grpc::health::v1::HealthCheckRequest(), &answer)
            .ok());
  }
  ASSERT_EQ(called->GetState(false), GRPC_CHANNEL_READY);

  Burst burst(ikd.port(), 4);
  ASSERT_EQ(burst.size(), 4);
  EXPECT_GE(burst.WaitForEnded(2), 2);
  // Three of the five idle close: wait (at most 5 s) for the third.
  bool channel_closed = false;
  std::vector<bool> ended = burst.EndedEach();
  for (int i = 0; i < 50 && !channel_closed && !ended[2]; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    channel_closed = called->GetState(false) != GRPC_CHANNEL_READY;
    ended = burst.EndedEach();
  }
  EXPECT_TRUE(ended[0] && ended[1]);
  EXPECT_NE(channel_closed, static_cast<bool>(ended[2]));
  EXPECT_FALSE(ended[3]);

  EXPECT_FALSE(watcher->Read(&response));
  EXPECT_EQ(watcher->Finish().error_code(),
            grpc::StatusCode::DEADLINE_EXCEEDED);
}

}  // namespace
}  // namespace ik
