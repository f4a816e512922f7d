// ConnectionActivity: the keys the listener and gRPC's peer names give for
// the same connection agree, and idle connections are taken longest idle
// first, never one with a call in flight.
#include "ops/connection_activity.h"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <cstdint>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace ik::server {
namespace {

sockaddr_storage V4(const char* address, int port) {
  sockaddr_storage storage{};
  auto& v4 = reinterpret_cast<sockaddr_in&>(storage);
  v4.sin_family = AF_INET;
  v4.sin_port = htons(static_cast<std::uint16_t>(port));
  inet_pton(AF_INET, address, &v4.sin_addr);
  return storage;
}

sockaddr_storage V6(const char* address, int port) {
  sockaddr_storage storage{};
  auto& v6 = reinterpret_cast<sockaddr_in6&>(storage);
  v6.sin6_family = AF_INET6;
  v6.sin6_port = htons(static_cast<std::uint16_t>(port));
  inet_pton(AF_INET6, address, &v6.sin6_addr);
  return storage;
}

TEST(ConnectionActivityTest, SocketAddressesAndPeerNamesGiveTheSameKeys) {
  EXPECT_EQ(ConnectionActivity::KeyOf(V4("10.0.0.7", 51234)),
            ConnectionActivity::KeyOf("ipv4:10.0.0.7:51234"));
  EXPECT_EQ(ConnectionActivity::KeyOf(V6("2001:db8::1", 443)),
            ConnectionActivity::KeyOf("ipv6:[2001:db8::1]:443"));
  // An IPv4 client on an IPv6 socket is its IPv4 address, however named.
  EXPECT_EQ(ConnectionActivity::KeyOf(V6("::ffff:10.0.0.7", 9)),
            ConnectionActivity::KeyOf("ipv4:10.0.0.7:9"));
  EXPECT_EQ(ConnectionActivity::KeyOf("ipv6:[::ffff:10.0.0.7]:9"),
            ConnectionActivity::KeyOf("ipv4:10.0.0.7:9"));
  // Port and address both tell connections apart.
  EXPECT_NE(ConnectionActivity::KeyOf("ipv4:10.0.0.7:1"),
            ConnectionActivity::KeyOf("ipv4:10.0.0.7:2"));
  EXPECT_NE(ConnectionActivity::KeyOf("ipv4:10.0.0.7:1"),
            ConnectionActivity::KeyOf("ipv4:10.0.0.8:1"));
  for (const char* other :
       {"", "unix:/tmp/ikd.sock", "ipv4:10.0.0.7", "ipv4:10.0.0.7:65536",
        "ipv4:10.0.0.7:x", "ipv4:10.0.0:1", "ipv6:::1:5", "ipv6:[::1:5",
        "ipv4:[10.0.0.7]:1", "in-process"}) {
    EXPECT_EQ(ConnectionActivity::KeyOf(other), "") << other;
  }
  sockaddr_storage unix_socket{};
  unix_socket.ss_family = AF_UNIX;
  EXPECT_EQ(ConnectionActivity::KeyOf(unix_socket), "");
}

std::string KeyOfPort(int port) {
  return ConnectionActivity::KeyOf(absl::StrCat("ipv4:127.0.0.1:", port));
}

TEST(ConnectionActivityTest, TakesTheLongestIdleBeyondTheBound) {
  ConnectionActivity activity;
  for (int port = 1; port <= 5; ++port) activity.Opened(KeyOfPort(port));
  // 2 calls and ends (now the most recently idle); 3 has a call in flight.
  activity.CallStarted(KeyOfPort(2));
  activity.CallEnded(KeyOfPort(2));
  activity.CallStarted(KeyOfPort(3));
  EXPECT_EQ(activity.connections(), 5);
  EXPECT_EQ(activity.idle(), 4);
  EXPECT_EQ(activity.TakeIdleBeyond(4), std::vector<std::string>());
  EXPECT_EQ(
      activity.TakeIdleBeyond(1),
      std::vector<std::string>({KeyOfPort(1), KeyOfPort(4), KeyOfPort(5)}));
  EXPECT_EQ(activity.connections(), 2);
  // A connection taken is forgotten: its calls' reports are ignored.
  activity.CallStarted(KeyOfPort(1));
  activity.CallEnded(KeyOfPort(1));
  EXPECT_EQ(activity.connections(), 2);
  // The call in flight keeps 3 from being taken even with no room at all.
  EXPECT_EQ(activity.TakeIdleBeyond(0),
            std::vector<std::string>({KeyOfPort(2)}));
  activity.CallEnded(KeyOfPort(3));
  EXPECT_EQ(activity.TakeIdleBeyond(0),
            std::vector<std::string>({KeyOfPort(3)}));
  EXPECT_EQ(activity.connections(), 0);
}

// Seeded streams of opens, closes and overlapping calls against a plain
// model: the idle count and the order taken always agree.
TEST(ConnectionActivityTest, AgreesWithAModelOverRandomEvents) {
  for (std::uint32_t seed = 1; seed <= 20; ++seed) {
    std::mt19937 random(seed);
    ConnectionActivity activity;
    struct Model {
      int in_flight = 0;
      long idle_since = 0;
    };
    std::vector<std::optional<Model>> model(16);
    long clock = 0;
    for (int step = 0; step < 2000; ++step) {
      const int port = static_cast<int>(random() % model.size());
      const std::string key = KeyOfPort(port + 1);
      std::optional<Model>& known = model[port];
      switch (random() % 6) {
        case 0:
          activity.Opened(key);
          known = Model{0, ++clock};
          break;
        case 1:
          activity.Closed(key);
          known.reset();
          break;
        case 2:
        case 3:
          activity.CallStarted(key);
          if (known.has_value()) ++known->in_flight;
          break;
        case 4:
          activity.CallEnded(key);
          if (known.has_value() && known->in_flight > 0 &&
              --known->in_flight == 0) {
            known->idle_since = ++clock;
          }
          break;
        default: {
          const int bound = static_cast<int>(random() % 6);
          std::set<std::pair<long, int>> idle;
          for (size_t i = 0; i < model.size(); ++i) {
            if (model[i].has_value() && model[i]->in_flight == 0) {
              idle.insert({model[i]->idle_since, static_cast<int>(i)});
            }
          }
          std::vector<std::string> expected;
          for (const auto& [since, i] : idle) {
            if (static_cast<int>(idle.size() - expected.size()) <= bound) break;
            expected.push_back(KeyOfPort(i + 1));
            model[i].reset();
          }
          ASSERT_EQ(activity.TakeIdleBeyond(bound), expected)
              << "seed " << seed << " step " << step;
        }
      }
      int idle = 0;
      for (const auto& one : model)
        idle += one.has_value() && one->in_flight == 0;
      ASSERT_EQ(activity.idle(), idle) << "seed " << seed << " step " << step;
    }
  }
}

}  // namespace
}  // namespace ik::server
