// A running ikd server: registry, IkService, health and reflection, bound to
// one address. main.cc and the service tests both start it through here.
//
//   ik::server::ServerOptions options;
//   options.listen = "127.0.0.1:0";  // any free port
//   auto server = ik::server::IkServer::Start(options);
//   if (!server.ok()) ...;
//   int port = (*server)->port();
//   (*server)->Shutdown(absl::Seconds(5));
#ifndef IK_SERVER_SERVER_H_
#define IK_SERVER_SERVER_H_

#include <grpcpp/grpcpp.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "ops/access_log.h"
#include "ops/listener.h"
#include "ops/metrics.h"
#include "ops/recorder.h"
#include "ops/transport_security.h"
#include "rpc/ik_service.h"
#include "rpc/solver_pool.h"
#include "service_limits.h"
#include "state/rig_registry.h"
#include "state/state_store.h"
#include "state/terrain_registry.h"

namespace ik::server {

struct ServerOptions {
  // host:port to listen on; port 0 picks a free port (see IkServer::port()).
  std::string listen = "127.0.0.1:50051";
  // Directory of *.json rigs registered before serving; empty: none.
  std::string rig_dir;
  // Directory of *.json terrains (ik.v1.Terrain) registered before serving;
  // empty: none.
  std::string terrain_dir;
  // Directory keeping every registration made over the API (StateStore);
  // empty: they last until the process ends.
  std::string state_dir;
  ServiceLimits limits;
  // Memory all registered rigs and terrains may hold together, bytes.
  std::int64_t max_registry_bytes = std::int64_t{512} << 20;
  // Largest request the server accepts, bytes.
  int max_receive_message_bytes = 4 * 1024 * 1024;
  // What gRPC's transport may hold in buffers for all connections together
  // (grpc::ResourceQuota), bytes.
  std::int64_t transport_memory_bytes = std::int64_t{256} << 20;
  // Connections held open at once at most, from everyone and from one peer
  // address (its port left out; behind a proxy, the proxy's); more are
  // closed as they come.
  int max_connections = 1 << 20;
  int max_connections_per_peer = 1 << 20;
  // Connections without a call in flight held at most; beyond it the
  // longest idle are closed (clients reconnect when they next call).
  int max_idle_connections = 1 << 20;
  // A connection that has not sent the HTTP/2 preface and its SETTINGS
  // within this (or not finished its TLS handshake) is closed.
  absl::Duration handshake_timeout = absl::Seconds(5);
  // A connection without a call for this long is told to go (GOAWAY);
  // zero: never.
  absl::Duration max_connection_idle = absl::ZeroDuration();
  // A connection older than this is told to go (GOAWAY; its calls in
  // flight finish), so clients balancing over DNS look the name up again
  // and find new replicas; zero: never.
  absl::Duration max_connection_age = absl::ZeroDuration();
  // Threads of the solver pool, >= 1.
  int solver_threads = 1;
  // Calls (and a tick's helper tasks) waiting for the pool at most; more
  // are refused. Bytes of requests one caller's calls waiting for the pool
  // may hold (a caller's first waiting call is never refused for its size),
  // and all calls together (a call that would wait alone is never refused
  // for its size). A refused call's request is freed at once and its
  // RESOURCE_EXHAUSTED answered when the pool takes a waiting call (its
  // caller's, for the caller's bound): SolverPool::PostRequest.
  int max_queued_calls = 1024;
  std::int64_t max_queued_bytes_per_caller = 16 << 20;
  std::int64_t max_queued_bytes = 32 << 20;
  // Nice value of the solver threads (0..19; gRPC's threads keep 0).
  int solver_nice = 10;
  // TLS and client certificates (transport_security.h); none: plaintext.
  TlsFiles tls;
  // How often the TLS files are read again for a renewed certificate.
  absl::Duration tls_reload_interval = absl::Seconds(60);
  // Bearer tokens with roles (access_tokens.h); empty: no token needed.
  std::string token_file;
  // Peer addresses (no port) of proxies whose x-forwarded-for names the
  // caller a call's pool turns go to (rpc/callers.h).
  std::vector<std::string> trusted_proxies;
  // host:port serving Prometheus metrics at /metrics (metrics.h); port 0:
  // any free port (metrics_port()); empty: none.
  std::string metrics_listen;
  // File the access log is appended to (access_log.h), "-": stderr; empty:
  // none.
  std::string access_log;
  // The calls recorded (ops/recorder.h); `record.dir` empty: none.
  RecorderOptions record;
};

// Owns the gRPC server and everything it serves. Thread-safe.
class IkServer {
 public:
  // Loads the rig and terrain directories, replays the state directory over
  // them, then starts serving. A bad rig or terrain file fails the start
  // with the file and field in the message (a damaged state file is skipped
  // and listed in replayed().skipped); a state directory that cannot be
  // opened or written gives FAILED_PRECONDITION; a port that cannot be bound
  // gives UNAVAILABLE; bad TLS files or a bad token file give
  // INVALID_ARGUMENT naming the flag.
  static absl::StatusOr<std::unique_ptr<IkServer>> Start(
      const ServerOptions& options);

  ~IkServer();

  // The port actually bound.
  int port() const { return port_; }
  RigRegistry& registry() { return registry_; }
  TerrainRegistry& terrains() { return terrains_; }
  const RegistryBudget& registry_budget() const { return budget_; }
  // Rigs loaded from the rig directory at start.
  int loaded_rigs() const { return loaded_rigs_; }
  // Terrains loaded from the terrain directory at start.
  int loaded_terrains() const { return loaded_terrains_; }
  // What the state directory gave back at start (empty without one).
  const StateStore::Replayed& replayed() const { return replayed_; }
  int solver_threads() const { return pool_.threads(); }
  // The port serving metrics (0: none).
  int metrics_port() const {
    return metrics_ == nullptr ? 0 : metrics_->port();
  }
  // The solver pool (tests hold its workers to observe queueing).
  SolverPool& solver_pool() { return pool_; }
  // Solving calls run on the thread they arrived on so far.
  std::int64_t inline_calls() const { return service_.inline_calls(); }
  // The answers written and not yet read by their callers.
  const UnreadAnswers& unread_answers() const {
    return service_.unread_answers();
  }
  // The recording (null without --record_dir).
  Recorder* recorder() { return recorder_.get(); }
  // What the solvers did since the server started (its metrics' source).
  const SolveCounters& solve_counters() const {
    return service_.handlers().counters();
  }

  // The drain: marks health NOT_SERVING and answers every new call
  // UNAVAILABLE (open TickStreams end after their tick in progress); the
  // calls already received -- running or queued -- get until `grace` to
  // finish, then are cancelled. Returns when all are done. Idempotent.
  void Shutdown(absl::Duration grace);

 private:
  IkServer(const ServerOptions& options, std::unique_ptr<StateStore> store,
           std::unique_ptr<const AccessTokens> tokens);
  // Loads the rig and terrain directories and replays the state directory.
  absl::Status LoadState(const ServerOptions& options);
  // Makes the metrics and serves them on `listen`.
  absl::Status ServeMetrics(const std::string& listen);
  // Binds the listener and starts the gRPC server on it, with health
  // checking and reflection.
  absl::Status Serve(
      const ServerOptions& options,
      const std::shared_ptr<grpc::ServerCredentials>& credentials);

  ServerOptions options_;
  RegistryBudget budget_;
  RigRegistry registry_;
  TerrainRegistry terrains_;
  const std::unique_ptr<StateStore> store_;
  // Null without --token_file.
  const std::unique_ptr<const AccessTokens> tokens_;
  // Declared before the service: calls report to them until they end.
  std::unique_ptr<AccessLog> access_log_;
  std::unique_ptr<Recorder> recorder_;
  // Declared before the service and the gRPC server: destroyed after them,
  // once no call can post to it.
  SolverPool pool_;
  IkService service_;
  // Declared before the listener and the gRPC server: both report to it.
  ConnectionActivity activity_;
  std::unique_ptr<Listener> listener_;
  std::unique_ptr<grpc::experimental::ExternalConnectionAcceptor> acceptor_;
  std::unique_ptr<grpc::Server> server_;
  // Declared after everything its scrapes read: its server stops first.
  std::unique_ptr<Metrics> metrics_;
  int port_ = 0;
  int loaded_rigs_ = 0;
  int loaded_terrains_ = 0;
  StateStore::Replayed replayed_;
  bool shut_down_ = false;
};

}  // namespace ik::server

#endif  // IK_SERVER_SERVER_H_
