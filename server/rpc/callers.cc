#include "rpc/callers.h"

#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"

namespace ik::server {
namespace {

// The value of `key` in `metadata`, empty when absent.
absl::string_view Metadata(
    const std::multimap<grpc::string_ref, grpc::string_ref>& metadata,
    const char* key) {
  auto found = metadata.find(key);
  if (found == metadata.end()) return absl::string_view();
  return absl::string_view(found->second.data(), found->second.size());
}

}  // namespace

std::string PeerAddress(absl::string_view peer) {
  if (absl::ConsumePrefix(&peer, "ipv6:")) {
    if (!absl::ConsumePrefix(&peer, "[")) return std::string();
    const size_t end = peer.find(']');
    if (end == absl::string_view::npos) return std::string();
    return std::string(peer.substr(0, end));
  }
  if (!absl::ConsumePrefix(&peer, "ipv4:")) return std::string();
  const size_t colon = peer.rfind(':');
  return std::string(peer.substr(0, colon));
}

Callers::Callers(const AccessTokens* tokens,
                 std::vector<std::string> trusted_proxies)
    : tokens_(tokens),
      trusted_proxies_(std::make_move_iterator(trusted_proxies.begin()),
                       std::make_move_iterator(trusted_proxies.end())) {}

std::string Callers::Of(absl::string_view peer, absl::string_view authorization,
                        absl::string_view forwarded_for) const {
  if (tokens_ != nullptr) {
    std::string caller = tokens_->CallerOf(authorization);
    if (!caller.empty()) return caller;
  }
  const std::string address = PeerAddress(peer);
  if (address.empty()) return std::string(peer);
  if (!forwarded_for.empty() && trusted_proxies_.contains(address)) {
    // The last entry is the one the proxy wrote; the ones before it are
    // the client's to claim.
    const size_t comma = forwarded_for.rfind(',');
    const absl::string_view client = absl::StripAsciiWhitespace(
        comma == absl::string_view::npos ? forwarded_for
                                         : forwarded_for.substr(comma + 1));
    if (!client.empty()) return absl::StrCat("addr ", client);
  }
  return absl::StrCat("addr ", address);
}

std::string Callers::Of(const grpc::CallbackServerContext& context) const {
  const auto& metadata = context.client_metadata();
  return Of(context.peer(), Metadata(metadata, "authorization"),
            Metadata(metadata, "x-forwarded-for"));
}

}  // namespace ik::server
