#include "server/server.h"

#include <grpcpp/ext/proto_server_reflection_plugin.h>
#include <grpcpp/health_check_service_interface.h>
#include <grpcpp/resource_quota.h>

#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "server/directory_loader.h"

namespace ik::server {

IkServer::IkServer(const ServerOptions& options,
                   std::unique_ptr<StateStore> store)
    : options_(options),
      budget_(options.max_registry_bytes),
      registry_(options.limits.max_rigs, &budget_),
      terrains_(options.limits.max_terrains, &budget_),
      store_(std::move(store)),
      pool_(options.solver_threads, options.max_queued_calls,
            options.solver_nice),
      service_(registry_, terrains_, options.limits, pool_, store_.get()) {}

IkServer::~IkServer() { Shutdown(absl::ZeroDuration()); }

absl::StatusOr<std::unique_ptr<IkServer>> IkServer::Start(
    const ServerOptions& options) {
  std::unique_ptr<StateStore> store;
  if (!options.state_dir.empty()) {
    absl::StatusOr<std::unique_ptr<StateStore>> opened =
        StateStore::Open(options.state_dir);
    if (!opened.ok()) return opened.status();
    store = *std::move(opened);
  }
  std::unique_ptr<IkServer> server(new IkServer(options, std::move(store)));
  if (!options.rig_dir.empty()) {
    absl::StatusOr<int> loaded =
        LoadRigDirectory(options.rig_dir, options.limits, server->registry_);
    if (!loaded.ok()) return loaded.status();
    server->loaded_rigs_ = *loaded;
  }
  if (!options.terrain_dir.empty()) {
    absl::StatusOr<int> loaded = LoadTerrainDirectory(
        options.terrain_dir, options.limits, server->terrains_);
    if (!loaded.ok()) return loaded.status();
    server->loaded_terrains_ = *loaded;
  }
  if (server->store_ != nullptr) {
    server->replayed_ = server->store_->Replay(
        options.limits, server->registry_, server->terrains_);
  }

  grpc::EnableDefaultHealthCheckService(true);
  grpc::reflection::InitProtoReflectionServerBuilderPlugin();
  // ikd accepts the connections itself (Listener says why) and hands them
  // to gRPC.
  absl::StatusOr<std::unique_ptr<Listener>> listener =
      Listener::Bind(options.listen);
  if (!listener.ok()) return listener.status();
  server->listener_ = *std::move(listener);
  server->port_ = server->listener_->port();
  grpc::ServerBuilder builder;
  std::unique_ptr<grpc::experimental::ExternalConnectionAcceptor> acceptor =
      builder.experimental().AddExternalConnectionAcceptor(
          grpc::ServerBuilder::experimental_type::ExternalConnectionType::
              FROM_FD,
          grpc::InsecureServerCredentials());
  builder.SetMaxReceiveMessageSize(options.max_receive_message_bytes);
  // gRPC 1.51 inflates a compressed message whole before it checks the
  // inflated size against the limit above (1 MB of gzip on the wire became
  // 1 GiB in memory); refusing compressed requests is the only bound, and
  // it is checked on the headers, before a byte of the message is read: the
  // client gets UNIMPLEMENTED "Compression algorithm 'gzip' is disabled.".
  builder.SetCompressionAlgorithmSupportStatus(GRPC_COMPRESS_DEFLATE, false);
  builder.SetCompressionAlgorithmSupportStatus(GRPC_COMPRESS_GZIP, false);
  // The transport buffers a request whole before any size check (gRPC
  // 1.51's HTTP/2 flow control opens the window for the announced length);
  // the quota bounds what all connections together may buffer: beyond it,
  // idle connections are sent away and streams refused (RESOURCE_EXHAUSTED).
  builder.SetResourceQuota(grpc::ResourceQuota("ikd").Resize(
      static_cast<size_t>(options.transport_memory_bytes)));
  builder.RegisterService(&server->service_);
  server->server_ = builder.BuildAndStart();
  if (server->server_ == nullptr) {
    return absl::UnavailableError(
        absl::StrCat("listen: cannot serve on ", options.listen));
  }
  server->acceptor_ = std::move(acceptor);
  server->listener_->Start(server->acceptor_.get(), options.max_connections);
  grpc::HealthCheckServiceInterface* health =
      server->server_->GetHealthCheckService();
  health->SetServingStatus(true);
  health->SetServingStatus(v1::IkService::service_full_name(), true);
  return server;
}

void IkServer::Shutdown(absl::Duration grace) {
  if (shut_down_ || server_ == nullptr) return;
  shut_down_ = true;
  const absl::Time deadline = absl::Now() + grace;
  // Health says NOT_SERVING from now on; new calls are answered UNAVAILABLE
  // while the calls already received finish. Only then is gRPC shut down:
  // its Shutdown cancels at once every call it has not handed to the service
  // yet (one whose request is still arriving), so it comes last.
  server_->GetHealthCheckService()->Shutdown();
  service_.Drain();
  service_.WaitIdle(deadline);
  // No connection is handed to gRPC once it shuts down (it would leak).
  listener_->Stop();
  server_->Shutdown(absl::ToChronoTime(deadline));
  server_->Wait();
}

}  // namespace ik::server
