// The fixture of the IkService tests: an ikd server on a free loopback port
// and a raw stub on a real channel to it.
#ifndef IK_TESTS_SERVER_SERVICE_FIXTURE_H_
#define IK_TESTS_SERVER_SERVICE_FIXTURE_H_

#include <grpcpp/grpcpp.h>

#include <chrono>
#include <memory>
#include <ostream>
#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "ik/v1/ik.grpc.pb.h"
#include "server.h"
#include "test_rigs.h"

namespace ik::server {

// One case of a parameterised error test: how it spoils a good request, and
// the status code and start of the message that must come back. Printed
// (and, with BadRequestName, named) after `name`.
template <typename Request>
struct BadRequest {
  const char* name;
  void (*mutate)(Request&);
  grpc::StatusCode code;
  const char* message;

  friend void PrintTo(const BadRequest& bad, std::ostream* out) {
    *out << bad.name;
  }
};

struct BadRequestName {
  template <typename Info>
  std::string operator()(const Info& info) const {
    return info.param.name;
  }
};

class IkServiceTest : public ::testing::Test {
 protected:
  void SetUp() override { StartServer(ServerOptions()); }

  void StartServer(ServerOptions options) {
    options.listen = "127.0.0.1:0";
    auto server = IkServer::Start(options);
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = *std::move(server);
    channel_ = grpc::CreateChannel(absl::StrCat("127.0.0.1:", server_->port()),
                                   grpc::InsecureChannelCredentials());
    stub_ = v1::IkService::NewStub(channel_);
  }

  std::unique_ptr<grpc::ClientContext> Context() {
    auto context = std::make_unique<grpc::ClientContext>();
    context->set_deadline(std::chrono::system_clock::now() +
                          std::chrono::seconds(10));
    return context;
  }

  grpc::Status Register(const v1::Rig& rig, bool replace,
                        v1::RegisterRigResponse* response) {
    v1::RegisterRigRequest request;
    *request.mutable_rig() = rig;
    request.set_replace(replace);
    return stub_->RegisterRig(Context().get(), request, response);
  }

  grpc::Status Solve(const v1::SolveChainRequest& request,
                     v1::SolveChainResponse* response) {
    return stub_->SolveChain(Context().get(), request, response);
  }

  // A reachable goal for the arm rig: 0.4 m from the shoulder.
  static v1::SolveChainRequest ArmRequest() {
    v1::SolveChainRequest request;
    request.set_rig("arm");
    v1::ChainGoal* goal = request.add_goals();
    goal->set_chain("arm");
    *goal->mutable_target() = ::ik::testing::Vec(0.1, -0.35, 0.15);
    return request;
  }

  void RegisterArm() {
    v1::RegisterRigResponse response;
    grpc::Status status = Register(::ik::testing::ArmRig(), false, &response);
    ASSERT_TRUE(status.ok()) << status.error_message();
  }

  std::unique_ptr<IkServer> server_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<v1::IkService::Stub> stub_;
};

}  // namespace ik::server

#endif  // IK_TESTS_SERVER_SERVICE_FIXTURE_H_
