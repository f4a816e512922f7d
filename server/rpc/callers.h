// Who a call is, for the solver pool: fair shares go to callers, not to
// connections, so a caller cannot multiply its share by opening more.
//
//   1. With tokens (--token_file): the caller's token, named by its place in
//      the file ("token 3"), never by its text.
//   2. From a trusted proxy (--trusted_proxies lists its address): the
//      client address the proxy wrote last into `x-forwarded-for`
//      ("addr 203.0.113.9"); nginx: `grpc_set_header X-Forwarded-For
//      $remote_addr;`. From any other peer the header is ignored.
//   3. Otherwise the peer's address without its port ("addr 10.0.0.7").
//   4. A peer that is not an IP address (a Unix socket): its connection.
//
//   Callers callers(tokens, {"10.0.0.2"});
//   std::string caller = callers.Of(*context);
#ifndef IK_SERVER_RPC_CALLERS_H_
#define IK_SERVER_RPC_CALLERS_H_

#include <grpcpp/grpcpp.h>

#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/string_view.h"
#include "ops/access_tokens.h"

namespace ik::server {

// "ipv4:10.0.0.7:51234" -> "10.0.0.7", "ipv6:[::1]:50051" -> "::1"; empty
// for a peer that is not an IP address and port.
std::string PeerAddress(absl::string_view peer);

class Callers {
 public:
  // `tokens` (null: none) must outlive this; `trusted_proxies`: addresses
  // as PeerAddress gives them.
  Callers(const AccessTokens* tokens, std::vector<std::string> trusted_proxies);

  // The caller of a call with `peer` (grpc::ServerContext::peer()) and its
  // client metadata's `authorization` and `x-forwarded-for` values (empty
  // when absent).
  std::string Of(absl::string_view peer, absl::string_view authorization,
                 absl::string_view forwarded_for) const;
  std::string Of(const grpc::CallbackServerContext& context) const;

 private:
  const AccessTokens* tokens_;
  absl::flat_hash_set<std::string> trusted_proxies_;
};

}  // namespace ik::server

#endif  // IK_SERVER_RPC_CALLERS_H_
