// ik::Client: the C++ client library for ikd.
//
// Every call carries a deadline (ClientOptions::deadline) and returns
// absl::Status / absl::StatusOr with the server's code and message.
//
//   ik::ClientOptions options;
//   options.target = "127.0.0.1:50051";
//   ik::Client client(options);
//   ik::v1::SolveChainRequest request;
//   request.set_rig("humanoid");
//   ik::v1::ChainGoal* goal = request.add_goals();
//   goal->set_chain("left_arm");
//   goal->mutable_target()->set_x(0.45);  // ...
//   absl::StatusOr<ik::v1::SolveChainResponse> answer =
//       client.SolveChain(request);
//
// Thread-safe: one Client may be shared by many threads; it holds one
// channel (HTTP/2 connection pool) for its target.
#ifndef IK_CLIENT_H_
#define IK_CLIENT_H_

#include <grpcpp/grpcpp.h>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "ik/v1/ik.grpc.pb.h"
#include "ik/v1/ik.pb.h"

namespace ik {

struct ClientOptions {
  // gRPC target: "host:port", "dns:///name:port", "unix:path", ...
  std::string target = "127.0.0.1:50051";
  // Deadline applied to every call.
  absl::Duration deadline = absl::Seconds(5);
  // Channel credentials; null means insecure (plaintext).
  std::shared_ptr<grpc::ChannelCredentials> credentials;
  // Extra channel arguments (message sizes, keepalive, ...).
  grpc::ChannelArguments channel_arguments;
  // Largest answer accepted, bytes; -1: no limit. gRPC's own default, 4 MiB,
  // is less than the answer to a tick of about 2,400 characters. A
  // GRPC_ARG_MAX_RECEIVE_MESSAGE_LENGTH set in channel_arguments wins.
  int max_receive_message_bytes = 64 << 20;
  // Load-balancing policy, e.g. "round_robin" to spread calls over every
  // address a DNS name resolves to; empty keeps gRPC's default (pick_first).
  std::string load_balancing_policy;
  // Bearer token sent with every call (`authorization: Bearer <token>`),
  // for an ikd started with --token_file; empty: none. It is sent over
  // plaintext too when `credentials` are not TLS.
  std::string token;
};

// The files of a TLS connection to ikd, all PEM.
struct TlsFiles {
  // CAs that sign the server's certificate; empty: the system's roots.
  std::string ca_file;
  // The client's certificate chain and key, for an ikd that requires client
  // certificates (--tls_client_ca); both or neither.
  std::string cert_file;
  std::string key_file;
};

// TLS channel credentials from `files` (put them in
// ClientOptions::credentials); INVALID_ARGUMENT naming the file that cannot
// be read, or when only one of cert_file and key_file is given. The server
// name checked against the certificate is the target's host; to check
// another, set GRPC_SSL_TARGET_NAME_OVERRIDE_ARG in channel_arguments.
absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> TlsCredentials(
    const TlsFiles& files);

class Client {
 public:
  explicit Client(const ClientOptions& options);
  // Uses an existing channel (e.g. one shared with other stubs); `token` as
  // in ClientOptions.
  Client(std::shared_ptr<grpc::Channel> channel, absl::Duration deadline,
         std::string token = "");

  absl::StatusOr<v1::RegisterRigResponse> RegisterRig(const v1::Rig& rig,
                                                      bool replace = false);
  absl::StatusOr<v1::GetRigResponse> GetRig(absl::string_view name);
  absl::StatusOr<v1::ListRigsResponse> ListRigs();
  // `revision`, when non-empty, must match the registered one.
  absl::StatusOr<v1::DeleteRigResponse> DeleteRig(
      absl::string_view name, absl::string_view revision = "");
  absl::StatusOr<v1::SolveChainResponse> SolveChain(
      const v1::SolveChainRequest& request);
  // One time step of a rig's dynamic chains; send each result's `state`
  // back with the next step (ik.proto documents the state).
  absl::StatusOr<v1::StepDynamicsResponse> StepDynamics(
      const v1::StepDynamicsRequest& request);
  // Puts a character's feet on the request's ground (planes, inline
  // heightfields, registered terrains).
  absl::StatusOr<v1::GroundFeetResponse> GroundFeet(
      const v1::GroundFeetRequest& request);
  // Many characters' grounding, goals and dynamics in one call (a game
  // server's tick). Per-character and per-job failures come back inside the
  // answer (TickCharacterResult's statuses); the call fails only when the
  // tick as a whole does. For tick after tick, TickStream below saves the
  // call setup.
  absl::StatusOr<v1::TickResponse> Tick(const v1::TickRequest& request);

  // Terrains (heightfields and triangle meshes) for GroundFeet to name.
  // A large mesh may need a longer deadline (the server builds its BVH) and
  // a larger --max_message_bytes on the server.
  absl::StatusOr<v1::RegisterTerrainResponse> RegisterTerrain(
      const v1::Terrain& terrain, bool replace = false);
  absl::StatusOr<v1::ListTerrainsResponse> ListTerrains();
  // `revision`, when non-empty, must match the registered one.
  absl::StatusOr<v1::DeleteTerrainResponse> DeleteTerrain(
      absl::string_view name, absl::string_view revision = "");

  // The gRPC health status of `service` ("" for the whole server): OK with
  // true when SERVING, false otherwise; an error when the server cannot be
  // reached or does not know the service.
  absl::StatusOr<bool> CheckHealth(absl::string_view service = "");

  // Registration on demand, for replicas that do not share their rigs: a
  // rig or terrain given here is registered again (without replace), and
  // the call retried (once per missing name), when a SolveChain, GroundFeet,
  // StepDynamics or Tick is answered NOT_FOUND for it -- the call, or for a
  // tick one of its characters (a replica that restarted without --state_dir,
  // or one a load balancer picked that never saw it). Names and content are the
  // caller's; the last definition given for a name is used.
  void KeepRegistered(const v1::Rig& rig);
  void KeepRegistered(const v1::Terrain& terrain);

  const std::shared_ptr<grpc::Channel>& channel() const { return channel_; }
  // Sets what every call of this client carries on `context`: its token.
  void PrepareContext(grpc::ClientContext& context) const;

 private:
  // Registers the kept rig or terrain that `request`'s field `path` names
  // (a path a NOT_FOUND named); true when one was registered (or found
  // already there).
  bool RegisterKept(const google::protobuf::Message& request,
                    absl::string_view path);
  // A solving call, retried after RegisterKept when it is NOT_FOUND for a
  // kept rig or terrain (once per name).
  template <typename Request, typename Response>
  absl::StatusOr<Response> CallKeepingRegistered(
      grpc::Status (v1::IkService::Stub::*method)(grpc::ClientContext*,
                                                  const Request&, Response*),
      const Request& request);

  // One unary call of `method` with a fresh context whose deadline is now +
  // deadline_.
  template <typename Request, typename Response>
  absl::StatusOr<Response> Call(
      grpc::Status (v1::IkService::Stub::*method)(grpc::ClientContext*,
                                                  const Request&, Response*),
      const Request& request) const;

  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<v1::IkService::Stub> stub_;
  absl::Duration deadline_;
  std::string token_;
  absl::Mutex kept_mutex_;
  std::map<std::string, v1::Rig> kept_rigs_ ABSL_GUARDED_BY(kept_mutex_);
  std::map<std::string, v1::Terrain> kept_terrains_
      ABSL_GUARDED_BY(kept_mutex_);
};

// grpc::Status -> absl::Status; the codes share their numbering. The status
// details the server sent (a serialised google.rpc.Status) travel along as
// the payload kRpcStatusPayload.
// One TickStream kept open for tick after tick. Not thread-safe: one Tick
// at a time.
//
//   ik::TickStream stream(client);
//   for (;;) {
//     absl::StatusOr<ik::v1::TickResponse> answer = stream.Tick(request);
//     ...
//   }
class TickStream {
 public:
  // Opens the stream on `client`'s channel. It has no deadline: it lasts as
  // long as this object (cancel it from another thread with Cancel()).
  explicit TickStream(const Client& client);
  // Closes the stream (Close() if not called yet).
  ~TickStream();
  TickStream(const TickStream&) = delete;
  TickStream& operator=(const TickStream&) = delete;

  // Sends `request` and returns its answer, checking that the answer
  // echoes the request's `sequence` (set it, e.g. a tick counter, to tell
  // ticks apart; the request is sent as it is, not copied). A tick that
  // fails as a whole gives its status (the stream stays usable); a broken
  // stream gives the stream's final status, and every later call fails with
  // it.
  absl::StatusOr<v1::TickResponse> Tick(const v1::TickRequest& request);

  // Closes the sending side and returns the stream's final status.
  absl::Status Close();

  // Cancels the stream: a Tick waiting for its answer returns CANCELLED.
  // Thread-safe.
  void Cancel() { context_.TryCancel(); }

 private:
  std::unique_ptr<v1::IkService::Stub> stub_;
  grpc::ClientContext context_;
  std::unique_ptr<grpc::ClientReaderWriter<v1::TickRequest, v1::TickResponse>>
      stream_;
  std::optional<absl::Status> closed_;
};

absl::Status FromGrpcStatus(const grpc::Status& status);

// The payload type URL under which FromGrpcStatus keeps the details.
inline constexpr absl::string_view kRpcStatusPayload =
    "type.googleapis.com/google.rpc.Status";

// One input at fault in a refused request: `field` is the request's field
// path ("goals[3].target", "rig.colliders[0].sphere.radius"), `description`
// the message after it.
struct FieldViolation {
  std::string field;
  std::string description;
};

// The field violations (google.rpc.BadRequest) an error of a Client call
// carries; empty when the error names no field (or is OK).
//
//   absl::StatusOr<v1::SolveChainResponse> answer = client.SolveChain(r);
//   for (const ik::FieldViolation& v : ik::FieldViolations(answer.status()))
//     std::cerr << v.field << ": " << v.description << "\n";
std::vector<FieldViolation> FieldViolations(const absl::Status& status);

}  // namespace ik

#endif  // IK_CLIENT_H_
