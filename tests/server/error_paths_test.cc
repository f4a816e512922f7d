// Every error begins with the request's real field path. A table of
// malformed requests for every RPC is sent to a real ikd over a real
// channel; for each answer the test checks, by protobuf reflection on the
// request's descriptor, that the path at the start of the message resolves
// to a real field of the request (dotted proto field names, `[i]` for an
// element that exists, never a oneof's name), that it is the path the table
// expects, and that the status details carry the same path and description
// as a google.rpc.BadRequest field violation. A wrong path cannot pass.
#include "error_paths.h"

#include <grpcpp/grpcpp.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/message.h"
#include "google/rpc/error_details.pb.h"
#include "google/rpc/status.pb.h"
#include "gtest/gtest.h"
#include "server.h"
#include "test_rigs.h"

namespace ik::server {

using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;

// Empty when `path` names a field of `request` (elements by index must
// exist), else why not.
std::string ResolvePath(const Message& request, absl::string_view path) {
  const Message* message = &request;
  std::vector<absl::string_view> segments = absl::StrSplit(path, '.');
  for (size_t s = 0; s < segments.size(); ++s) {
    if (message == nullptr) {
      return absl::StrCat("'", segments[s - 1], "' is not a message");
    }
    absl::string_view segment = segments[s];
    absl::string_view name = segment;
    int index = -1;
    if (const size_t bracket = segment.find('[');
        bracket != absl::string_view::npos) {
      if (segment.back() != ']' ||
          !absl::SimpleAtoi(
              segment.substr(bracket + 1, segment.size() - bracket - 2),
              &index)) {
        return absl::StrCat("bad segment '", segment, "'");
      }
      name = segment.substr(0, bracket);
    }
    const FieldDescriptor* field =
        message->GetDescriptor()->FindFieldByName(std::string(name));
    if (field == nullptr) {
      return absl::StrCat(message->GetDescriptor()->full_name(),
                          " has no field '", name, "'");
    }
    const Reflection* reflection = message->GetReflection();
    // A repeated field is named whole ("goals: at least one ...") only at
    // the end of a path; inside one it needs an element.
    const bool last = s + 1 == segments.size();
    if (!field->is_repeated() && index >= 0) {
      return absl::StrCat("'", name, "' takes no index");
    }
    if (field->is_repeated() && index < 0) {
      if (last) return "";
      return absl::StrCat("'", name, "' needs an index");
    }
    if (index >= 0 && index >= reflection->FieldSize(*message, field)) {
      return absl::StrCat("'", segment, "': the request has only ",
                          reflection->FieldSize(*message, field), " elements");
    }
    if (field->cpp_type() != FieldDescriptor::CPPTYPE_MESSAGE) {
      message = nullptr;
    } else if (index >= 0) {
      message = &reflection->GetRepeatedMessage(*message, field, index);
    } else {
      message = &reflection->GetMessage(*message, field);
    }
  }
  return "";
}

namespace {

class ErrorPathsTest : public ::testing::TestWithParam<ErrorCase> {
 protected:
  static void SetUpTestSuite() {
    ServerOptions options;
    options.listen = "127.0.0.1:0";
    options.rig_dir = IK_EXAMPLES_DIR "/rigs";
    options.terrain_dir = IK_EXAMPLES_DIR "/terrains";
    auto server = IkServer::Start(options);
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = server->release();
    stub_ = v1::IkService::NewStub(
                grpc::CreateChannel(absl::StrCat("127.0.0.1:", server_->port()),
                                    grpc::InsecureChannelCredentials()))
                .release();
    // A rig without dynamic chains or legs.
    v1::Rig arm = ::ik::testing::ArmRig();
    arm.set_name("arm_without_dynamics");
    v1::RegisterRigRequest request;
    *request.mutable_rig() = arm;
    v1::RegisterRigResponse response;
    grpc::ClientContext context;
    ASSERT_TRUE(stub_->RegisterRig(&context, request, &response).ok());
  }
  static void TearDownTestSuite() {
    delete stub_;
    delete server_;
  }
  static IkServer* server_;
  static v1::IkService::Stub* stub_;
};
IkServer* ErrorPathsTest::server_ = nullptr;
v1::IkService::Stub* ErrorPathsTest::stub_ = nullptr;

TEST_P(ErrorPathsTest, MessageAndDetailsNameARealFieldOfTheRequest) {
  const ErrorCase& error = GetParam();
  std::unique_ptr<Message> request = error.request();
  const grpc::Status status = error.call(*stub_, *request);
  ASSERT_EQ(status.error_code(), error.code) << status.error_message();
  SCOPED_TRACE(
      absl::StrCat("want ", error.path, " in: ", status.error_message()));

  const std::string& message = status.error_message();
  const size_t colon = message.find(": ");
  ASSERT_NE(colon, std::string::npos) << message;
  const std::string path = message.substr(0, colon);
  EXPECT_EQ(ResolvePath(*request, path), "")
      << "'" << path << "' in: " << message;
  EXPECT_EQ(path, error.path) << message;
  EXPECT_LE(message.size(), 600u) << "names are quoted cut short";

  google::rpc::Status details;
  ASSERT_TRUE(details.ParseFromString(status.error_details()))
      << "no google.rpc.Status in the details of: " << message;
  EXPECT_EQ(details.code(), static_cast<int>(error.code));
  EXPECT_EQ(details.message(), message);
  ASSERT_EQ(details.details_size(), 1) << message;
  google::rpc::BadRequest bad_request;
  ASSERT_TRUE(details.details(0).UnpackTo(&bad_request)) << message;
  ASSERT_EQ(bad_request.field_violations_size(), 1);
  EXPECT_EQ(bad_request.field_violations(0).field(), path);
  EXPECT_EQ(bad_request.field_violations(0).description(),
            message.substr(colon + 2));
}

std::vector<ErrorCase> AllCases() {
  std::vector<ErrorCase> cases;
  const std::pair<const char*, std::vector<ErrorCase> (*)()> parts[] = {
      {"SolveChain", SolveChainCases},     {"RegisterRig", RegisterRigCases},
      {"Registry", RegistryCases},         {"GroundFeet", GroundFeetCases},
      {"StepDynamics", StepDynamicsCases},
  };
  for (const auto& [rpc, part] : parts) {
    for (ErrorCase& error : part()) {
      error.name = absl::StrCat(rpc, "_", error.name);
      cases.push_back(std::move(error));
    }
  }
  return cases;
}

INSTANTIATE_TEST_SUITE_P(EveryRpc, ErrorPathsTest,
                         ::testing::ValuesIn(AllCases()),
                         [](const ::testing::TestParamInfo<ErrorCase>& info) {
                           return info.param.name;
                         });

// The resolver itself: a wrong path cannot pass.
TEST(ResolvePathTest, RejectsWhatIsNotAFieldOfTheRequest) {
  v1::SolveChainRequest request;
  ArmGoal(request);
  v1::RegisterRigRequest rig;
  *rig.mutable_rig() = ::ik::testing::ArmRig();
  rig.mutable_rig()->add_colliders()->mutable_sphere();
  EXPECT_EQ(ResolvePath(request, "goals[0].target"), "");
  EXPECT_EQ(ResolvePath(request, "goals[0].target.x"), "");
  EXPECT_EQ(ResolvePath(rig, "rig.colliders[0].sphere.radius"), "");
  EXPECT_NE(ResolvePath(request, "goals[0]: target"), "");
  EXPECT_NE(ResolvePath(request, "goals[1].target"), "");
  EXPECT_EQ(ResolvePath(request, "goals"), "");
  EXPECT_NE(ResolvePath(request, "goals.target"), "");
  EXPECT_NE(ResolvePath(request, "goals[0].chain_ref"), "");
  EXPECT_NE(ResolvePath(rig, "rig.colliders[0].shape.radius"), "");
  EXPECT_NE(ResolvePath(rig, "rig.dynamic_chains[0].settings.drag"), "");
  EXPECT_NE(ResolvePath(request, "locals[0]"), "");
  EXPECT_NE(ResolvePath(request, "rig[0]"), "");
  EXPECT_NE(ResolvePath(request, "goals[0].target.x.y"), "");
}

}  // namespace
}  // namespace ik::server
