// The error-path test's table (error_paths_test.cc): malformed requests for
// every RPC, each with the status code and the field path its error must
// name, and the reflection resolver that checks a path against a request.
#ifndef IK_TESTS_SERVER_ERROR_PATHS_H_
#define IK_TESTS_SERVER_ERROR_PATHS_H_

#include <grpcpp/grpcpp.h>

#include <chrono>
#include <functional>
#include <limits>
#include <memory>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"
#include "google/protobuf/message.h"
#include "ik/v1/ik.grpc.pb.h"

namespace ik::server {

inline constexpr double kNan = std::numeric_limits<double>::quiet_NaN();

// Empty when `path` names a field of `request` (elements by index must
// exist), else why not.
std::string ResolvePath(const google::protobuf::Message& request,
                        absl::string_view path);

struct ErrorCase {
  std::string name;
  // The whole request, built on demand.
  std::function<std::unique_ptr<google::protobuf::Message>()> request;
  std::function<grpc::Status(v1::IkService::Stub&,
                             const google::protobuf::Message&)>
      call;
  grpc::StatusCode code;
  std::string path;

  friend void PrintTo(const ErrorCase& error, std::ostream* out) {
    *out << error.name;
  }
};

template <typename Request, typename Response>
inline ErrorCase Case(std::string name,
                      grpc::Status (v1::IkService::Stub::*method)(
                          grpc::ClientContext*, const Request&, Response*),
                      std::function<void(Request&)> make, grpc::StatusCode code,
                      std::string path) {
  return ErrorCase{std::move(name),
                   [make] {
                     auto request = std::make_unique<Request>();
                     make(*request);
                     return request;
                   },
                   [method](v1::IkService::Stub& stub,
                            const google::protobuf::Message& request) {
                     grpc::ClientContext context;
                     context.set_deadline(std::chrono::system_clock::now() +
                                          std::chrono::seconds(10));
                     Response response;
                     return (stub.*method)(&context,
                                           static_cast<const Request&>(request),
                                           &response);
                   },
                   code, std::move(path)};
}

using Stub = v1::IkService::Stub;
inline constexpr auto kInvalid = grpc::StatusCode::INVALID_ARGUMENT;
inline constexpr auto kNotFound = grpc::StatusCode::NOT_FOUND;
inline constexpr auto kPrecondition = grpc::StatusCode::FAILED_PRECONDITION;
inline constexpr auto kExhausted = grpc::StatusCode::RESOURCE_EXHAUSTED;

// A reachable goal for the humanoid's left arm.
void ArmGoal(v1::SolveChainRequest& request);

// The tables, one per part of the API.
std::vector<ErrorCase> SolveChainCases();
std::vector<ErrorCase> RegisterRigCases();
std::vector<ErrorCase> RegistryCases();
std::vector<ErrorCase> GroundFeetCases();
std::vector<ErrorCase> StepDynamicsCases();

}  // namespace ik::server

#endif  // IK_TESTS_SERVER_ERROR_PATHS_H_
