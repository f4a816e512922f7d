// Answers written and not yet read: the bounds per caller and in all
// (UnreadAnswers), and over a real channel a client that stops reading its
// TickStream's answers: its caller's next calls are refused with
// RESOURCE_EXHAUSTED while another caller is served, until it reads.
#include "rpc/unread_answers.h"

#include <grpcpp/grpcpp.h>

#include <chrono>
#include <memory>
#include <string>
#include <thread>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "pool_fixture.h"
#include "service_fixture.h"

namespace ik::server {
namespace {

using ::ik::testing::LightReach;
using ::ik::testing::OneWorkerServer;

TEST(UnreadAnswersTest, BoundsEachCallerAndAllOfThem) {
  UnreadAnswers unread(/*per_caller=*/100, /*total=*/150);
  EXPECT_TRUE(unread.Admit("a").ok());
  unread.Hold("a", 99);
  EXPECT_TRUE(unread.Admit("a").ok());
  unread.Hold("a", 1);
  const absl::Status refused = unread.Admit("a");
  EXPECT_EQ(refused.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_TRUE(absl::StartsWith(refused.message(), "ikd holds 100 bytes of "))
      << refused.message();
  EXPECT_TRUE(unread.Admit("b").ok());
  unread.Hold("b", 50);
  EXPECT_EQ(unread.held(), 150);
  // All of them together at their bound: b, under its own, waits too.
  EXPECT_EQ(unread.Admit("b").code(), absl::StatusCode::kResourceExhausted);
  unread.Release("a", 99);
  EXPECT_TRUE(unread.Admit("b").ok());
  EXPECT_TRUE(unread.Admit("a").ok());
  unread.Release("a", 1);
  unread.Release("b", 50);
  EXPECT_EQ(unread.held("a"), 0);
  EXPECT_EQ(unread.held(), 0);
}

class UnreadAnswersServiceTest : public IkServiceTest {
 protected:
  static constexpr std::int64_t kPerCaller = 64 << 10;

  void SetUp() override {
    ServerOptions options = OneWorkerServer();
    // Every connection comes from 127.0.0.1: x-forwarded-for names the
    // caller.
    options.trusted_proxies = {"127.0.0.1"};
    options.limits.max_unread_answer_bytes_per_caller = kPerCaller;
    StartServer(options);
  }

  grpc::Status SolveAs(const char* caller) {
    auto context = Context();
    context->AddMetadata("x-forwarded-for", caller);
    v1::SolveChainResponse response;
    return stub_->SolveChain(context.get(), LightReach(), &response);
  }

  // Waits (for a state, with a generous guard) until `caller` (empty:
  // everyone) holds at least `bytes`, or at most `bytes` when `at_most`.
  bool WaitForHeld(const std::string& caller, std::int64_t bytes,
                   bool at_most) {
    const auto guard =
        std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (std::chrono::steady_clock::now() < guard) {
      const std::int64_t held = caller.empty()
                                    ? server_->unread_answers().held()
                                    : server_->unread_answers().held(caller);
      if (at_most ? held <= bytes : held >= bytes) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return false;
  }
};

TEST_F(UnreadAnswersServiceTest, ACallerThatStopsReadingWaitsUntilItReads) {
  // A tick whose answer is far larger than the client's stream window
  // (64 KiB, not grown: no BDP probing), so it stays unread.
  v1::TickRequest tick;
  for (int k = 0; k < 2000; ++k) {
    v1::TickCharacter* character = tick.add_characters();
    character->set_id(absl::StrCat("character-", k));
    character->set_rig("humanoid");
    *character->mutable_goals() = LightReach().goals();
  }
  grpc::ChannelArguments arguments;
  arguments.SetInt(GRPC_ARG_HTTP2_BDP_PROBE, 0);
  arguments.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
  auto reader = v1::IkService::NewStub(
      grpc::CreateCustomChannel(absl::StrCat("127.0.0.1:", server_->port()),
                                grpc::InsecureChannelCredentials(), arguments));
  grpc::ClientContext context;
  context.AddMetadata("x-forwarded-for", "10.0.0.1");
  auto stream = reader->TickStream(&context);
  ASSERT_TRUE(stream->Write(tick));
  ASSERT_TRUE(WaitForHeld("addr 10.0.0.1", kPerCaller, /*at_most=*/false));

  const grpc::Status refused = SolveAs("10.0.0.1");
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_TRUE(absl::StartsWith(refused.error_message(), "ikd holds "))
      << refused.error_message();
  EXPECT_TRUE(SolveAs("10.0.0.2").ok());

  // Read, the answer is no longer held and the caller is served again.
  v1::TickResponse answer;
  ASSERT_TRUE(stream->Read(&answer));
  EXPECT_EQ(answer.characters_size(), 2000);
  ASSERT_TRUE(WaitForHeld("addr 10.0.0.1", 0, /*at_most=*/true));
  EXPECT_TRUE(SolveAs("10.0.0.1").ok());
  stream->WritesDone();
  EXPECT_TRUE(stream->Finish().ok());
  // Each call's answer is released when gRPC ends the call, which may be
  // just after its client saw it.
  EXPECT_TRUE(WaitForHeld("", 0, /*at_most=*/true));
}

}  // namespace
}  // namespace ik::server
