// Hostile strings, over a real channel: for a valid request of every RPC,
// each string field it holds (found by reflection, nested messages and
// repeated elements included) is set in turn to 9,000 characters -- ASCII,
// and multi-byte UTF-8. Whatever the answer, its message stays short enough
// for any client's trailer limit (the cut text ends on a character
// boundary), it is never RESOURCE_EXHAUSTED, UNKNOWN or INTERNAL, and the
// next call on the same channel is answered.
#include <grpcpp/grpcpp.h>

#include <functional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/message.h"
#include "google/protobuf/reflection.h"
#include "gtest/gtest.h"
#include "service_fixture.h"
#include "test_rigs.h"

namespace ik::server {
namespace {

using ::google::protobuf::FieldDescriptor;
using ::google::protobuf::Message;
using ::google::protobuf::Reflection;
using ::ik::testing::ArmRig;
using ::ik::testing::Vec;

// Every string field set in `message`, as a way to change it in a copy.
using Setter = std::function<void(Message&, const std::string&)>;

void CollectStrings(const Message& message,
                    std::function<Message&(Message&)> reach,
                    std::vector<std::pair<std::string, Setter>>& out,
                    const std::string& path) {
  const Reflection* reflection = message.GetReflection();
  std::vector<const FieldDescriptor*> fields;
  reflection->ListFields(message, &fields);
  for (const FieldDescriptor* field : fields) {
    const std::string here =
        path.empty() ? field->name() : absl::StrCat(path, ".", field->name());
    if (field->type() == FieldDescriptor::TYPE_STRING) {
      if (field->is_repeated()) {
        for (int i = 0; i < reflection->FieldSize(message, field); ++i) {
          out.emplace_back(
              absl::StrCat(here, "[", i, "]"),
              [reach, field, i](Message& root, const std::string& value) {
                Message& at = reach(root);
                at.GetReflection()->SetRepeatedString(&at, field, i, value);
              });
        }
      } else {
        out.emplace_back(
            here, [reach, field](Message& root, const std::string& value) {
              Message& at = reach(root);
              at.GetReflection()->SetString(&at, field, value);
            });
      }
    } else if (field->type() == FieldDescriptor::TYPE_MESSAGE) {
      if (field->is_repeated()) {
        for (int i = 0; i < reflection->FieldSize(message, field); ++i) {
          CollectStrings(
              reflection->GetRepeatedMessage(message, field, i),
              [reach, field, i](Message& root) -> Message& {
                Message& at = reach(root);
                return *at.GetReflection()->MutableRepeatedMessage(&at, field,
                                                                   i);
              },
              out, absl::StrCat(here, "[", i, "]"));
        }
      } else {
        CollectStrings(
            reflection->GetMessage(message, field),
            [reach, field](Message& root) -> Message& {
              Message& at = reach(root);
              return *at.GetReflection()->MutableMessage(&at, field);
            },
            out, here);
      }
    }
  }
}

struct Rpc {
  std::string name;
  std::unique_ptr<Message> request;
  // Calls the RPC with `request` (of the type above).
  std::function<grpc::Status(v1::IkService::Stub&, const Message&)> call;
};

template <typename Request, typename Response>
Rpc MakeRpc(std::string name,
            grpc::Status (v1::IkService::Stub::*method)(grpc::ClientContext*,
                                                        const Request&,
                                                        Response*),
            Request request) {
  Rpc rpc;
  rpc.name = std::move(name);
  rpc.request = std::make_unique<Request>(std::move(request));
  rpc.call = [method](v1::IkService::Stub& stub, const Message& message) {
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() +
                         std::chrono::seconds(30));
    Response response;
    return (stub.*method)(&context, static_cast<const Request&>(message),
                          &response);
  };
  return rpc;
}

std::vector<Rpc> ValidRequests() {
  std::vector<Rpc> rpcs;
  v1::SolveChainRequest solve;
  solve.set_rig("humanoid");
  solve.set_revision("sha256:0000000000000000");
  v1::ChainGoal* goal = solve.add_goals();
  goal->set_chain("left_arm");
  *goal->mutable_target() = Vec(0.45, 1.2, 0.15);
  v1::ChainGoal* ad_hoc = solve.add_goals();
  ad_hoc->mutable_ad_hoc_chain()->set_root("left_shoulder");
  ad_hoc->mutable_ad_hoc_chain()->set_tip("left_wrist");
  *ad_hoc->mutable_target() = Vec(0.45, 1.2, 0.15);
  v1::JointPose* posed = solve.mutable_pose()->add_joints();
  posed->set_name("left_elbow");
  rpcs.push_back(
      MakeRpc("SolveChain", &v1::IkService::Stub::SolveChain, solve));

  v1::GroundFeetRequest ground;
  ground.set_rig("humanoid");
  ground.mutable_ground()->add_terrains("stairs");
  rpcs.push_back(
      MakeRpc("GroundFeet", &v1::IkService::Stub::GroundFeet, ground));

  v1::StepDynamicsRequest step;
  step.set_rig("tail");
  step.set_delta_time(1.0 / 60.0);
  step.add_chains("tail");
  rpcs.push_back(
      MakeRpc("StepDynamics", &v1::IkService::Stub::StepDynamics, step));

  v1::TickRequest tick;
  v1::TickCharacter* character = tick.add_characters();
  character->set_id("npc");
  character->set_rig("humanoid");
  *character->add_goals() = solve.goals(0);
  tick.mutable_shared_ground()->add_terrains("stairs");
  rpcs.push_back(MakeRpc("Tick", &v1::IkService::Stub::Tick, tick));

  v1::RegisterRigRequest rig;
  *rig.mutable_rig() = ArmRig();
  rpcs.push_back(
      MakeRpc("RegisterRig", &v1::IkService::Stub::RegisterRig, rig));
  v1::GetRigRequest get;
  get.set_name("humanoid");
  rpcs.push_back(MakeRpc("GetRig", &v1::IkService::Stub::GetRig, get));
  v1::DeleteRigRequest remove;
  remove.set_name("nobody");
  remove.set_revision("sha256:0000000000000000");
  rpcs.push_back(MakeRpc("DeleteRig", &v1::IkService::Stub::DeleteRig, remove));
  v1::RegisterTerrainRequest terrain;
  terrain.mutable_terrain()->set_name("flat");
  *terrain.mutable_terrain()->mutable_mesh() =
      ::ik::testing::GridMesh(2, 2, 1.0, -1.0, -1.0, 0.0, 0.0);
  rpcs.push_back(MakeRpc("RegisterTerrain",
                         &v1::IkService::Stub::RegisterTerrain, terrain));
  v1::DeleteTerrainRequest remove_terrain;
  remove_terrain.set_name("nowhere");
  rpcs.push_back(MakeRpc("DeleteTerrain", &v1::IkService::Stub::DeleteTerrain,
                         remove_terrain));
  return rpcs;
}

bool EndsOnCharacterBoundary(const std::string& text) {
  // The last byte is not the lead or middle of an unfinished sequence.
  size_t i = text.size();
  int continuation = 0;
  while (i > 0 && (static_cast<unsigned char>(text[i - 1]) & 0xC0) == 0x80) {
    --i;
    ++continuation;
  }
  if (i == 0) return continuation == 0;
  const unsigned char lead = static_cast<unsigned char>(text[i - 1]);
  const int needed = lead < 0x80 ? 0 : lead >= 0xF0 ? 3 : lead >= 0xE0 ? 2 : 1;
  return continuation == needed;
}

TEST_F(IkServiceTest, LongStringsGetShortAnswers) {
  const std::string ascii(9000, 'x');
  const std::string accented = [] {
    std::string text;
    for (int i = 0; i < 4500; ++i) text += "\xc3\xa9";  // é
    return text;
  }();
  int calls = 0;
  for (const Rpc& rpc : ValidRequests()) {
    std::vector<std::pair<std::string, Setter>> strings;
    CollectStrings(
        *rpc.request, [](Message& root) -> Message& { return root; }, strings,
        "");
    ASSERT_FALSE(strings.empty()) << rpc.name;
    for (const auto& [path, set] : strings) {
      for (const std::string* value : {&ascii, &accented}) {
        std::unique_ptr<Message> spoiled(rpc.request->New());
        spoiled->CopyFrom(*rpc.request);
        set(*spoiled, *value);
        const grpc::Status status = rpc.call(*stub_, *spoiled);
        ++calls;
        const std::string what = absl::StrCat(rpc.name, " ", path);
        EXPECT_NE(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED)
            << what << ": " << status.error_message().substr(0, 200);
        EXPECT_NE(status.error_code(), grpc::StatusCode::UNKNOWN) << what;
        EXPECT_NE(status.error_code(), grpc::StatusCode::INTERNAL) << what;
        EXPECT_LE(status.error_message().size(), 1024u) << what;
        EXPECT_LE(status.error_details().size(), 3000u) << what;
        EXPECT_TRUE(EndsOnCharacterBoundary(status.error_message())) << what;
        // The channel still serves.
        grpc::ClientContext context;
        v1::ListRigsResponse listed;
        ASSERT_TRUE(
            stub_->ListRigs(&context, v1::ListRigsRequest(), &listed).ok())
            << what;
      }
    }
  }
  EXPECT_GT(calls, 30);
}

}  // namespace
}  // namespace ik::server
