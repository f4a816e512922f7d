// The drain, over a real channel: once IkServer::Shutdown starts (what ikd
// does on SIGTERM), health says NOT_SERVING at once, every call already
// received -- running on the pool or queued behind it -- is answered in
// full, and a call that arrives after is answered UNAVAILABLE so a client's
// retry policy sends it to another replica. The tests wait for states, never
// for times: the pool's only worker is held while the drain starts.
#include <grpcpp/grpcpp.h>

#include <chrono>
#include <memory>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "grpc/health/v1/health.grpc.pb.h"
#include "gtest/gtest.h"
#include "pool_fixture.h"
#include "service_fixture.h"

namespace ik::server {
namespace {

using ::grpc::health::v1::Health;
using ::grpc::health::v1::HealthCheckRequest;
using ::grpc::health::v1::HealthCheckResponse;
using ::ik::testing::HeldWorker;
using ::ik::testing::LightReach;
using ::ik::testing::OneWorkerServer;
using ::ik::testing::PooledReach;
using ::ik::testing::WaitForQueued;

struct Pending {
  grpc::ClientContext context;
  v1::SolveChainResponse response;
  grpc::Status status;
  absl::Notification done;
};

class DrainTest : public IkServiceTest {
 protected:
  void SetUp() override { StartServer(OneWorkerServer()); }

  // Sends `count` SolveChain calls, each on a channel of its own (separate
  // clients), and returns once all wait in the pool.
  std::vector<std::unique_ptr<Pending>> QueueCalls(int count) {
    const v1::SolveChainRequest request = PooledReach();
    std::vector<std::unique_ptr<Pending>> calls;
    for (int i = 0; i < count; ++i) {
      grpc::ChannelArguments arguments;
      arguments.SetInt("ik.test.channel", i);  // a connection of its own
      auto stub = v1::IkService::NewStub(grpc::CreateCustomChannel(
          absl::StrCat("127.0.0.1:", server_->port()),
          grpc::InsecureChannelCredentials(), arguments));
      auto call = std::make_unique<Pending>();
      call->context.set_deadline(std::chrono::system_clock::now() +
                                 std::chrono::seconds(60));
      Pending* pending = call.get();
      stub->async()->SolveChain(&pending->context, &request, &pending->response,
                                [pending](grpc::Status status) {
                                  pending->status = std::move(status);
                                  pending->done.Notify();
                                });
      stubs_.push_back(std::move(stub));
      calls.push_back(std::move(call));
    }
    WaitForQueued(server_->solver_pool(), count);
    return calls;
  }

  HealthCheckResponse::ServingStatus Health(grpc::Status* status) {
    auto stub = Health::NewStub(channel_);
    HealthCheckRequest request;
    HealthCheckResponse response;
    *status = stub->Check(Context().get(), request, &response);
    return response.status();
  }

  std::vector<std::unique_ptr<v1::IkService::Stub>> stubs_;
};

TEST_F(DrainTest, QueuedCallsFinishAndNewCallsAreRefused) {
  HeldWorker held(server_->solver_pool());
  std::vector<std::unique_ptr<Pending>> calls = QueueCalls(32);

  std::thread drain([this] { server_->Shutdown(absl::Seconds(60)); });
  // Health turns NOT_SERVING while the queued calls still wait.
  for (;;) {
    grpc::Status status;
    const HealthCheckResponse::ServingStatus serving = Health(&status);
    if (!status.ok() || serving == HealthCheckResponse::NOT_SERVING) {
      EXPECT_TRUE(status.ok() ||
                  status.error_code() == grpc::StatusCode::UNAVAILABLE)
          << status.error_message();
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  // A new call is refused with UNAVAILABLE, not queued.
  v1::SolveChainResponse refused;
  const grpc::Status late = Solve(LightReach(), &refused);
  EXPECT_EQ(late.error_code(), grpc::StatusCode::UNAVAILABLE)
      << late.error_message();

  held.Release();
  for (const auto& call : calls) {
    call->done.WaitForNotification();
    EXPECT_TRUE(call->status.ok()) << call->status.error_message();
    EXPECT_EQ(call->response.results_size(), 1);
  }
  drain.join();
}

// A TickStream open when the drain starts answers the tick it holds, then
// ends with UNAVAILABLE; one waiting for its next tick ends at once.
TEST_F(DrainTest, TickStreamsAnswerTheirTickThenEnd) {
  v1::TickRequest tick;
  tick.set_sequence(7);
  v1::TickCharacter* character = tick.add_characters();
  character->set_rig("humanoid");
  *character->add_goals() = LightReach().goals(0);

  grpc::ClientContext idle_context;
  auto idle = stub_->TickStream(&idle_context);
  ASSERT_TRUE(idle->Write(tick));
  v1::TickResponse answer;
  ASSERT_TRUE(idle->Read(&answer));  // open, now waiting for a tick

  HeldWorker held(server_->solver_pool());
  grpc::ClientContext busy_context;
  auto busy = stub_->TickStream(&busy_context);
  ASSERT_TRUE(busy->Write(tick));
  WaitForQueued(server_->solver_pool(), 1);

  std::thread drain([this] { server_->Shutdown(absl::Seconds(60)); });
  EXPECT_FALSE(idle->Read(&answer));
  grpc::Status status = idle->Finish();
  EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAVAILABLE)
      << status.error_message();

  held.Release();
  ASSERT_TRUE(busy->Read(&answer));
  EXPECT_EQ(answer.sequence(), 7u);
  ASSERT_EQ(answer.characters_size(), 1);
  EXPECT_EQ(answer.characters(0).goals_size(), 1);
  EXPECT_FALSE(busy->Read(&answer));
  status = busy->Finish();
  EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAVAILABLE)
      << status.error_message();
  drain.join();
}

}  // namespace
}  // namespace ik::server
