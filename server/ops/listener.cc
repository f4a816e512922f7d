#include "ops/listener.h"

#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace ik::server {
namespace {

using Acceptor = grpc::experimental::ExternalConnectionAcceptor;

// The lowest descriptor a connection may not take: the open-file limit in
// force less a sixteenth of it (at least 8 descriptors, at most 1024).
int DescriptorCeiling() {
  rlimit limit;
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0 ||
      limit.rlim_cur == RLIM_INFINITY) {
    return 1 << 30;
  }
  const rlim_t reserve = std::clamp<rlim_t>(limit.rlim_cur / 16, 8, 1024);
  return static_cast<int>(std::clamp<rlim_t>(
      limit.rlim_cur > reserve ? limit.rlim_cur - reserve : 0, 0, 1 << 30));
}

absl::Status CannotListen(const std::string& host_port, absl::string_view why) {
  return absl::UnavailableError(
      absl::StrCat("listen: cannot listen on ", host_port, ": ", why));
}

int PortOf(int socket) {
  sockaddr_storage address{};
  socklen_t length = sizeof(address);
  if (getsockname(socket, reinterpret_cast<sockaddr*>(&address), &length) !=
      0) {
    return 0;
  }
  if (address.ss_family == AF_INET6) {
    return ntohs(reinterpret_cast<sockaddr_in6*>(&address)->sin6_port);
  }
  return ntohs(reinterpret_cast<sockaddr_in*>(&address)->sin_port);
}

void SetPort(addrinfo* info, int port) {
  if (info->ai_family == AF_INET6) {
    reinterpret_cast<sockaddr_in6*>(info->ai_addr)->sin6_port = htons(port);
  } else {
    reinterpret_cast<sockaddr_in*>(info->ai_addr)->sin_port = htons(port);
  }
}

// A listen address: the host (empty: every interface) and the port (0:
// any free one).
struct HostPort {
  std::string host;
  int port = 0;
};

// HOST:PORT or [IPV6]:PORT.
absl::StatusOr<HostPort> ParseHostPort(const std::string& host_port) {
  HostPort out;
  std::string port_text;
  if (!host_port.empty() && host_port.front() == '[') {
    const size_t close = host_port.find(']');
    if (close == std::string::npos || close + 1 >= host_port.size() ||
        host_port[close + 1] != ':') {
      return CannotListen(host_port, "expected [IPV6]:PORT");
    }
    out.host = host_port.substr(1, close - 1);
    port_text = host_port.substr(close + 2);
  } else {
    const size_t colon = host_port.rfind(':');
    if (colon == std::string::npos) {
      return CannotListen(host_port, "expected HOST:PORT");
    }
    out.host = host_port.substr(0, colon);
    port_text = host_port.substr(colon + 1);
  }
  if (!absl::SimpleAtoi(port_text, &out.port) || out.port < 0 ||
      out.port > 65535) {
    return CannotListen(host_port, "the port must be a number in [0, 65535]");
  }
  return out;
}

// A listening socket per address of `found`, into `sockets`, all on
// `port` (0: the first socket's free port, then the same one for the
// rest). Stops at the first failure (`host_port` names it).
absl::Status ListenOnEach(const std::string& host_port, addrinfo* found,
                          int& port, std::vector<int>& sockets) {
  int count = 0;
  for (addrinfo* info = found; info != nullptr; info = info->ai_next) ++count;
  for (addrinfo* info = found; info != nullptr; info = info->ai_next) {
    const int socket_fd = socket(
        info->ai_family, info->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC,
        info->ai_protocol);
    if (socket_fd < 0) return CannotListen(host_port, std::strerror(errno));
    sockets.push_back(socket_fd);
    const int one = 1;
    setsockopt(socket_fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    // IPv6 and IPv4 wildcards both resolved: each socket takes its own.
    if (info->ai_family == AF_INET6 && count > 1) {
      setsockopt(socket_fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
    }
    SetPort(info, port);
    if (bind(socket_fd, info->ai_addr, info->ai_addrlen) != 0 ||
        listen(socket_fd, SOMAXCONN) != 0) {
      return CannotListen(host_port, std::strerror(errno));
    }
    if (port == 0) port = PortOf(socket_fd);
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::unique_ptr<Listener>> Listener::Bind(
    const std::string& host_port) {
  absl::StatusOr<HostPort> parsed = ParseHostPort(host_port);
  if (!parsed.ok()) return parsed.status();
  int port = parsed->port;
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  if (const int error =
          getaddrinfo(parsed->host.empty() ? nullptr : parsed->host.c_str(),
                      "0", &hints, &found);
      error != 0) {
    return CannotListen(host_port, gai_strerror(error));
  }
  std::vector<int> sockets;
  absl::Status status = ListenOnEach(host_port, found, port, sockets);
  freeaddrinfo(found);
  if (status.ok() && sockets.empty()) {
    status = CannotListen(host_port, "no address");
  }
  if (!status.ok()) {
    for (int socket_fd : sockets) close(socket_fd);
    return status;
  }
  return std::unique_ptr<Listener>(new Listener(std::move(sockets), port));
}

Listener::Listener(std::vector<int> sockets, int port)
    : sockets_(std::move(sockets)), port_(port) {}

Listener::~Listener() { Stop(); }

void Listener::Start(Acceptor* acceptor, Limits limits,
                     ConnectionActivity* activity) {
  activity_ = activity;
  if (pipe2(wake_, O_CLOEXEC | O_NONBLOCK) != 0) wake_[0] = wake_[1] = -1;
  spare_ = open("/dev/null", O_RDONLY | O_CLOEXEC);
  ceiling_ = DescriptorCeiling();
  thread_ = std::thread([this, acceptor, limits] { Run(acceptor, limits); });
}

void Listener::Stop() {
  if (stopped_) return;
  stopped_ = true;
  if (thread_.joinable()) {
    const char byte = 0;
    while (write(wake_[1], &byte, 1) < 0 && errno == EINTR) {
    }
    thread_.join();
  }
  for (int socket_fd : sockets_) close(socket_fd);
  for (int fd : {wake_[0], wake_[1], spare_}) {
    if (fd >= 0) close(fd);
  }
}

void Listener::Run(Acceptor* acceptor, Limits limits) {
  std::vector<pollfd> watched;
  for (int socket_fd : sockets_) watched.push_back({socket_fd, POLLIN, 0});
  watched.push_back({wake_[0], POLLIN, 0});
  for (;;) {
    // Calls that end leave connections idle: look again each second.
    const int ready =
        poll(watched.data(), watched.size(), activity_ != nullptr ? 1000 : -1);
    if (ready < 0) {
      if (errno == EINTR) continue;
      return;
    }
    if (watched.back().revents != 0) return;  // Stop
    for (size_t i = 0; i + 1 < watched.size(); ++i) {
      if (watched[i].revents != 0) {
        AcceptAll(watched[i].fd, acceptor, limits);
      }
    }
    CloseIdleBeyond(limits.max_idle);
  }
}

void Listener::AcceptAll(int socket_fd, Acceptor* acceptor, Limits limits) {
  // Another thread may have taken the number the spare gave up.
  if (spare_ < 0) spare_ = open("/dev/null", O_RDONLY | O_CLOEXEC);
  for (;;) {
    sockaddr_storage address{};
    socklen_t length = sizeof(address);
    const int fd = accept4(socket_fd, reinterpret_cast<sockaddr*>(&address),
                           &length, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) return;
      if ((errno == EMFILE || errno == ENFILE) && spare_ >= 0) {
        // No descriptor to spare: make one, and end the waiting connection
        // now rather than leave it hanging in the backlog.
        close(spare_);
        const int waiting = accept4(socket_fd, nullptr, nullptr, SOCK_CLOEXEC);
        if (waiting >= 0) close(waiting);
        spare_ = open("/dev/null", O_RDONLY | O_CLOEXEC);
        ++refused_;
        if (waiting >= 0 && spare_ >= 0) continue;
      }
      // Out of descriptors or memory with nothing to give back: let what
      // holds them go before trying again.
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
      return;
    }
    // The peer's address bytes and port; the peer is the address alone
    // (empty for other families).
    std::string key = ConnectionActivity::KeyOf(address);
    std::string peer = key.substr(0, key.empty() ? 0 : key.size() - 2);
    if (fd >= ceiling_ || !Admits(peer, limits)) {
      close(fd);
      ++refused_;
      continue;
    }
    struct stat status;
    if (fstat(fd, &status) != 0) {
      close(fd);
      continue;
    }
    const int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    Acceptor::NewConnectionParameters connection;
    connection.listener_fd = socket_fd;
    connection.fd = fd;
    if (activity_ != nullptr) activity_->Opened(key);
    acceptor->HandleNewConnection(&connection);
    ++per_peer_[peer];
    connections_.push_back(
        {fd, status.st_ino, std::move(peer), std::move(key)});
  }
}

bool Listener::Admits(const std::string& peer, Limits limits) {
  auto within = [&] {
    const auto counted = per_peer_.find(peer);
    return static_cast<int>(connections_.size()) < limits.max_connections &&
           (counted == per_peer_.end() ||
            counted->second < limits.max_per_peer);
  };
  if (within()) return true;
  Prune();
  return within();
}

int Listener::Prune() {
  size_t kept = 0;
  for (size_t i = 0; i < connections_.size(); ++i) {
    Connection& connection = connections_[i];
    struct stat status;
    if (fstat(connection.fd, &status) == 0 &&
        status.st_ino == connection.inode) {
      if (kept != i) connections_[kept] = std::move(connection);
      ++kept;
    } else {
      if (activity_ != nullptr) activity_->Closed(connection.key);
      if (--per_peer_[connection.peer] == 0) per_peer_.erase(connection.peer);
    }
  }
  connections_.resize(kept);
  return static_cast<int>(kept);
}

void Listener::CloseIdleBeyond(int bound) {
  if (activity_ == nullptr || activity_->idle() <= bound) return;
  Prune();  // connections gRPC has closed are not idle ones
  std::vector<std::string> idle = activity_->TakeIdleBeyond(bound);
  if (idle.empty()) return;
  const absl::flat_hash_set<std::string> closing(idle.begin(), idle.end());
  for (const Connection& connection : connections_) {
    if (!closing.contains(connection.key)) continue;
    // gRPC still owns the descriptor: shut the socket down (gRPC sees it
    // end and closes it), if the number still names the same socket.
    struct stat status;
    if (fstat(connection.fd, &status) == 0 &&
        status.st_ino == connection.inode) {
      shutdown(connection.fd, SHUT_RDWR);
      ++closed_idle_;
    }
  }
}

}  // namespace ik::server
