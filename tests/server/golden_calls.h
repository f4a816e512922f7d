// How the golden request set (golden_requests.h) calls the service and
// records an answer; shared by the files that build the set.
#ifndef IK_TESTS_SERVER_GOLDEN_CALLS_H_
#define IK_TESTS_SERVER_GOLDEN_CALLS_H_

#include <grpcpp/grpcpp.h>

#include <chrono>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "golden_requests.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"

namespace ik::testing {

inline std::string Bytes(const google::protobuf::Message& message) {
  std::string bytes;
  google::protobuf::io::StringOutputStream stream(&bytes);
  google::protobuf::io::CodedOutputStream coded(&stream);
  coded.SetSerializationDeterministic(true);
  message.SerializeToCodedStream(&coded);
  return bytes;
}

inline std::unique_ptr<grpc::ClientContext> Context() {
  auto context = std::make_unique<grpc::ClientContext>();
  context->set_deadline(std::chrono::system_clock::now() +
                        std::chrono::seconds(30));
  return context;
}

// Calls one unary method of the stub and records the answer.
template <typename Request, typename Response>
GoldenAnswer Call(grpc::Status (v1::IkService::Stub::*method)(
                      grpc::ClientContext*, const Request&, Response*),
                  v1::IkService::Stub& stub, const Request& request,
                  Response* response_out = nullptr) {
  Response response;
  grpc::Status status = (stub.*method)(Context().get(), request, &response);
  GoldenAnswer answer;
  answer.code = status.error_code();
  if (status.ok()) {
    answer.bytes = Bytes(response);
    answer.text = response.ShortDebugString();
  }
  if (response_out != nullptr) *response_out = response;
  return answer;
}

template <typename Request, typename Response>
GoldenCase MakeCase(std::string name,
                    grpc::Status (v1::IkService::Stub::*method)(
                        grpc::ClientContext*, const Request&, Response*),
                    Request request) {
  return GoldenCase{std::move(name), [method, request](auto& stub) {
                      return Call(method, stub, request);
                    }};
}

// The registry calls (rigs and terrains registered, replaced, listed and
// deleted) and refused requests, appended to `cases`.
void AddRegistryCases(std::vector<GoldenCase>& cases);

}  // namespace ik::testing

#endif  // IK_TESTS_SERVER_GOLDEN_CALLS_H_
