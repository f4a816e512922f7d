// SIGTERM drains a real ikd process: 32 clients, each on a connection of its
// own, have a heavy tick in flight when the signal comes. Each is answered
// in full, or -- when its request had not arrived whole yet -- UNAVAILABLE,
// the code a client's retry policy retries on another replica; never
// CANCELLED. Health turns NOT_SERVING (or the port closes), a call made
// after the signal gets UNAVAILABLE, and ikd exits 0. (That every call
// received is answered in full is tested in process, with the pool held:
// tests/server/drain_test.cc.)
#include <signal.h>

#include <chrono>
#include <cstdio>
#include <memory>
#include <thread>
#include <vector>

#include "absl/synchronization/notification.h"
#include "crowd.h"
#include "gtest/gtest.h"
#include "ik/client.h"
#include "ik/v1/ik.grpc.pb.h"
#include "ikd_process.h"

namespace ik {
namespace {

using ::grpc::health::v1::HealthCheckResponse;
using ::ik::testing::IkdProcess;

constexpr int kClients = 32;

struct Pending {
  std::unique_ptr<v1::IkService::Stub> stub;
  grpc::ClientContext context;
  v1::TickResponse response;
  grpc::Status status;
  absl::Notification done;
};

std::unique_ptr<grpc::ClientContext> Context() {
  auto context = std::make_unique<grpc::ClientContext>();
  context->set_deadline(std::chrono::system_clock::now() +
                        std::chrono::seconds(20));
  return context;
}

TEST(DrainE2eTest, SigtermAnswersEveryCallInFlight) {
  // One caller queues every tick at once: its queued bytes unbounded here.
  IkdProcess ikd({"--solver_threads=1", "--shutdown_grace_seconds=60",
                  "--max_message_bytes=16777216",
                  "--max_queued_bytes_per_caller=1073741824",
                  "--max_queued_bytes=1073741824"});
  ASSERT_TRUE(ikd.Start()) << ikd.Log();

  Client client(ikd.Channel(), absl::Seconds(20));
  absl::StatusOr<v1::GetRigResponse> rig = client.GetRig("humanoid");
  ASSERT_TRUE(rig.ok()) << rig.status();
  CrowdOptions options;
  options.characters = 2000;  // tens of milliseconds of solving per tick
  SyntheticCrowd crowd(rig->rig(), options);
  const v1::TickRequest request = crowd.NextTick();

  std::vector<std::unique_ptr<Pending>> calls;
  for (int i = 0; i < kClients; ++i) {
    auto call = std::make_unique<Pending>();
    call->stub = v1::IkService::NewStub(ikd.Channel(i + 1));
    call->context.set_deadline(std::chrono::system_clock::now() +
                               std::chrono::seconds(120));
    Pending* pending = call.get();
    pending->stub->async()->Tick(&pending->context, &request,
                                 &pending->response,
                                 [pending](grpc::Status status) {
                                   pending->status = std::move(status);
                                   pending->done.Notify();
                                 });
    calls.push_back(std::move(call));
  }
  // Let requests arrive (3.4 MB each over loopback). The pool takes the
  // clients in turn, so those received all progress.
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  int answered_before = 0;
  for (const auto& call : calls)
    answered_before += call->done.HasBeenNotified();
  ASSERT_LT(answered_before, kClients) << "the ticks are too light";

  ikd.Signal(SIGTERM);
  // Health says NOT_SERVING, or the port refuses connections.
  for (;;) {
    HealthCheckResponse::ServingStatus serving;
    const grpc::Status status = ikd.CheckHealth(1000, &serving);
    if (!status.ok()) {
      EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAVAILABLE)
          << status.error_message();
      break;
    }
    if (serving == HealthCheckResponse::NOT_SERVING) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  // A call made now is refused with UNAVAILABLE.
  {
    auto stub = v1::IkService::NewStub(ikd.Channel(1001));
    v1::ListRigsResponse listed;
    const grpc::Status late =
        stub->ListRigs(Context().get(), v1::ListRigsRequest(), &listed);
    EXPECT_EQ(late.error_code(), grpc::StatusCode::UNAVAILABLE)
        << late.error_message();
  }

  int answered = 0;
  for (const auto& call : calls) {
    call->done.WaitForNotification();
    if (call->status.ok()) {
      ++answered;
      EXPECT_EQ(call->response.characters_size(), options.characters);
    } else {
      EXPECT_EQ(call->status.error_code(), grpc::StatusCode::UNAVAILABLE)
          << call->status.error_message();
    }
  }
  std::printf("answered before SIGTERM: %d, in full: %d, UNAVAILABLE: %d\n",
              answered_before, answered, kClients - answered);
  // Calls in flight at the signal were answered after it.
  EXPECT_GT(answered, answered_before);
  EXPECT_EQ(ikd.Wait(), 0) << ikd.Log();
  EXPECT_NE(ikd.Log().find("ikd: stopped"), std::string::npos) << ikd.Log();
}

}  // namespace
}  // namespace ik
