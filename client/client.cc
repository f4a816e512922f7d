#include "ik/client.h"

#include <cstring>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/cord.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "google/rpc/error_details.pb.h"
#include "google/rpc/status.pb.h"
#include "grpc/health/v1/health.grpc.pb.h"

namespace ik {
namespace {

// Whether `arguments` set `key`.
bool HasArgument(const grpc::ChannelArguments& arguments, const char* key) {
  grpc_channel_args set;
  arguments.SetChannelArgs(&set);
  for (size_t i = 0; i < set.num_args; ++i) {
    if (std::strcmp(set.args[i].key, key) == 0) return true;
  }
  return false;
}

std::shared_ptr<grpc::Channel> MakeChannel(const ClientOptions& options) {
  grpc::ChannelArguments arguments = options.channel_arguments;
  if (!HasArgument(arguments, GRPC_ARG_MAX_RECEIVE_MESSAGE_LENGTH)) {
    arguments.SetMaxReceiveMessageSize(options.max_receive_message_bytes);
  }
  if (!options.load_balancing_policy.empty()) {
    arguments.SetLoadBalancingPolicyName(options.load_balancing_policy);
  }
  std::shared_ptr<grpc::ChannelCredentials> credentials =
      options.credentials != nullptr ? options.credentials
                                     : grpc::InsecureChannelCredentials();
  return grpc::CreateCustomChannel(options.target, credentials, arguments);
}

// The string at `path` ("rig", "ground.terrains[1]", "characters[3].rig")
// in `message`, found by reflection; empty when the path leads elsewhere.
std::string StringAt(const google::protobuf::Message& message,
                     absl::string_view path) {
  const google::protobuf::Message* at = &message;
  for (absl::string_view part : absl::StrSplit(path, '.')) {
    int index = -1;
    const size_t bracket = part.find('[');
    if (bracket != absl::string_view::npos) {
      if (part.back() != ']' ||
          !absl::SimpleAtoi(part.substr(bracket + 1, part.size() - bracket - 2),
                            &index)) {
        return "";
      }
      part = part.substr(0, bracket);
    }
    const google::protobuf::FieldDescriptor* field =
        at->GetDescriptor()->FindFieldByName(std::string(part));
    if (field == nullptr || field->is_repeated() != (index >= 0)) return "";
    const google::protobuf::Reflection* reflection = at->GetReflection();
    if (field->is_repeated() && index >= reflection->FieldSize(*at, field)) {
      return "";
    }
    if (field->type() == google::protobuf::FieldDescriptor::TYPE_STRING) {
      return field->is_repeated()
                 ? reflection->GetRepeatedString(*at, field, index)
                 : reflection->GetString(*at, field);
    }
    if (field->type() != google::protobuf::FieldDescriptor::TYPE_MESSAGE) {
      return "";
    }
    at = field->is_repeated()
             ? &reflection->GetRepeatedMessage(*at, field, index)
             : &reflection->GetMessage(*at, field);
  }
  return "";
}

}  // namespace

absl::Status FromGrpcStatus(const grpc::Status& status) {
  if (status.ok()) return absl::OkStatus();
  absl::Status out(static_cast<absl::StatusCode>(status.error_code()),
                   status.error_message());
  if (!status.error_details().empty()) {
    out.SetPayload(kRpcStatusPayload, absl::Cord(status.error_details()));
  }
  return out;
}

std::vector<FieldViolation> FieldViolations(const absl::Status& status) {
  std::vector<FieldViolation> violations;
  auto payload = status.GetPayload(kRpcStatusPayload);
  google::rpc::Status details;
  if (!payload.has_value() || !details.ParseFromString(std::string(*payload))) {
    return violations;
  }
  for (const google::protobuf::Any& detail : details.details()) {
    google::rpc::BadRequest bad_request;
    if (!detail.UnpackTo(&bad_request)) continue;
    for (const auto& violation : bad_request.field_violations()) {
      violations.push_back({violation.field(), violation.description()});
    }
  }
  return violations;
}

absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> TlsCredentials(
    const TlsFiles& files) {
  if (files.cert_file.empty() != files.key_file.empty()) {
    return absl::InvalidArgumentError(
        "a client certificate needs both its file and its key's");
  }
  grpc::SslCredentialsOptions options;
  const std::pair<const std::string*, std::string*> reads[] = {
      {&files.ca_file, &options.pem_root_certs},
      {&files.cert_file, &options.pem_cert_chain},
      {&files.key_file, &options.pem_private_key}};
  for (const auto& [path, pem] : reads) {
    if (path->empty()) continue;
    std::ifstream file(*path, std::ios::binary);
    std::stringstream contents;
    contents << file.rdbuf();
    if (!file || contents.str().empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat(*path, ": cannot be read (or is empty)"));
    }
    *pem = contents.str();
  }
  return grpc::SslCredentials(options);
}

Client::Client(const ClientOptions& options)
    : Client(MakeChannel(options), options.deadline, options.token) {}

Client::Client(std::shared_ptr<grpc::Channel> channel, absl::Duration deadline,
               std::string token)
    : channel_(std::move(channel)),
      stub_(v1::IkService::NewStub(channel_)),
      deadline_(deadline),
      token_(std::move(token)) {}

void Client::PrepareContext(grpc::ClientContext& context) const {
  if (!token_.empty()) {
    context.AddMetadata("authorization", absl::StrCat("Bearer ", token_));
  }
}

template <typename Request, typename Response>
absl::StatusOr<Response> Client::Call(
    grpc::Status (v1::IkService::Stub::*method)(grpc::ClientContext*,
                                                const Request&, Response*),
    const Request& request) const {
  grpc::ClientContext context;
  context.set_deadline(absl::ToChronoTime(absl::Now() + deadline_));
  PrepareContext(context);
  Response response;
  grpc::Status status = (stub_.get()->*method)(&context, request, &response);
  if (!status.ok()) return FromGrpcStatus(status);
  return response;
}

absl::StatusOr<v1::RegisterRigResponse> Client::RegisterRig(const v1::Rig& rig,
                                                            bool replace) {
  v1::RegisterRigRequest request;
  *request.mutable_rig() = rig;
  request.set_replace(replace);
  return Call(&v1::IkService::Stub::RegisterRig, request);
}

absl::StatusOr<v1::GetRigResponse> Client::GetRig(absl::string_view name) {
  v1::GetRigRequest request;
  request.set_name(std::string(name));
  return Call(&v1::IkService::Stub::GetRig, request);
}

absl::StatusOr<v1::ListRigsResponse> Client::ListRigs() {
  return Call(&v1::IkService::Stub::ListRigs, v1::ListRigsRequest());
}

absl::StatusOr<v1::DeleteRigResponse> Client::DeleteRig(
    absl::string_view name, absl::string_view revision) {
  v1::DeleteRigRequest request;
  request.set_name(std::string(name));
  request.set_revision(std::string(revision));
  return Call(&v1::IkService::Stub::DeleteRig, request);
}

void Client::KeepRegistered(const v1::Rig& rig) {
  absl::MutexLock lock(&kept_mutex_);
  kept_rigs_[rig.name()] = rig;
}

void Client::KeepRegistered(const v1::Terrain& terrain) {
  absl::MutexLock lock(&kept_mutex_);
  kept_terrains_[terrain.name()] = terrain;
}

bool Client::RegisterKept(const google::protobuf::Message& request,
                          absl::string_view path) {
  const std::string name = StringAt(request, path);
  if (name.empty()) return false;
  std::optional<v1::Rig> rig;
  std::optional<v1::Terrain> terrain;
  {
    absl::MutexLock lock(&kept_mutex_);
    const bool names_terrain = absl::StrContains(path, "terrains[");
    if (!names_terrain && kept_rigs_.count(name) != 0) rig = kept_rigs_[name];
    if (names_terrain && kept_terrains_.count(name) != 0) {
      terrain = kept_terrains_[name];
    }
  }
  if (rig.has_value()) return RegisterRig(*rig).ok();
  if (terrain.has_value()) return RegisterTerrain(*terrain).ok();
  return false;
}

template <typename Request, typename Response>
absl::StatusOr<Response> Client::CallKeepingRegistered(
    grpc::Status (v1::IkService::Stub::*method)(grpc::ClientContext*,
                                                const Request&, Response*),
    const Request& request) {
  absl::StatusOr<Response> answer = Call(method, request);
  // Each retry follows the registration of a different missing name (a
  // rig, then a terrain, ...), a few at most.
  std::set<std::string> registered;
  while (answer.status().code() == absl::StatusCode::kNotFound &&
         registered.size() < 4) {
    const std::vector<FieldViolation> violations =
        FieldViolations(answer.status());
    if (violations.empty() || !registered.insert(violations[0].field).second ||
        !RegisterKept(request, violations[0].field)) {
      return answer;
    }
    answer = Call(method, request);
  }
  return answer;
}

absl::StatusOr<v1::SolveChainResponse> Client::SolveChain(
    const v1::SolveChainRequest& request) {
  return CallKeepingRegistered(&v1::IkService::Stub::SolveChain, request);
}

absl::StatusOr<v1::StepDynamicsResponse> Client::StepDynamics(
    const v1::StepDynamicsRequest& request) {
  return CallKeepingRegistered(&v1::IkService::Stub::StepDynamics, request);
}

absl::StatusOr<v1::GroundFeetResponse> Client::GroundFeet(
    const v1::GroundFeetRequest& request) {
  return CallKeepingRegistered(&v1::IkService::Stub::GroundFeet, request);
}

absl::StatusOr<v1::TickResponse> Client::Tick(const v1::TickRequest& request) {
  absl::StatusOr<v1::TickResponse> answer =
      CallKeepingRegistered(&v1::IkService::Stub::Tick, request);
  if (!answer.ok()) return answer;
  // A character's rig or terrain missing: register what is kept (each name
  // once), then send the tick again (it is stateless) once.
  std::set<std::string> tried;
  bool registered = false;
  for (const v1::TickCharacterResult& character : answer->characters()) {
    for (const v1::JobStatus* status :
         {&character.status(), &character.ground_status(),
          &character.goals_status(), &character.dynamics_status(),
          &character.check_status()}) {
      if (status->code() != static_cast<int>(absl::StatusCode::kNotFound)) {
        continue;
      }
      const std::string named = absl::StrCat(
          absl::StrContains(status->field(), "terrains[") ? "terrain " : "rig ",
          StringAt(request, status->field()));
      if (tried.insert(named).second &&
          RegisterKept(request, status->field())) {
        registered = true;
      }
    }
  }
  if (!registered) return answer;
  return Call(&v1::IkService::Stub::Tick, request);
}

TickStream::TickStream(const Client& client)
    : stub_(v1::IkService::NewStub(client.channel())) {
  client.PrepareContext(context_);
  stream_ = stub_->TickStream(&context_);
}

TickStream::~TickStream() { Close().IgnoreError(); }

absl::StatusOr<v1::TickResponse> TickStream::Tick(
    const v1::TickRequest& request) {
  if (closed_.has_value()) {
    return closed_->ok() ? absl::FailedPreconditionError("the stream is closed")
                         : *closed_;
  }
  v1::TickResponse response;
  if (!stream_->Write(request) || !stream_->Read(&response)) {
    return Close().ok() ? absl::UnavailableError("the stream ended") : *closed_;
  }
  if (response.sequence() != request.sequence()) {
    return absl::InternalError(absl::StrCat("answer for tick ",
                                            response.sequence(), " to tick ",
                                            request.sequence()));
  }
  if (response.status().code() != 0) {
    return absl::Status(static_cast<absl::StatusCode>(response.status().code()),
                        response.status().message());
  }
  return response;
}

absl::Status TickStream::Close() {
  if (closed_.has_value()) return *closed_;
  stream_->WritesDone();
  v1::TickResponse unread;
  while (stream_->Read(&unread)) {
  }
  closed_ = FromGrpcStatus(stream_->Finish());
  return *closed_;
}

absl::StatusOr<v1::RegisterTerrainResponse> Client::RegisterTerrain(
    const v1::Terrain& terrain, bool replace) {
  v1::RegisterTerrainRequest request;
  *request.mutable_terrain() = terrain;
  request.set_replace(replace);
  return Call(&v1::IkService::Stub::RegisterTerrain, request);
}

absl::StatusOr<v1::ListTerrainsResponse> Client::ListTerrains() {
  return Call(&v1::IkService::Stub::ListTerrains, v1::ListTerrainsRequest());
}

absl::StatusOr<v1::DeleteTerrainResponse> Client::DeleteTerrain(
    absl::string_view name, absl::string_view revision) {
  v1::DeleteTerrainRequest request;
  request.set_name(std::string(name));
  request.set_revision(std::string(revision));
  return Call(&v1::IkService::Stub::DeleteTerrain, request);
}

absl::StatusOr<bool> Client::CheckHealth(absl::string_view service) {
  auto health = grpc::health::v1::Health::NewStub(channel_);
  grpc::health::v1::HealthCheckRequest request;
  request.set_service(std::string(service));
  grpc::ClientContext context;
  context.set_deadline(absl::ToChronoTime(absl::Now() + deadline_));
  grpc::health::v1::HealthCheckResponse response;
  grpc::Status status = health->Check(&context, request, &response);
  if (!status.ok()) return FromGrpcStatus(status);
  return response.status() == grpc::health::v1::HealthCheckResponse::SERVING;
}

}  // namespace ik
