// The tick's bytes form (ik/wire/tick_bytes.proto), which the service reads
// and writes: its messages are the API's TickRequest and TickResponse field
// for field, and a tick through it answers with the bytes the API's
// messages would carry.
#include <memory>
#include <string>

#include "gtest/gtest.h"
#include "handlers/handlers.h"
#include "ik/wire/tick_bytes.pb.h"
#include "rpc/solver_pool.h"
#include "state/directory_loader.h"
#include "tick_fixture.h"

namespace ik::server {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;

// Every field of `api` has its twin in `bytes` (same number, name, label
// and type), but `characters`, which is bytes there; and `bytes` has no
// other field.
void ExpectTwins(const Descriptor& api, const Descriptor& bytes) {
  SCOPED_TRACE(api.full_name());
  EXPECT_EQ(api.field_count(), bytes.field_count());
  for (int i = 0; i < api.field_count(); ++i) {
    const FieldDescriptor& field = *api.field(i);
    SCOPED_TRACE(field.name());
    const FieldDescriptor* twin = bytes.FindFieldByNumber(field.number());
    ASSERT_NE(twin, nullptr);
    EXPECT_EQ(twin->name(), field.name());
    EXPECT_EQ(twin->is_repeated(), field.is_repeated());
    if (field.name() == "characters") {
      EXPECT_EQ(field.type(), FieldDescriptor::TYPE_MESSAGE);
      EXPECT_EQ(twin->type(), FieldDescriptor::TYPE_BYTES);
      continue;
    }
    EXPECT_EQ(twin->type(), field.type());
    if (field.message_type() != nullptr) {
      EXPECT_EQ(twin->message_type(), field.message_type());
    }
    if (field.enum_type() != nullptr) {
      EXPECT_EQ(twin->enum_type(), field.enum_type());
    }
  }
}

TEST(TickBytesTest, TheBytesFormIsTheApisMessagesFieldForField) {
  ExpectTwins(*v1::TickRequest::descriptor(),
              *wire::TickRequestBytes::descriptor());
  ExpectTwins(*v1::TickResponse::descriptor(),
              *wire::TickResponseBytes::descriptor());
}

// The handlers over the example rigs and terrains, in process.
class TickBytesHandlersTest : public ::testing::TestWithParam<int> {
 protected:
  TickBytesHandlersTest()
      : rigs_(limits_.max_rigs),
        terrains_(limits_.max_terrains),
        handlers_(rigs_, terrains_, limits_),
        pool_(GetParam(), 1024) {
    EXPECT_TRUE(LoadRigDirectory(IK_EXAMPLES_DIR "/rigs", limits_, rigs_).ok());
    EXPECT_TRUE(
        LoadTerrainDirectory(IK_EXAMPLES_DIR "/terrains", limits_, terrains_)
            .ok());
    scope_.pool = &pool_;
    scope_.client = "test";
  }

  ServiceLimits limits_;
  RigRegistry rigs_;
  TerrainRegistry terrains_;
  IkHandlers handlers_;
  SolverPool pool_;
  CallScope scope_;
};

TEST_P(TickBytesHandlersTest, AnswersWithTheBytesOfTheApisMessages) {
  v1::TickRequest request = TickTest::Crowd(88, 40);
  request.set_sequence(12);
  request.set_job_rotations(true);
  // A bad character among them fails alone either way.
  request.mutable_characters(7)->set_rig("nobody");
  wire::TickRequestBytes bytes;
  ASSERT_TRUE(bytes.ParseFromString(request.SerializeAsString()));
  ASSERT_EQ(bytes.characters_size(), 40);

  v1::TickResponse want;
  ASSERT_TRUE(handlers_.Tick(request, want, scope_).ok());
  wire::TickResponseBytes got;
  ASSERT_TRUE(handlers_.Tick(bytes, got, scope_).ok());
  EXPECT_EQ(got.sequence(), 12u);
  v1::TickResponse parsed;
  ASSERT_TRUE(parsed.ParseFromString(got.SerializeAsString()));
  EXPECT_EQ(DeterministicBytes(parsed), DeterministicBytes(want));
  EXPECT_EQ(parsed.characters(7).status().field(), "characters[7].rig");

  // Whole-tick errors are the same too.
  wire::TickRequestBytes empty;
  wire::TickResponseBytes none;
  const absl::Status status = handlers_.Tick(empty, none, scope_);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(), "characters: at least one character is required");
}

INSTANTIATE_TEST_SUITE_P(PoolSizes, TickBytesHandlersTest,
                         ::testing::Values(1, 3));

}  // namespace
}  // namespace ik::server
