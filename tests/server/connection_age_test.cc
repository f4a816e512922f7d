// --max_connection_age: a client's connection is asked to go once it is
// older, and the next call arrives on a new one -- seen in the access log
// as a new client port -- with no call failing.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "google/protobuf/struct.pb.h"
#include "google/protobuf/util/json_util.h"
#include "gtest/gtest.h"
#include "ik/client.h"
#include "server.h"

namespace ik::server {
namespace {

// The peers of the access log's lines, in order.
std::vector<std::string> Peers(const std::string& path) {
  std::vector<std::string> peers;
  std::ifstream file(path);
  for (std::string line; std::getline(file, line);) {
    google::protobuf::Struct parsed;
    if (google::protobuf::util::JsonStringToMessage(line, &parsed).ok()) {
      peers.push_back(parsed.fields().at("peer").string_value());
    }
  }
  return peers;
}

TEST(ConnectionAgeTest, OldConnectionsAreReplacedWithoutFailingCalls) {
  const std::string log =
      ::testing::TempDir() + "/ikd-age-" + std::to_string(getpid()) + ".jsonl";
  std::remove(log.c_str());
  ServerOptions options;
  options.listen = "127.0.0.1:0";
  options.access_log = log;
  options.max_connection_age = absl::Seconds(1);
  auto server = IkServer::Start(options);
  ASSERT_TRUE(server.ok()) << server.status();
  ClientOptions client_options;
  client_options.target = absl::StrCat("127.0.0.1:", (*server)->port());
  Client client(client_options);
  // Calls over 4 s (gRPC adds up to 10 % jitter to the age): every one
  // answered, and more than one connection carried them.
  for (int i = 0; i < 16; ++i) {
    ASSERT_TRUE(client.ListRigs().ok()) << "call " << i;
    absl::SleepFor(absl::Milliseconds(250));
  }
  std::vector<std::string> peers = Peers(log);
  ASSERT_EQ(peers.size(), 16u);
  std::sort(peers.begin(), peers.end());
  peers.erase(std::unique(peers.begin(), peers.end()), peers.end());
  EXPECT_GE(peers.size(), 2u);
  std::remove(log.c_str());
}

}  // namespace
}  // namespace ik::server
