#include "ops/connection_activity.h"

#include <arpa/inet.h>
#include <grpcpp/server_context.h>
#include <netinet/in.h>

#include <cstdint>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/strip.h"

namespace ik::server {
namespace {

std::string Key(const void* address, size_t size, std::uint16_t port_network) {
  std::string key(static_cast<const char*>(address), size);
  key.append(reinterpret_cast<const char*>(&port_network),
             sizeof(port_network));
  return key;
}

// Reports the calls of one gRPC call's lifetime: it begins when gRPC makes
// the interceptor and ends when gRPC destroys it with the call.
class ActivityInterceptor : public grpc::experimental::Interceptor {
 public:
  ActivityInterceptor(ConnectionActivity& activity, std::string key)
      : activity_(activity), key_(std::move(key)) {
    activity_.CallStarted(key_);
  }
  ~ActivityInterceptor() override { activity_.CallEnded(key_); }

  void Intercept(
      grpc::experimental::InterceptorBatchMethods* methods) override {
    methods->Proceed();
  }

 private:
  ConnectionActivity& activity_;
  const std::string key_;
};

class ActivityInterceptors
    : public grpc::experimental::ServerInterceptorFactoryInterface {
 public:
  explicit ActivityInterceptors(ConnectionActivity& activity)
      : activity_(activity) {}

  grpc::experimental::Interceptor* CreateServerInterceptor(
      grpc::experimental::ServerRpcInfo* info) override {
    std::string key = ConnectionActivity::KeyOf(info->server_context()->peer());
    if (key.empty()) return nullptr;
    return new ActivityInterceptor(activity_, std::move(key));
  }

 private:
  ConnectionActivity& activity_;
};

}  // namespace

std::string ConnectionActivity::KeyOf(const sockaddr_storage& address) {
  if (address.ss_family == AF_INET) {
    const auto& v4 = reinterpret_cast<const sockaddr_in&>(address);
    return Key(&v4.sin_addr, 4, v4.sin_port);
  }
  if (address.ss_family == AF_INET6) {
    const auto& v6 = reinterpret_cast<const sockaddr_in6&>(address);
    if (IN6_IS_ADDR_V4MAPPED(&v6.sin6_addr)) {
      return Key(reinterpret_cast<const char*>(&v6.sin6_addr) + 12, 4,
                 v6.sin6_port);
    }
    return Key(&v6.sin6_addr, 16, v6.sin6_port);
  }
  return std::string();
}

std::string ConnectionActivity::KeyOf(absl::string_view peer) {
  const bool v6 = absl::ConsumePrefix(&peer, "ipv6:");
  if (!v6 && !absl::ConsumePrefix(&peer, "ipv4:")) return std::string();
  const size_t colon = peer.rfind(':');
  if (colon == absl::string_view::npos) return std::string();
  std::uint32_t port = 0;
  if (!absl::SimpleAtoi(peer.substr(colon + 1), &port) || port > 65535) {
    return std::string();
  }
  absl::string_view host = peer.substr(0, colon);
  if (v6 &&
      !(absl::ConsumePrefix(&host, "[") && absl::ConsumeSuffix(&host, "]"))) {
    return std::string();
  }
  const std::string text(host);
  unsigned char bytes[16];
  if (inet_pton(v6 ? AF_INET6 : AF_INET, text.c_str(), bytes) != 1) {
    return std::string();
  }
  const std::uint16_t port_network = htons(static_cast<std::uint16_t>(port));
  if (v6 && IN6_IS_ADDR_V4MAPPED(reinterpret_cast<in6_addr*>(bytes))) {
    return Key(bytes + 12, 4, port_network);
  }
  return Key(bytes, v6 ? 16 : 4, port_network);
}

void ConnectionActivity::Opened(const std::string& key) {
  if (key.empty()) return;
  absl::MutexLock lock(&mutex_);
  Forget(key);
  idle_.push_back(key);
  entries_[key] = Entry{0, std::prev(idle_.end())};
}

void ConnectionActivity::Closed(const std::string& key) {
  absl::MutexLock lock(&mutex_);
  Forget(key);
}

void ConnectionActivity::Forget(const std::string& key) {
  const auto found = entries_.find(key);
  if (found == entries_.end()) return;
  if (found->second.in_flight == 0) idle_.erase(found->second.idle);
  entries_.erase(found);
}

void ConnectionActivity::CallStarted(const std::string& key) {
  absl::MutexLock lock(&mutex_);
  const auto found = entries_.find(key);
  if (found == entries_.end()) return;
  if (found->second.in_flight++ == 0) idle_.erase(found->second.idle);
}

void ConnectionActivity::CallEnded(const std::string& key) {
  absl::MutexLock lock(&mutex_);
  const auto found = entries_.find(key);
  if (found == entries_.end() || found->second.in_flight == 0) return;
  if (--found->second.in_flight == 0) {
    idle_.push_back(key);
    found->second.idle = std::prev(idle_.end());
  }
}

std::vector<std::string> ConnectionActivity::TakeIdleBeyond(int bound) {
  std::vector<std::string> taken;
  absl::MutexLock lock(&mutex_);
  while (static_cast<int>(idle_.size()) > bound) {
    entries_.erase(idle_.front());
    taken.push_back(std::move(idle_.front()));
    idle_.pop_front();
  }
  return taken;
}

int ConnectionActivity::connections() const {
  absl::MutexLock lock(&mutex_);
  return static_cast<int>(entries_.size());
}

int ConnectionActivity::idle() const {
  absl::MutexLock lock(&mutex_);
  return static_cast<int>(idle_.size());
}

std::vector<
    std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>>
ConnectionActivity::Interceptors() {
  std::vector<
      std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>>
      factories;
  factories.push_back(std::make_unique<ActivityInterceptors>(*this));
  return factories;
}

}  // namespace ik::server
