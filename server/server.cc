#include "server.h"

#include <grpcpp/ext/proto_server_reflection_plugin.h>
#include <grpcpp/health_check_service_interface.h>
#include <grpcpp/resource_quota.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/descriptor.h"
#include "state/directory_loader.h"

namespace ik::server {

// ik.pb.cc holds only IkService's descriptor, and no code refers to it, so
// a static link would leave it out and the descriptor pool (the metrics'
// method list, server reflection) would not know the service. Naming its
// table in a variable the compiler must keep links it.
const void* volatile link_ik_service_descriptor =
    &descriptor_table_ik_2fv1_2fik_2eproto;

IkServer::IkServer(const ServerOptions& options,
                   std::unique_ptr<StateStore> store,
                   std::unique_ptr<const AccessTokens> tokens)
    : options_(options),
      budget_(options.max_registry_bytes),
      registry_(options.limits.max_rigs, &budget_),
      terrains_(options.limits.max_terrains, &budget_),
      store_(std::move(store)),
      tokens_(std::move(tokens)),
      pool_(options.solver_threads, options.max_queued_calls,
            options.solver_nice, options.max_queued_bytes_per_caller,
            options.max_queued_bytes),
      service_(registry_, terrains_, options.limits, pool_, store_.get(),
               tokens_.get(), options.trusted_proxies) {}

IkServer::~IkServer() { Shutdown(absl::ZeroDuration()); }

namespace {

// --token_file's tokens; null without one.
absl::StatusOr<std::unique_ptr<const AccessTokens>> LoadTokens(
    const ServerOptions& options) {
  if (options.token_file.empty()) return nullptr;
  absl::StatusOr<AccessTokens> loaded = AccessTokens::Load(options.token_file);
  if (!loaded.ok()) return loaded.status();
  return std::make_unique<const AccessTokens>(*std::move(loaded));
}

// --state_dir's store; null without one.
absl::StatusOr<std::unique_ptr<StateStore>> OpenStore(
    const ServerOptions& options) {
  if (options.state_dir.empty()) return nullptr;
  return StateStore::Open(options.state_dir);
}

// The bounds on what a request may make the transport hold.
void LimitTransport(const ServerOptions& options,
                    grpc::ServerBuilder& builder) {
  builder.SetMaxReceiveMessageSize(options.max_receive_message_bytes);
  auto milliseconds = [](absl::Duration duration) {
    return static_cast<int>(absl::ToInt64Milliseconds(duration));
  };
  if (options.max_connection_age > absl::ZeroDuration()) {
    builder.AddChannelArgument(GRPC_ARG_MAX_CONNECTION_AGE_MS,
                               milliseconds(options.max_connection_age));
  }
  if (options.max_connection_idle > absl::ZeroDuration()) {
    builder.AddChannelArgument(GRPC_ARG_MAX_CONNECTION_IDLE_MS,
                               milliseconds(options.max_connection_idle));
  }
  // The handshake's deadline also bounds the wait for the client's HTTP/2
  // preface and SETTINGS (gRPC's chttp2 server): a socket that connects
  // and never speaks is closed after it, not after gRPC's two minutes.
  builder.AddChannelArgument(GRPC_ARG_SERVER_HANDSHAKE_TIMEOUT_MS,
                             milliseconds(options.handshake_timeout));
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
}

// `options` with the terrains' definitions kept when the server records.
ServerOptions WithRecording(ServerOptions options) {
  options.limits.keep_terrain_definitions = !options.record.dir.empty();
  return options;
}

}  // namespace

absl::StatusOr<std::unique_ptr<IkServer>> IkServer::Start(
    const ServerOptions& given) {
  const ServerOptions options = WithRecording(given);
  absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> credentials =
      ServerCredentialsFor(options.tls, options.tls_reload_interval);
  if (!credentials.ok()) return credentials.status();
  absl::StatusOr<std::unique_ptr<const AccessTokens>> tokens =
      LoadTokens(options);
  if (!tokens.ok()) return tokens.status();
  absl::StatusOr<std::unique_ptr<StateStore>> store = OpenStore(options);
  if (!store.ok()) return store.status();
  std::unique_ptr<IkServer> server(
      new IkServer(options, *std::move(store), *std::move(tokens)));
  if (absl::Status loaded = server->LoadState(options); !loaded.ok()) {
    return loaded;
  }

  if (!options.access_log.empty()) {
    absl::StatusOr<std::unique_ptr<AccessLog>> log =
        AccessLog::Open(options.access_log);
    if (!log.ok()) return log.status();
    server->access_log_ = *std::move(log);
    server->service_.AddObserver(server->access_log_.get());
  }
  if (!options.record.dir.empty()) {
    absl::StatusOr<std::unique_ptr<Recorder>> recorder =
        Recorder::Start(options.record, server->registry_, server->terrains_);
    if (!recorder.ok()) return recorder.status();
    server->recorder_ = *std::move(recorder);
    server->service_.SetRecorder(server->recorder_.get());
  }
  if (!options.metrics_listen.empty()) {
    if (absl::Status serving = server->ServeMetrics(options.metrics_listen);
        !serving.ok()) {
      return serving;
    }
  }
  if (absl::Status serving = server->Serve(options, *credentials);
      !serving.ok()) {
    return serving;
  }
  return server;
}

absl::Status IkServer::LoadState(const ServerOptions& options) {
  if (!options.rig_dir.empty()) {
    absl::StatusOr<int> loaded =
        LoadRigDirectory(options.rig_dir, options.limits, registry_);
    if (!loaded.ok()) return loaded.status();
    loaded_rigs_ = *loaded;
  }
  if (!options.terrain_dir.empty()) {
    absl::StatusOr<int> loaded =
        LoadTerrainDirectory(options.terrain_dir, options.limits, terrains_);
    if (!loaded.ok()) return loaded.status();
    loaded_terrains_ = *loaded;
  }
  if (store_ != nullptr) {
    replayed_ = store_->Replay(options.limits, registry_, terrains_);
  }
  return absl::OkStatus();
}

absl::Status IkServer::Serve(
    const ServerOptions& options,
    const std::shared_ptr<grpc::ServerCredentials>& credentials) {
  grpc::EnableDefaultHealthCheckService(true);
  grpc::reflection::InitProtoReflectionServerBuilderPlugin();
  // ikd accepts the connections itself (Listener says why) and hands them
  // to gRPC.
  absl::StatusOr<std::unique_ptr<Listener>> listener =
      Listener::Bind(options.listen);
  if (!listener.ok()) return listener.status();
  listener_ = *std::move(listener);
  port_ = listener_->port();
  grpc::ServerBuilder builder;
  std::unique_ptr<grpc::experimental::ExternalConnectionAcceptor> acceptor =
      builder.experimental().AddExternalConnectionAcceptor(
          grpc::ServerBuilder::experimental_type::ExternalConnectionType::
              FROM_FD,
          credentials);
  LimitTransport(options, builder);
  builder.RegisterService(&service_);
  builder.experimental().SetInterceptorCreators(activity_.Interceptors());
  server_ = builder.BuildAndStart();
  if (server_ == nullptr) {
    return absl::UnavailableError(
        absl::StrCat("listen: cannot serve on ", options.listen));
  }
  acceptor_ = std::move(acceptor);
  listener_->Start(acceptor_.get(),
                   {.max_connections = options.max_connections,
                    .max_per_peer = options.max_connections_per_peer,
                    .max_idle = options.max_idle_connections},
                   &activity_);
  grpc::HealthCheckServiceInterface* health = server_->GetHealthCheckService();
  health->SetServingStatus(true);
  health->SetServingStatus(v1::IkService::service_full_name(), true);
  return absl::OkStatus();
}

absl::Status IkServer::ServeMetrics(const std::string& listen) {
  MetricSources sources;
  sources.calls_in_flight = [this] { return service_.calls_inside(); };
  sources.queued_tasks = [this] { return pool_.queued(); };
  sources.solver_threads = pool_.threads();
  sources.rigs = [this] { return static_cast<int>(registry_.List().size()); };
  sources.terrains = [this] {
    return static_cast<int>(terrains_.List().size());
  };
  sources.registry_bytes = [this] { return budget_.held(); };
  sources.registry_budget_bytes = budget_.max_bytes();
  sources.draining = [this] { return service_.draining(); };
  sources.counters = &service_.handlers().counters();
  if (recorder_ != nullptr) sources.recording = &recorder_->counters();
  const google::protobuf::ServiceDescriptor* service =
      google::protobuf::DescriptorPool::generated_pool()->FindServiceByName(
          v1::IkService::service_full_name());
  if (service == nullptr) {
    return absl::InternalError("IkService's descriptor is not linked");
  }
  std::vector<std::string> methods;
  for (int i = 0; i < service->method_count(); ++i) {
    methods.push_back(service->method(i)->name());
  }
  metrics_ = std::make_unique<Metrics>(std::move(sources), methods);
  service_.AddObserver(metrics_.get());
  return metrics_->Serve(listen);
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
