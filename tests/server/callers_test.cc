// Who a call is for the solver pool's turns (rpc/callers.h): the token
// (never its text) when tokens are on, else the client a trusted proxy
// names last in x-forwarded-for, else the peer address without its port.
#include "rpc/callers.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ops/access_tokens.h"

namespace ik::server {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

TEST(PeerAddressTest, LeavesOutThePort) {
  EXPECT_EQ(PeerAddress("ipv4:10.0.0.7:51234"), "10.0.0.7");
  EXPECT_EQ(PeerAddress("ipv6:[::1]:50051"), "::1");
  EXPECT_EQ(PeerAddress("ipv6:[2001:db8::5]:1"), "2001:db8::5");
  EXPECT_EQ(PeerAddress("unix:/run/ikd.sock"), "");
  EXPECT_EQ(PeerAddress("ipv6:::1:5"), "");
  EXPECT_EQ(PeerAddress(""), "");
}

TEST(CallersTest, ConnectionsOfOneAddressAreOneCaller) {
  const Callers callers(nullptr, {});
  EXPECT_EQ(callers.Of("ipv4:10.0.0.7:51234", "", ""), "addr 10.0.0.7");
  EXPECT_EQ(callers.Of("ipv4:10.0.0.7:40000", "", ""), "addr 10.0.0.7");
  EXPECT_NE(callers.Of("ipv4:10.0.0.8:40000", "", ""), "addr 10.0.0.7");
  EXPECT_EQ(callers.Of("ipv6:[::1]:3", "", ""), "addr ::1");
  // Not an IP address: the connection.
  EXPECT_EQ(callers.Of("unix:/run/ikd.sock", "", ""), "unix:/run/ikd.sock");
}

TEST(CallersTest, OnlyATrustedProxyNamesTheClientAndOnlyItsLastEntry) {
  const Callers callers(nullptr, {"10.0.0.2", "::1"});
  // From the proxy: the entry it wrote, the last.
  EXPECT_EQ(callers.Of("ipv4:10.0.0.2:5000", "", "203.0.113.9"),
            "addr 203.0.113.9");
  EXPECT_EQ(callers.Of("ipv4:10.0.0.2:5000", "", "1.2.3.4, 203.0.113.9 "),
            "addr 203.0.113.9");
  EXPECT_EQ(callers.Of("ipv6:[::1]:5000", "", "198.51.100.1"),
            "addr 198.51.100.1");
  // Without the header, the proxy itself.
  EXPECT_EQ(callers.Of("ipv4:10.0.0.2:5000", "", ""), "addr 10.0.0.2");
  EXPECT_EQ(callers.Of("ipv4:10.0.0.2:5000", "", " , "), "addr 10.0.0.2");
  // Anyone else's header is ignored.
  EXPECT_EQ(callers.Of("ipv4:10.0.0.3:5000", "", "203.0.113.9"),
            "addr 10.0.0.3");
}

TEST(CallersTest, ATokenIsItsCallerWhereverItComesFromNamedByItsPlace) {
  const std::string first = "first-token-0123456789";
  const std::string second = "second-token-0123456789";
  auto tokens = AccessTokens::Parse(
      "read " + first + "\nadmin " + second + "\n", "tokens");
  ASSERT_TRUE(tokens.ok()) << tokens.status();
  const Callers callers(&*tokens, {"10.0.0.2"});
  EXPECT_EQ(callers.Of("ipv4:10.0.0.7:1", "Bearer " + first, ""), "token 1");
  EXPECT_EQ(callers.Of("ipv4:10.0.0.8:2", "Bearer " + first, ""), "token 1");
  EXPECT_EQ(callers.Of("ipv4:10.0.0.2:3", "Bearer " + second, "203.0.113.9"),
            "token 2");
  for (const std::string& caller :
       {callers.Of("ipv4:10.0.0.7:1", "Bearer " + first, ""),
        callers.Of("ipv4:10.0.0.7:1", "Bearer " + second, "")}) {
    EXPECT_THAT(caller, Not(HasSubstr("token-")));
  }
  // An unknown or malformed token (refused by the token check anyway):
  // the address.
  EXPECT_EQ(callers.Of("ipv4:10.0.0.7:1", "Bearer unknown-0123456789abc", ""),
            "addr 10.0.0.7");
  EXPECT_EQ(callers.Of("ipv4:10.0.0.7:1", first, ""), "addr 10.0.0.7");
}

}  // namespace
}  // namespace ik::server
