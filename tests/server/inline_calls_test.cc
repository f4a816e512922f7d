// Where a call runs, over a real channel: only a single call whose counted
// work is tiny (kInlineWork) runs on the gRPC thread it arrived on, at once
// even while every solver thread is held and others' calls wait; a request
// under 4 KiB that asks more -- many iterative goals, one long iterative
// goal -- and every tick take their caller's turn on the pool, where they
// give way between pieces; and gRPC's health service answers while every
// solver thread is held.
#include <grpcpp/grpcpp.h>

#include <cstdint>
#include <string>

#include "absl/strings/str_cat.h"
#include "ground_feet_fixture.h"
#include "grpc/health/v1/health.grpc.pb.h"
#include "gtest/gtest.h"
#include "handlers/work.h"
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
using ::ik::testing::Vec;

// `goals` goals of `solver` on the example tail, out of reach at
// `iterations` each (0: the chain's cap).
v1::SolveChainRequest TailGoals(int goals, v1::Solver solver,
                                int iterations = 0) {
  v1::SolveChainRequest request;
  request.set_rig("tail");
  for (int g = 0; g < goals; ++g) {
    v1::ChainGoal* goal = request.add_goals();
    goal->set_chain("tail");
    goal->set_solver(solver);
    if (iterations > 0) goal->set_max_iterations(iterations);
    *goal->mutable_target() = Vec(0.2 + 0.001 * g, 0.6, -0.9);
  }
  return request;
}

class InlineCallsTest : public IkServiceTest {
 protected:
  void SetUp() override { StartServer(OneWorkerServer()); }

  // How many calls ran inline while `call` ran (and it succeeded).
  template <typename Call>
  std::int64_t InlineRunsOf(Call call) {
    const std::int64_t before = server_->inline_calls();
    const grpc::Status status = call();
    EXPECT_TRUE(status.ok()) << status.error_message();
    return server_->inline_calls() - before;
  }
};

TEST_F(InlineCallsTest, ATinyCallRunsWhereItArrived) {
  const v1::SolveChainRequest light = LightReach();
  EXPECT_EQ(InlineRunsOf([&] {
              v1::SolveChainResponse response;
              return Solve(light, &response);
            }),
            1);

  v1::GroundFeetRequest ground;
  ground.set_rig("humanoid");
  *ground.mutable_ground()->add_planes() = LevelPlane(0.0);
  EXPECT_EQ(InlineRunsOf([&] {
              v1::GroundFeetResponse response;
              return stub_->GroundFeet(Context().get(), ground, &response);
            }),
            1);
}

TEST_F(InlineCallsTest, ASmallRequestOfMuchWorkTakesThePool) {
  for (const v1::Solver solver :
       {v1::SOLVER_FABRIK, v1::SOLVER_CCD, v1::SOLVER_TORQUE}) {
    SCOPED_TRACE(v1::Solver_Name(solver));
    for (const v1::SolveChainRequest& heavy :
         {TailGoals(64, solver), TailGoals(1, solver),
          TailGoals(1, solver, /*iterations=*/1)}) {
      SCOPED_TRACE(absl::StrCat(heavy.goals_size(), " goals"));
      ASSERT_LT(heavy.ByteSizeLong(), 4096u);
      EXPECT_EQ(InlineRunsOf([&] {
                  v1::SolveChainResponse response;
                  return Solve(heavy, &response);
                }),
                0);
    }
  }
}

TEST_F(InlineCallsTest, ATickAlwaysTakesThePool) {
  v1::TickRequest tick;
  v1::TickCharacter* character = tick.add_characters();
  character->set_rig("humanoid");
  *character->mutable_goals() = LightReach().goals();
  EXPECT_EQ(InlineRunsOf([&] {
              v1::TickResponse response;
              return stub_->Tick(Context().get(), tick, &response);
            }),
            0);
}

TEST_F(InlineCallsTest, HealthAndTinyCallsAnswerWhileEverySolverIsHeld) {
  HeldWorker worker(server_->solver_pool());
  // A heavy call waits for the held worker meanwhile.
  const v1::SolveChainRequest heavy = TailGoals(64, v1::SOLVER_FABRIK);
  grpc::ClientContext heavy_context;
  v1::SolveChainResponse heavy_response;
  absl::Notification heavy_done;
  grpc::Status heavy_status;
  stub_->async()->SolveChain(&heavy_context, &heavy, &heavy_response,
                             [&](grpc::Status status) {
                               heavy_status = std::move(status);
                               heavy_done.Notify();
                             });
  ::ik::testing::WaitForQueued(server_->solver_pool(), 1);

  auto health = Health::NewStub(channel_);
  for (const std::string service : {"", "ik.v1.IkService"}) {
    HealthCheckRequest request;
    request.set_service(service);
    HealthCheckResponse response;
    const grpc::Status status =
        health->Check(Context().get(), request, &response);
    ASSERT_TRUE(status.ok()) << status.error_message();
    EXPECT_EQ(response.status(), HealthCheckResponse::SERVING);
  }
  // A tiny call does not wait behind the heavy one.
  EXPECT_EQ(InlineRunsOf([&] {
              v1::SolveChainResponse response;
              return Solve(LightReach(), &response);
            }),
            1);
  EXPECT_FALSE(heavy_done.HasBeenNotified());
  worker.Release();
  heavy_done.WaitForNotification();
  EXPECT_TRUE(heavy_status.ok()) << heavy_status.error_message();
}

}  // namespace
}  // namespace ik::server
