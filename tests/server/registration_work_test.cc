// Registrations are work like any other, over a real channel: a rig or
// terrain is built on the solver pool in its caller's turns, a mesh in
// pieces between which other callers' calls run (a flood of mesh
// registrations does not starve another caller's solve), and a
// registration whose build the registry budget cannot hold is refused
// before anything is built.
#include <chrono>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "gtest/gtest.h"
#include "pool_fixture.h"
#include "service_fixture.h"

namespace ik::server {
namespace {

using ::ik::testing::GridMesh;
using ::ik::testing::HeldWorker;
using ::ik::testing::OneWorkerServer;
using ::ik::testing::PooledReach;
using ::ik::testing::WaitForQueued;

// A 100 x 100 grid mesh (20,000 triangles, about 400 KB on the wire) whose
// last triangle is degenerate: building it fails, with INVALID_ARGUMENT
// naming that triangle, only once it is built.
v1::RegisterTerrainRequest BrokenMesh(const std::string& name) {
  v1::RegisterTerrainRequest request;
  v1::Terrain& terrain = *request.mutable_terrain();
  terrain.set_name(name);
  *terrain.mutable_mesh() = GridMesh(100, 100, 0.1, -5.0, -5.0, 0.0, 0.0);
  auto& indices = *terrain.mutable_mesh()->mutable_indices();
  indices[indices.size() - 1] = indices[indices.size() - 2];
  return request;
}

class RegistrationBudgetTest : public IkServiceTest {
 protected:
  grpc::Status Register(std::int64_t budget, v1::RegisterTerrainResponse* out) {
    ServerOptions options;
    options.max_registry_bytes = budget;
    StartServer(options);
    return stub_->RegisterTerrain(Context().get(), BrokenMesh("broken"), out);
  }
};

TEST_F(RegistrationBudgetTest, ABuildTheBudgetCannotHoldIsRefusedBeforeIt) {
  v1::RegisterTerrainResponse response;
  // Room for the build: built, and refused for its degenerate triangle.
  grpc::Status status = Register(std::int64_t{64} << 20, &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_TRUE(absl::StrContains(status.error_message(), "degenerate"))
      << status.error_message();
  // No room: refused before building (else it would name the triangle).
  status = Register(std::int64_t{1} << 20, &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_TRUE(absl::StartsWith(status.error_message(),
                               "terrain: building it "
                               "may take "))
      << status.error_message();
  EXPECT_TRUE(
      absl::StrContains(status.error_message(), "(ikd --max_registry_bytes)"))
      << status.error_message();
  v1::ListTerrainsResponse terrains;
  ASSERT_TRUE(
      stub_->ListTerrains(Context().get(), v1::ListTerrainsRequest(), &terrains)
          .ok());
  EXPECT_EQ(terrains.terrains_size(), 0);
}

// A mesh over --max_mesh_triangles that the budget could not hold either is
// refused for its own limit, with its own field: the cheap, specific check
// comes first.
TEST_F(RegistrationBudgetTest, AMeshOverItsLimitIsRefusedForItBeforeTheBudget) {
  ServerOptions options;
  options.max_registry_bytes = std::int64_t{1} << 20;
  options.limits.max_mesh_triangles = 1000;
  StartServer(options);
  v1::RegisterTerrainResponse response;
  const grpc::Status status =
      stub_->RegisterTerrain(Context().get(), BrokenMesh("large"), &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_TRUE(absl::StartsWith(status.error_message(), "terrain.mesh."))
      << status.error_message();
  EXPECT_TRUE(
      absl::StrContains(status.error_message(), "(ikd --max_mesh_triangles)"))
      << status.error_message();
}

// With the pool's only worker held: mesh registrations from one caller,
// then a solve from another, then a probe. Registrations wait for the
// pool like solves, and take turns with the other caller's calls.
class RegistrationTurnsTest : public IkServiceTest {
 protected:
  void SetUp() override {
    ServerOptions options = OneWorkerServer();
    options.trusted_proxies = {"127.0.0.1"};
    StartServer(options);
  }
};

TEST_F(RegistrationTurnsTest, RegistrationsTakeTheirCallersTurnsOnThePool) {
  HeldWorker worker(server_->solver_pool());
  constexpr int kRegistrations = 4;
  struct Call {
    grpc::ClientContext context;
    v1::RegisterTerrainResponse response;
    grpc::Status status;
  };
  std::vector<v1::RegisterTerrainRequest> requests;
  for (int i = 0; i < kRegistrations; ++i) {
    v1::RegisterTerrainRequest request;
    v1::Terrain& terrain = *request.mutable_terrain();
    terrain.set_name("grid-" + std::to_string(i));
    *terrain.mutable_mesh() = GridMesh(60, 60, 0.1, -3.0, -3.0, 0.0, 0.0);
    requests.push_back(std::move(request));
  }
  std::vector<Call> calls(kRegistrations);
  absl::Mutex mutex;
  int finished = 0;
  const auto deadline =
      std::chrono::system_clock::now() + std::chrono::seconds(60);
  for (int i = 0; i < kRegistrations; ++i) {
    calls[i].context.set_deadline(deadline);
    calls[i].context.AddMetadata("x-forwarded-for", "10.0.0.1");
    stub_->async()->RegisterTerrain(&calls[i].context, &requests[i],
                                    &calls[i].response,
                                    [&, i](grpc::Status status) {
                                      absl::MutexLock lock(&mutex);
                                      calls[i].status = std::move(status);
                                      ++finished;
                                    });
    WaitForQueued(server_->solver_pool(), i + 1);
  }
  // Held, the pool has built nothing: no terrain is registered yet.
  v1::ListTerrainsResponse terrains;
  ASSERT_TRUE(
      stub_->ListTerrains(Context().get(), v1::ListTerrainsRequest(), &terrains)
          .ok());
  EXPECT_EQ(terrains.terrains_size(), 0);

  grpc::ClientContext victim_context;
  victim_context.set_deadline(deadline);
  victim_context.AddMetadata("x-forwarded-for", "10.0.0.2");
  const v1::SolveChainRequest light = PooledReach();
  v1::SolveChainResponse victim_response;
  grpc::Status victim_status;
  stub_->async()->SolveChain(&victim_context, &light, &victim_response,
                             [&](grpc::Status status) {
                               absl::MutexLock lock(&mutex);
                               victim_status = std::move(status);
                               ++finished;
                             });
  WaitForQueued(server_->solver_pool(), kRegistrations + 1);
  int waiting_at_probe = -1;
  size_t terrains_at_probe = 0;
  std::int64_t victim_goals_at_probe = 0;
  absl::Notification probed;
  ASSERT_TRUE(server_->solver_pool().Post("probe", [&] {
    waiting_at_probe = server_->solver_pool().queued();
    terrains_at_probe = server_->terrains().List().size();
    victim_goals_at_probe =
        server_->solve_counters().solver(SolverKind::kFabrik).goals;
    probed.Notify();
  }));
  worker.Release();
  probed.WaitForNotification();
  {
    absl::MutexLock lock(&mutex);
    mutex.Await(absl::Condition(
        +[](int* done) { return *done == kRegistrations + 1; }, &finished));
  }
  EXPECT_TRUE(victim_status.ok()) << victim_status.error_message();
  for (const Call& call : calls) {
    EXPECT_TRUE(call.status.ok()) << call.status.error_message();
  }
  // The first registration, the victim's solve, the probe: three of the
  // registrations still wait. Built on gRPC's threads they would all have
  // been done before the pool ran anything.
  EXPECT_EQ(waiting_at_probe, kRegistrations - 1);
  // And the first registration gives way between pieces of its build: the
  // victim and the probe ran before it was built.
  EXPECT_EQ(victim_goals_at_probe, 1);
  EXPECT_EQ(terrains_at_probe, 0u);
}

}  // namespace
}  // namespace ik::server
