// Memory a real ikd process can be made to hold, bounded by its flags:
// registered terrains by --max_registry_bytes (RESOURCE_EXHAUSTED beyond
// it, room again after a delete), compressed requests refused before they
// are inflated, oversized requests by --transport_memory_bytes, and memory
// given back after a burst. Memory is read from /proc/<pid>/status (VmRSS,
// VmHWM); the bounds asserted are the flags' budgets plus a margin for the
// process itself, far below what the unbounded cases reach.
#include <grpcpp/grpcpp.h>

#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ik/v1/ik.grpc.pb.h"
#include "ikd_process.h"
#include "test_rigs.h"

namespace ik {
namespace {

using ::ik::testing::GridMesh;
using ::ik::testing::IkdProcess;
using ::testing::HasSubstr;
using ::testing::StartsWith;

constexpr long kMiB = 1024;  // in kB, as /proc reports

v1::RegisterTerrainRequest Mesh(const std::string& name, int cells) {
  v1::RegisterTerrainRequest request;
  request.mutable_terrain()->set_name(name);
  *request.mutable_terrain()->mutable_mesh() =
      GridMesh(cells, cells, 0.01, -1.0, -1.0, 0.0, 0.05);
  return request;
}

std::unique_ptr<grpc::ClientContext> Context() {
  auto context = std::make_unique<grpc::ClientContext>();
  context->set_deadline(std::chrono::system_clock::now() +
                        std::chrono::seconds(60));
  return context;
}

// Waits (at most 20 s) for ikd's resident memory to fall to `kb`; returns
// the last reading.
long WaitForRssBelow(const IkdProcess& ikd, long kb) {
  long rss = ikd.StatusKb("VmRSS");
  for (int i = 0; i < 200 && rss > kb; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    rss = ikd.StatusKb("VmRSS");
  }
  return rss;
}

TEST(MemoryE2eTest, RegisteredTerrainsStayWithinTheRegistryBudget) {
  IkdProcess ikd({"--max_registry_bytes=67108864",  // 64 MiB
                  "--max_message_bytes=67108864", "--terrain_dir="});
  ASSERT_TRUE(ikd.Start()) << ikd.Log();
  auto stub = v1::IkService::NewStub(ikd.Channel());
  const long baseline = ikd.StatusKb("VmRSS");

  // 2 x 150 x 150 = 45,000 triangles a mesh.
  constexpr int kCells = 150;
  constexpr int kTriangles = 2 * kCells * kCells;
  int registered = 0;
  grpc::Status refused;
  for (int k = 0; k < 100; ++k) {
    v1::RegisterTerrainResponse response;
    refused = stub->RegisterTerrain(
        Context().get(), Mesh(absl::StrCat("mesh", k), kCells), &response);
    if (!refused.ok()) break;
    ++registered;
  }
  ASSERT_EQ(refused.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED)
      << refused.error_message();
  // Refused before it is built (it would hold five times its request while
  // building) or once built (its entry does not fit).
  EXPECT_THAT(refused.error_message(), StartsWith("terrain: "));
  EXPECT_THAT(refused.error_message(), HasSubstr("--max_registry_bytes"));
  ASSERT_GT(registered, 2);

  // What the registered meshes cost in resident memory, once the requests'
  // buffers are given back: the 64 MiB budget, plus the free heap memory
  // ikd keeps for reuse (up to 16 MiB, main.cc's MemoryReclaimer: each
  // registration's build leaves its temporaries free in the heap of the
  // gRPC thread that served it), plus 8 MiB for the process itself.
  // Waits (20 s at most) for the budget and the process alone.
  const long settled = WaitForRssBelow(ikd, baseline + (64 + 8) * kMiB);
  const long bound = baseline + (64 + 16 + 8) * kMiB;
  EXPECT_LT(settled, bound)
      << "registered " << registered << " meshes; resident:\n"
      << ikd.ResidentMappings();
  const double per_triangle = 1024.0 * (settled - baseline) /
                              (static_cast<double>(registered) * kTriangles);
  std::printf(
      "%d meshes of %d triangles registered within 64 MiB; resident "
      "%.1f bytes per triangle (request: %.1f bytes per triangle)\n",
      registered, kTriangles, per_triangle,
      static_cast<double>(Mesh("mesh0", kCells).ByteSizeLong()) / kTriangles);
  std::printf("%s\n", refused.error_message().c_str());

  // Sixteen registrations at once at the limit: each refused before it is
  // built, so ikd's peak grows by their requests (received and parsed) and
  // 16 MiB at most, not by sixteen builds.
  {
    constexpr int kAtOnce = 16;
    const v1::RegisterTerrainRequest request = Mesh("late", kCells);
    const long request_kb = static_cast<long>(request.ByteSizeLong()) / 1024;
    const long peak_before = ikd.StatusKb("VmHWM");
    std::vector<std::thread> callers;
    std::vector<grpc::StatusCode> codes(kAtOnce);
    for (int i = 0; i < kAtOnce; ++i) {
      callers.emplace_back([&, i] {
        v1::RegisterTerrainRequest own = request;
        own.mutable_terrain()->set_name(absl::StrCat("late", i));
        v1::RegisterTerrainResponse response;
        codes[i] =
            stub->RegisterTerrain(Context().get(), own, &response).error_code();
      });
    }
    for (std::thread& caller : callers) caller.join();
    for (grpc::StatusCode code : codes) {
      EXPECT_EQ(code, grpc::StatusCode::RESOURCE_EXHAUSTED);
    }
    const long peak_after = ikd.StatusKb("VmHWM");
    EXPECT_LT(peak_after - peak_before, kAtOnce * 2 * request_kb + 16 * kMiB)
        << "peak " << peak_before << " kB before, " << peak_after
        << " kB after; requests of " << request_kb << " kB";
  }

  // Deletes make room again (two: a build holds five times its request,
  // a mesh's entry about four and a half).
  for (const char* name : {"mesh0", "mesh1"}) {
    v1::DeleteTerrainRequest remove;
    remove.set_name(name);
    v1::DeleteTerrainResponse removed;
    ASSERT_TRUE(stub->DeleteTerrain(Context().get(), remove, &removed).ok());
  }
  v1::RegisterTerrainResponse response;
  const grpc::Status again =
      stub->RegisterTerrain(Context().get(), Mesh("again", kCells), &response);
  EXPECT_TRUE(again.ok()) << again.error_message();
}

TEST(MemoryE2eTest, CompressedRequestsAreRefusedBeforeInflating) {
  IkdProcess ikd({"--terrain_dir="});
  ASSERT_TRUE(ikd.Start()) << ikd.Log();
  auto stub = v1::IkService::NewStub(ikd.Channel());
  const long before = ikd.StatusKb("VmHWM");
  // 96 MiB of zeros: about 100 KB gzipped, under the 4 MiB limit.
  v1::RegisterTerrainRequest request;
  request.mutable_terrain()->set_name("zeros");
  request.mutable_terrain()->mutable_mesh()->mutable_vertices()->Resize(
      12 << 20, 0.0);
  for (grpc_compression_algorithm algorithm :
       {GRPC_COMPRESS_GZIP, GRPC_COMPRESS_DEFLATE}) {
    auto context = Context();
    context->set_compression_algorithm(algorithm);
    v1::RegisterTerrainResponse response;
    const grpc::Status status =
        stub->RegisterTerrain(context.get(), request, &response);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::UNIMPLEMENTED)
        << status.error_message();
    EXPECT_THAT(status.error_message(), HasSubstr("is disabled"));
  }
  EXPECT_LT(ikd.StatusKb("VmHWM"), before + 16 * kMiB);
  // Uncompressed calls go on.
  v1::ListTerrainsResponse listed;
  EXPECT_TRUE(
      stub->ListTerrains(Context().get(), v1::ListTerrainsRequest(), &listed)
          .ok());
}

TEST(MemoryE2eTest, OversizedRequestsAreBoundedAndMemoryIsGivenBack) {
  // 8 requests of 48 MiB at once, against a 4 MiB message limit: unbounded,
  // gRPC would buffer all 384 MiB before refusing them.
  IkdProcess ikd({"--transport_memory_bytes=67108864", "--terrain_dir="});
  ASSERT_TRUE(ikd.Start()) << ikd.Log();
  const long baseline = ikd.StatusKb("VmRSS");
  v1::RegisterTerrainRequest request;
  request.mutable_terrain()->set_name("huge");
  auto* vertices =
      request.mutable_terrain()->mutable_mesh()->mutable_vertices();
  vertices->Resize(6 << 20, 0.0);
  for (int i = 0; i < vertices->size(); ++i) vertices->Set(i, i * 1e-3);

  struct Call {
    std::unique_ptr<v1::IkService::Stub> stub;
    std::unique_ptr<grpc::ClientContext> context = Context();
    v1::RegisterTerrainResponse response;
    grpc::Status status;
  };
  std::vector<Call> calls(8);
  std::vector<std::thread> threads;
  for (size_t i = 0; i < calls.size(); ++i) {
    calls[i].stub = v1::IkService::NewStub(ikd.Channel(static_cast<int>(i)));
    threads.emplace_back([&call = calls[i], &request] {
      call.status = call.stub->RegisterTerrain(call.context.get(), request,
                                               &call.response);
    });
  }
  for (std::thread& thread : threads) thread.join();
  // Refused: over the message limit, or (the transport's quota full) the
  // stream reset or the connection sent away -- RESOURCE_EXHAUSTED or
  // UNAVAILABLE, never answered.
  for (const Call& call : calls) {
    EXPECT_TRUE(call.status.error_code() ==
                    grpc::StatusCode::RESOURCE_EXHAUSTED ||
                call.status.error_code() == grpc::StatusCode::UNAVAILABLE)
        << call.status.error_code() << " " << call.status.error_message();
  }
  const long peak = ikd.StatusKb("VmHWM");
  std::printf("8 x 48 MiB requests: ikd's peak %ld MiB over a %ld MiB start\n",
              (peak - baseline) / kMiB, baseline / kMiB);
  EXPECT_LT(peak, baseline + 64 * kMiB + 96 * kMiB);

  // The burst's memory goes back to the system.
  const long settled = WaitForRssBelow(ikd, baseline + 32 * kMiB);
  EXPECT_LT(settled, baseline + 32 * kMiB)
      << "peak " << peak << " kB, start " << baseline << " kB";
  // And ikd still serves.
  auto stub = v1::IkService::NewStub(ikd.Channel(100));
  v1::ListTerrainsResponse listed;
  EXPECT_TRUE(
      stub->ListTerrains(Context().get(), v1::ListTerrainsRequest(), &listed)
          .ok());
}

}  // namespace
}  // namespace ik
