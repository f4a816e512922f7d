// ikd's own listening sockets, accepting connections and handing them to
// gRPC (ServerBuilder's external connection acceptor, which runs the usual
// handshake with the server's credentials, TLS included).
//
// gRPC 1.51's own listener stops for good after one failed accept with
// EMFILE (tcp_server_posix.cc never re-arms it): a burst of idle
// connections at the file limit left ikd deaf until restarted. This one
//   - keeps the last descriptors of the open-file limit free (a
//     sixteenth of it, between 8 and 1024): a connection accepted into
//     them is closed at once (the client sees the connection end,
//     UNAVAILABLE, instead of waiting in the backlog), so the process
//     always has descriptors for its own files and gRPC's;
//   - should accept fail with EMFILE/ENFILE all the same, closes a spare
//     descriptor kept for the purpose, accepts the waiting connection and
//     closes it at once, then takes the spare back -- and keeps listening;
//   - holds the connections it handed over to `max_connections`, and those
//     of one peer address (the port left out) to `max_per_peer`: beyond
//     either, a new connection is closed at once. A handed-over connection
//     counts until gRPC closes it (its descriptor no longer names its
//     socket);
//   - holds at most `max_idle` connections without a call in flight
//     (ConnectionActivity tells which): beyond it, on each accept and
//     every second, the longest idle are shut down, so connections that
//     never call cannot take every slot.
//
//   auto listener = Listener::Bind("0.0.0.0:50051");
//   auto acceptor = builder.experimental().AddExternalConnectionAcceptor(
//       ExternalConnectionType::FROM_FD, credentials);
//   ... BuildAndStart ...
//   (*listener)->Start(acceptor.get(), {.max_connections = 10000,
//                                       .max_per_peer = 7500,
//                                       .max_idle = 5000}, &activity);
//   (*listener)->Stop();  // before the gRPC server's Shutdown
#ifndef IK_SERVER_OPS_LISTENER_H_
#define IK_SERVER_OPS_LISTENER_H_

#include <grpcpp/server_builder.h>
#include <sys/types.h>

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "ops/connection_activity.h"

namespace ik::server {

class Listener {
 public:
  struct Limits {
    // Connections handed over at once, from everyone / from one peer
    // address.
    int max_connections = 1 << 20;
    int max_per_peer = 1 << 20;
    // Connections without a call in flight (with an activity to tell).
    int max_idle = 1 << 20;
  };

  // Binds and listens on every address `host_port` resolves to ("HOST:PORT",
  // HOST a name, an IPv4 address or an [IPv6] address; port 0 picks a free
  // port, the same for every address). UNAVAILABLE naming the address when
  // it cannot be bound.
  static absl::StatusOr<std::unique_ptr<Listener>> Bind(
      const std::string& host_port);
  ~Listener();
  Listener(const Listener&) = delete;
  Listener& operator=(const Listener&) = delete;

  int port() const { return port_; }

  // Starts accepting on a thread of its own. `activity` (null: idleness
  // unbounded) must outlive the listener and learn every call of the gRPC
  // server (its Interceptors()).
  void Start(grpc::experimental::ExternalConnectionAcceptor* acceptor,
             Limits limits, ConnectionActivity* activity = nullptr);
  // Stops accepting and closes the listening sockets (new connections are
  // refused). Idempotent.
  void Stop();

  // Connections closed at once since the start: over a limit, or while the
  // process had no descriptor to spare.
  long refused() const { return refused_.load(); }
  // Idle connections shut down since the start (beyond Limits::max_idle).
  long closed_idle() const { return closed_idle_.load(); }

 private:
  struct Connection {
    int fd;
    ino_t inode;
    std::string peer;  // the peer's address bytes, without the port
    std::string key;   // ConnectionActivity's
  };

  Listener(std::vector<int> sockets, int port);
  void Run(grpc::experimental::ExternalConnectionAcceptor* acceptor,
           Limits limits);
  // Accepts what waits on `socket`.
  void AcceptAll(int socket,
                 grpc::experimental::ExternalConnectionAcceptor* acceptor,
                 Limits limits);
  // Whether a new connection from `peer` stays within `limits`.
  bool Admits(const std::string& peer, Limits limits);
  // Forgets the connections gRPC has closed; the number still open.
  int Prune();
  // Shuts down the longest idle connections beyond `bound`.
  void CloseIdleBeyond(int bound);

  std::vector<int> sockets_;
  const int port_;
  int wake_[2] = {-1, -1};  // a pipe: Stop writes, the loop wakes
  int spare_ = -1;          // closed to make room on EMFILE
  int ceiling_ = 1 << 30;   // accepted descriptors from here on are closed
  std::vector<Connection> connections_;  // handed over (the loop's own)
  absl::flat_hash_map<std::string, int> per_peer_;  // of connections_
  std::atomic<long> refused_{0};
  std::atomic<long> closed_idle_{0};
  ConnectionActivity* activity_ = nullptr;
  std::thread thread_;
  bool stopped_ = false;
};

}  // namespace ik::server

#endif  // IK_SERVER_OPS_LISTENER_H_
