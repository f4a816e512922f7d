// Server reflection as a tool such as grpcurl uses it, against a real ikd
// process over a real channel: list the services, then describe
// ik.v1.IkService and one of its messages from the file descriptors the
// server sends, and hold them against proto/ik/v1's .proto files as protoc
// reads them (a descriptor set the build writes with --include_imports).
// The client side of reflection is generated from gRPC's own
// reflection.proto, for v1alpha and v1.
//
// gRPC serves v1alpha; a gRPC that also serves v1 lists it, and then v1
// must answer the same. A v1 that is not listed must answer UNIMPLEMENTED.
#include <grpcpp/grpcpp.h>

#include <chrono>
#include <fstream>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "google/protobuf/descriptor.h"
#include "google/protobuf/descriptor.pb.h"
#include "google/protobuf/descriptor_database.h"
#include "grpc/reflection/v1/reflection.grpc.pb.h"
#include "grpc/reflection/v1alpha/reflection.grpc.pb.h"
#include "gtest/gtest.h"
#include "ikd_process.h"

namespace ik {
namespace {

using ::google::protobuf::Descriptor;
using ::google::protobuf::DescriptorPool;
using ::google::protobuf::FileDescriptorProto;
using ::google::protobuf::MethodDescriptor;
using ::google::protobuf::ServiceDescriptor;
using ::google::protobuf::SimpleDescriptorDatabase;
using ::ik::testing::IkdProcess;

// One reflection stream (ServerReflectionInfo) of either protocol version:
// `Reflection` is grpc::reflection::v1alpha::ServerReflection or
// grpc::reflection::v1::ServerReflection, whose messages have the same
// fields.
template <typename Reflection, typename Request, typename Response>
class ReflectionStream {
 public:
  explicit ReflectionStream(const std::shared_ptr<grpc::Channel>& channel)
      : stub_(Reflection::NewStub(channel)) {
    context_.set_deadline(std::chrono::system_clock::now() +
                          std::chrono::seconds(30));
    stream_ = stub_->ServerReflectionInfo(&context_);
  }

  // Sends `request` and reads its answer; false when the stream ended.
  bool Ask(const Request& request, Response& response) {
    return stream_->Write(request) && stream_->Read(&response);
  }

  // Half-closes and returns the stream's status.
  grpc::Status Finish() {
    stream_->WritesDone();
    return stream_->Finish();
  }

  // The services listed, as a set: gRPC 1.51's reflection service keeps one
  // answer per stream and appends to it, so a second list on a stream names
  // each service twice.
  std::set<std::string> ListServices() {
    Request request;
    request.set_list_services("*");
    Response response;
    std::set<std::string> names;
    if (!Ask(request, response)) return names;
    for (const auto& service : response.list_services_response().service()) {
      names.insert(service.name());
    }
    return names;
  }

  // The file descriptors the server sends for `symbol` (its file and the
  // files it imports that this stream has not been sent yet), added to
  // `database`; the number of files added.
  int AddFilesContaining(const std::string& symbol,
                         SimpleDescriptorDatabase& database) {
    Request request;
    request.set_file_containing_symbol(symbol);
    Response response;
    if (!Ask(request, response)) return 0;
    EXPECT_FALSE(response.has_error_response())
        << symbol << ": " << response.error_response().error_message();
    int added = 0;
    for (const std::string& bytes :
         response.file_descriptor_response().file_descriptor_proto()) {
      FileDescriptorProto file;
      EXPECT_TRUE(file.ParseFromString(bytes));
      if (database.Add(file)) ++added;
    }
    return added;
  }

  // The error code the server gives for a symbol it does not have.
  int UnknownSymbolCode(const std::string& symbol) {
    Request request;
    request.set_file_containing_symbol(symbol);
    Response response;
    if (!Ask(request, response)) return -1;
    return response.error_response().error_code();
  }

 private:
  std::unique_ptr<typename Reflection::Stub> stub_;
  grpc::ClientContext context_;
  std::unique_ptr<grpc::ClientReaderWriter<Request, Response>> stream_;
};

using V1AlphaStream =
    ReflectionStream<grpc::reflection::v1alpha::ServerReflection,
                     grpc::reflection::v1alpha::ServerReflectionRequest,
                     grpc::reflection::v1alpha::ServerReflectionResponse>;
using V1Stream =
    ReflectionStream<grpc::reflection::v1::ServerReflection,
                     grpc::reflection::v1::ServerReflectionRequest,
                     grpc::reflection::v1::ServerReflectionResponse>;

// The method's shape, as one comparable line.
std::string Signature(const MethodDescriptor& method) {
  return std::string(method.name()) + "(" +
         (method.client_streaming() ? "stream " : "") +
         method.input_type()->full_name() + ") -> " +
         (method.server_streaming() ? "stream " : "") +
         method.output_type()->full_name();
}

std::set<std::string> Signatures(const ServiceDescriptor& service) {
  std::set<std::string> out;
  for (int i = 0; i < service.method_count(); ++i) {
    out.insert(Signature(*service.method(i)));
  }
  return out;
}

// "name = number (type)" for each field.
std::set<std::string> Fields(const Descriptor& message) {
  std::set<std::string> out;
  for (int i = 0; i < message.field_count(); ++i) {
    const auto* field = message.field(i);
    out.insert(std::string(field->name()) + " = " +
               std::to_string(field->number()) + " (" + field->type_name() +
               (field->is_repeated() ? ", repeated" : "") + ")");
  }
  return out;
}

// proto/ik/v1/ik.proto and what it imports, as protoc parsed them
// (IK_API_DESCRIPTOR_SET).
class SourceProtos {
 public:
  SourceProtos() : pool_(&database_) {
    std::ifstream in(IK_API_DESCRIPTOR_SET, std::ios::binary);
    google::protobuf::FileDescriptorSet files;
    EXPECT_TRUE(files.ParseFromIstream(&in)) << IK_API_DESCRIPTOR_SET;
    for (const FileDescriptorProto& file : files.file()) {
      EXPECT_TRUE(database_.Add(file)) << file.name();
    }
  }
  const DescriptorPool& pool() const { return pool_; }

 private:
  SimpleDescriptorDatabase database_;
  DescriptorPool pool_;
};

// The checks both protocol versions must pass on one stream.
template <typename Stream>
void DescribesTheService(Stream& stream) {
  const std::set<std::string> services = stream.ListServices();
  EXPECT_TRUE(services.count("ik.v1.IkService")) << "services listed";
  EXPECT_TRUE(services.count("grpc.health.v1.Health"));

  // The service, described from the server's own file descriptors.
  SimpleDescriptorDatabase database;
  EXPECT_GT(stream.AddFilesContaining("ik.v1.IkService", database), 0);
  DescriptorPool pool(&database);
  const ServiceDescriptor* served = pool.FindServiceByName("ik.v1.IkService");
  ASSERT_NE(served, nullptr);
  const SourceProtos source;
  const ServiceDescriptor* declared =
      source.pool().FindServiceByName("ik.v1.IkService");
  ASSERT_NE(declared, nullptr);
  EXPECT_EQ(Signatures(*served), Signatures(*declared));
  const std::set<std::string> methods = Signatures(*served);
  EXPECT_TRUE(methods.count(
      "TickStream(stream ik.v1.TickRequest) -> stream ik.v1.TickResponse"));
  EXPECT_TRUE(methods.count(
      "SolveChain(ik.v1.SolveChainRequest) -> ik.v1.SolveChainResponse"));

  // A message asked for by name, described the same way; it is in a file
  // this stream was already sent, so the server sends no file again.
  stream.AddFilesContaining("ik.v1.TickCharacter", database);
  const Descriptor* character =
      pool.FindMessageTypeByName("ik.v1.TickCharacter");
  ASSERT_NE(character, nullptr);
  const Descriptor* declared_character =
      source.pool().FindMessageTypeByName("ik.v1.TickCharacter");
  ASSERT_NE(declared_character, nullptr);
  EXPECT_EQ(Fields(*character), Fields(*declared_character));
  EXPECT_GE(character->field_count(), 5);
  const auto* goals = character->FindFieldByName("goals");
  ASSERT_NE(goals, nullptr);
  EXPECT_TRUE(goals->is_repeated());
  EXPECT_EQ(goals->message_type()->full_name(), "ik.v1.ChainGoal");

  // A symbol the server does not have: NOT_FOUND in the answer, and the
  // stream goes on.
  EXPECT_EQ(stream.UnknownSymbolCode("ik.v1.NoSuchMessage"),
            static_cast<int>(grpc::StatusCode::NOT_FOUND));
  EXPECT_EQ(stream.ListServices(), services);
}

TEST(ReflectionTest, DescribesIkServiceAndItsMessagesOverV1Alpha) {
  IkdProcess ikd({});
  ASSERT_TRUE(ikd.Start()) << ikd.Log();
  V1AlphaStream stream(ikd.Channel());
  EXPECT_TRUE(
      stream.ListServices().count("grpc.reflection.v1alpha.ServerReflection"));
  DescribesTheService(stream);
  EXPECT_TRUE(stream.Finish().ok());
}

TEST(ReflectionTest, V1AnswersTheSameWhereGrpcServesIt) {
  IkdProcess ikd({});
  ASSERT_TRUE(ikd.Start()) << ikd.Log();
  V1AlphaStream alpha(ikd.Channel());
  const bool served =
      alpha.ListServices().count("grpc.reflection.v1.ServerReflection") > 0;
  ASSERT_TRUE(alpha.Finish().ok());

  V1Stream stream(ikd.Channel(1));
  if (served) {
    DescribesTheService(stream);
    EXPECT_TRUE(stream.Finish().ok());
  } else {
    EXPECT_TRUE(stream.ListServices().empty());
    EXPECT_EQ(stream.Finish().error_code(), grpc::StatusCode::UNIMPLEMENTED);
  }
}

}  // namespace
}  // namespace ik
