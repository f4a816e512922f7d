// A tick's answer is bounded (--max_answer_bytes), over a real channel: a
// tick whose characters' answers pass the bound is refused whole with
// RESOURCE_EXHAUSTED naming "characters", unary or on a TickStream (which
// goes on); a tick within it is answered; the refusal is the same on every
// call.
#include <grpcpp/grpcpp.h>

#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "pool_fixture.h"
#include "service_fixture.h"

namespace ik::server {
namespace {

using ::ik::testing::LightReach;

class AnswerLimitTest : public IkServiceTest {
 protected:
  static constexpr std::int64_t kLimit = 16 << 10;

  void SetUp() override {
    ServerOptions options;
    options.rig_dir = std::string(IK_EXAMPLES_DIR) + "/rigs";
    options.limits.max_answer_bytes = kLimit;
    StartServer(options);
  }

  // `count` humanoids with one arm goal each.
  static v1::TickRequest Crowd(int count) {
    v1::TickRequest tick;
    for (int k = 0; k < count; ++k) {
      v1::TickCharacter* character = tick.add_characters();
      character->set_id(absl::StrCat("character-", k));
      character->set_rig("humanoid");
      *character->mutable_goals() = LightReach().goals();
    }
    return tick;
  }
};

TEST_F(AnswerLimitTest, ATickWhoseAnswerPassesTheLimitIsRefusedWhole) {
  v1::TickResponse small;
  ASSERT_TRUE(stub_->Tick(Context().get(), Crowd(4), &small).ok());
  ASSERT_EQ(small.characters_size(), 4);
  // Characters enough for several times the limit.
  const int per_character = static_cast<int>(small.ByteSizeLong() / 4);
  const v1::TickRequest large = Crowd(4 * kLimit / per_character);
  for (int call = 0; call < 3; ++call) {
    v1::TickResponse response;
    const grpc::Status status = stub_->Tick(Context().get(), large, &response);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
    EXPECT_TRUE(absl::StartsWith(
        status.error_message(),
        absl::StrCat("characters: the tick's answer exceeds the limit of ",
                     kLimit, " bytes per answer (ikd --max_answer_bytes)")))
        << status.error_message();
  }

  grpc::ClientContext context;
  auto stream = stub_->TickStream(&context);
  v1::TickRequest tick = large;
  tick.set_sequence(1);
  ASSERT_TRUE(stream->Write(tick));
  v1::TickResponse answer;
  ASSERT_TRUE(stream->Read(&answer));
  EXPECT_EQ(answer.sequence(), 1u);
  EXPECT_EQ(answer.status().code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_EQ(answer.status().field(), "characters");
  EXPECT_EQ(answer.characters_size(), 0);
  tick = Crowd(4);
  tick.set_sequence(2);
  ASSERT_TRUE(stream->Write(tick));
  ASSERT_TRUE(stream->Read(&answer));
  EXPECT_EQ(answer.status().code(), 0);
  EXPECT_EQ(answer.characters_size(), 4);
  stream->WritesDone();
  EXPECT_TRUE(stream->Finish().ok());
}

}  // namespace
}  // namespace ik::server
