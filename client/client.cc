#include "ik/client.h"

#include <utility>

#include "grpc/health/v1/health.grpc.pb.h"

namespace ik {
namespace {

// Runs one unary call with a fresh deadline-carrying context.
template <typename Response, typename Call>
absl::StatusOr<Response> Unary(std::unique_ptr<grpc::ClientContext> context,
                               Call&& call) {
  Response response;
  grpc::Status status = call(context.get(), &response);
  if (!status.ok()) return FromGrpcStatus(status);
  return response;
}

std::shared_ptr<grpc::Channel> MakeChannel(const ClientOptions& options) {
  grpc::ChannelArguments arguments = options.channel_arguments;
  if (!options.load_balancing_policy.empty()) {
    arguments.SetLoadBalancingPolicyName(options.load_balancing_policy);
  }
  std::shared_ptr<grpc::ChannelCredentials> credentials =
      options.credentials != nullptr ? options.credentials
                                     : grpc::InsecureChannelCredentials();
  return grpc::CreateCustomChannel(options.target, credentials, arguments);
}

}  // namespace

absl::Status FromGrpcStatus(const grpc::Status& status) {
  if (status.ok()) return absl::OkStatus();
  return absl::Status(static_cast<absl::StatusCode>(status.error_code()),
                      status.error_message());
}

Client::Client(const ClientOptions& options)
    : Client(MakeChannel(options), options.deadline) {}

Client::Client(std::shared_ptr<grpc::Channel> channel, absl::Duration deadline)
    : channel_(std::move(channel)),
      stub_(v1::IkService::NewStub(channel_)),
      deadline_(deadline) {}

std::unique_ptr<grpc::ClientContext> Client::NewContext() const {
  auto context = std::make_unique<grpc::ClientContext>();
  context->set_deadline(absl::ToChronoTime(absl::Now() + deadline_));
  return context;
}

absl::StatusOr<v1::RegisterRigResponse> Client::RegisterRig(const v1::Rig& rig,
                                                            bool replace) {
  v1::RegisterRigRequest request;
  *request.mutable_rig() = rig;
  request.set_replace(replace);
  return Unary<v1::RegisterRigResponse>(
      NewContext(), [&](grpc::ClientContext* context, auto* response) {
        return stub_->RegisterRig(context, request, response);
      });
}

absl::StatusOr<v1::GetRigResponse> Client::GetRig(absl::string_view name) {
  v1::GetRigRequest request;
  request.set_name(std::string(name));
  return Unary<v1::GetRigResponse>(
      NewContext(), [&](grpc::ClientContext* context, auto* response) {
        return stub_->GetRig(context, request, response);
      });
}

absl::StatusOr<v1::ListRigsResponse> Client::ListRigs() {
  v1::ListRigsRequest request;
  return Unary<v1::ListRigsResponse>(
      NewContext(), [&](grpc::ClientContext* context, auto* response) {
        return stub_->ListRigs(context, request, response);
      });
}

absl::StatusOr<v1::DeleteRigResponse> Client::DeleteRig(
    absl::string_view name, absl::string_view revision) {
  v1::DeleteRigRequest request;
  request.set_name(std::string(name));
  request.set_revision(std::string(revision));
  return Unary<v1::DeleteRigResponse>(
      NewContext(), [&](grpc::ClientContext* context, auto* response) {
        return stub_->DeleteRig(context, request, response);
      });
}

absl::StatusOr<v1::SolveChainResponse> Client::SolveChain(
    const v1::SolveChainRequest& request) {
  return Unary<v1::SolveChainResponse>(
      NewContext(), [&](grpc::ClientContext* context, auto* response) {
        return stub_->SolveChain(context, request, response);
      });
}

absl::StatusOr<v1::StepDynamicsResponse> Client::StepDynamics(
    const v1::StepDynamicsRequest& request) {
  return Unary<v1::StepDynamicsResponse>(
      NewContext(), [&](grpc::ClientContext* context, auto* response) {
        return stub_->StepDynamics(context, request, response);
      });
}

absl::StatusOr<bool> Client::CheckHealth(absl::string_view service) {
  auto health = grpc::health::v1::Health::NewStub(channel_);
  grpc::health::v1::HealthCheckRequest request;
  request.set_service(std::string(service));
  absl::StatusOr<grpc::health::v1::HealthCheckResponse> response =
      Unary<grpc::health::v1::HealthCheckResponse>(
          NewContext(), [&](grpc::ClientContext* context, auto* out) {
            return health->Check(context, request, out);
          });
  if (!response.ok()) return response.status();
  return response->status() == grpc::health::v1::HealthCheckResponse::SERVING;
}

}  // namespace ik
