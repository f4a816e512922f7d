#include "ik/ground/terrain.h"

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <new>
#include <optional>
#include <random>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "draws.h"
#include "gtest/gtest.h"
#include "terrain_shapes.h"

// Counts heap allocations, to show that queries make none. (Deallocation
// goes through a volatile pointer to std::free only so that GCC's
// -Wmismatched-new-delete does not flag this replacement pair.)
namespace {
std::atomic<long> allocation_count{0};
void (*volatile release)(void*) = std::free;
}  // namespace

void* operator new(std::size_t size) {
  allocation_count.fetch_add(1, std::memory_order_relaxed);
  if (void* pointer = std::malloc(size == 0 ? 1 : size)) return pointer;
  throw std::bad_alloc();
}
void operator delete(void* pointer) noexcept { release(pointer); }
void operator delete(void* pointer, std::size_t) noexcept { release(pointer); }

namespace ik {
namespace {

using ::ik::testing::kDown;

constexpr double kInf = std::numeric_limits<double>::infinity();

GroundPlane Floor(double height) {
  GroundPlaneDefinition def;
  def.point = Vec3(0, height, 0);
  return *GroundPlane::Create(def);
}

std::shared_ptr<const Heightfield> Platform(double height) {
  HeightfieldDefinition def;
  def.origin = Vec3(-1, height, -1);
  def.columns = 3;
  def.rows = 3;
  def.heights.assign(9, 0.0);
  return std::make_shared<const Heightfield>(*Heightfield::Create(def));
}

std::shared_ptr<const TriangleMesh> Stairs() {
  return std::make_shared<const TriangleMesh>(
      *TriangleMesh::Create(testing::ProfileMesh(testing::Stairs(
          /*steps=*/4, /*run=*/0.3, /*rise=*/0.2, /*start_x=*/-2.0,
          /*first_riser_x=*/0.0, /*end_x=*/2.0))));
}

TEST(GroundTest, ValidateNamesNullTerrains) {
  const Heightfield* heightfields[] = {Platform(0).get(), nullptr};
  Ground ground;
  EXPECT_TRUE(ground.Validate().ok());
  ground.heightfields = heightfields;
  absl::Status status = ground.Validate();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(status.message(), "heightfields[1]: null"));
  const TriangleMesh* meshes[] = {nullptr};
  ground = {};
  ground.meshes = meshes;
  status = ground.Validate();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(status.message(), "meshes[0]: null"));
  // Queries skip nulls rather than crash.
  EXPECT_FALSE(ground.Raycast(Vec3(0, 1, 0), kDown, kInf).hit);
}

TEST(GroundTest, EmptyGroundAndInvalidRaysMiss) {
  const std::vector<GroundPlane> planes = {Floor(0)};
  Ground ground;
  EXPECT_FALSE(ground.Raycast(Vec3(0, 1, 0), kDown, kInf).hit);
  ground.planes = planes;
  EXPECT_TRUE(ground.Raycast(Vec3(0, 1, 0), kDown, kInf).hit);
  EXPECT_FALSE(ground.Raycast(Vec3(0, 1, 0), Vec3(0), kInf).hit);
  EXPECT_FALSE(ground.Raycast(Vec3(0, 1, 0), kDown, -1).hit);
}

// The nearest of every kind wins, and the hit says which one it was.
TEST(GroundTest, NearestHitWinsAcrossKinds) {
  const std::vector<GroundPlane> planes = {Floor(-0.5), Floor(0.05)};
  const std::shared_ptr<const Heightfield> platform = Platform(0.1);
  const std::shared_ptr<const TriangleMesh> stairs = Stairs();
  const Heightfield* heightfields[] = {platform.get()};
  const TriangleMesh* meshes[] = {stairs.get()};
  Ground ground;
  ground.planes = planes;
  ground.heightfields = heightfields;
  ground.meshes = meshes;
  ASSERT_TRUE(ground.Validate().ok());

  // Over the top step (y = 0.8): the mesh.
  RayHit hit = ground.Raycast(Vec3(1.5, 3, 0), kDown, kInf);
  ASSERT_TRUE(hit.hit);
  EXPECT_EQ(hit.kind, GroundKind::kMesh);
  EXPECT_EQ(hit.source, 0);
  EXPECT_NEAR(hit.point.y, 0.8, 1e-15);
  // Left of the stairs (mesh floor at 0) over the platform (0.1).
  hit = ground.Raycast(Vec3(-0.5, 3, 0), kDown, kInf);
  ASSERT_TRUE(hit.hit);
  EXPECT_EQ(hit.kind, GroundKind::kHeightfield);
  EXPECT_EQ(hit.source, 0);
  EXPECT_NEAR(hit.point.y, 0.1, 1e-15);
  // Off the platform, before the stairs: the higher plane (index 1).
  hit = ground.Raycast(Vec3(-1.5, 3, 0), kDown, kInf);
  ASSERT_TRUE(hit.hit);
  EXPECT_EQ(hit.kind, GroundKind::kPlane);
  EXPECT_EQ(hit.source, 1);
  EXPECT_NEAR(hit.point.y, 0.05, 1e-15);
  // Beyond everything but the planes; the lower plane only from below.
  hit = ground.Raycast(Vec3(5, -3, 0), Vec3(0, 1, 0), kInf);
  ASSERT_TRUE(hit.hit);
  EXPECT_EQ(hit.source, 0);
  EXPECT_EQ(hit.normal, Vec3(0, -1, 0));
  // max_distance applies to all.
  EXPECT_FALSE(ground.Raycast(Vec3(1.5, 3, 0), kDown, 2.1).hit);
}

// Exactly equal distances: planes before heightfields before meshes, lower
// index first.
TEST(GroundTest, TiesGoToTheFirstSource) {
  const std::vector<GroundPlane> planes = {Floor(0.0), Floor(0.0)};
  const std::shared_ptr<const Heightfield> platform = Platform(0.0);
  const std::shared_ptr<const TriangleMesh> stairs = Stairs();
  const Heightfield* heightfields[] = {platform.get(), platform.get()};
  const TriangleMesh* meshes[] = {stairs.get()};
  Ground ground;
  ground.heightfields = heightfields;
  ground.meshes = meshes;
  RayHit hit = ground.Raycast(Vec3(-0.5, 1, 0), kDown, kInf);
  ASSERT_TRUE(hit.hit);
  EXPECT_EQ(hit.kind, GroundKind::kHeightfield);
  EXPECT_EQ(hit.source, 0);
  ground.planes = planes;
  hit = ground.Raycast(Vec3(-0.5, 1, 0), kDown, kInf);
  ASSERT_TRUE(hit.hit);
  EXPECT_EQ(hit.kind, GroundKind::kPlane);
  EXPECT_EQ(hit.source, 0);
}

// A floor, a platform heightfield and the stairs mesh, as one Ground.
struct MixedGround {
  std::vector<GroundPlane> planes = {Floor(-0.2)};
  std::shared_ptr<const Heightfield> platform = Platform(0.1);
  std::shared_ptr<const TriangleMesh> stairs = Stairs();
  const Heightfield* heightfields[1] = {platform.get()};
  const TriangleMesh* meshes[1] = {stairs.get()};

  Ground view() const {
    Ground ground;
    ground.planes = planes;
    ground.heightfields = heightfields;
    ground.meshes = meshes;
    return ground;
  }
};

// Agrees with querying each terrain alone and keeping the nearest.
TEST(GroundTest, MatchesTheNearestOfItsPartsOnRandomRays) {
  const MixedGround mixed;
  const Ground ground = mixed.view();
  std::mt19937_64 engine(51);
  std::uniform_real_distribution<double> unit(-2.5, 2.5);
  for (int i = 0; i < 2000; ++i) {
    const Vec3 origin = Vec3(0.0, 1.5, 0.0) +
                        Vec3(1.0, 0.5, 1.0) * testing::DrawVec3(unit, engine);
    const Vec3 direction = testing::RandomDirection(engine);
    const RayHit hit = ground.Raycast(origin, direction, kInf);
    double nearest = kInf;
    for (const RayHit& part :
         {mixed.planes[0].Raycast(origin, direction, kInf),
          mixed.platform->Raycast(origin, direction, kInf),
          mixed.stairs->Raycast(origin, direction, kInf)}) {
      if (part.hit && part.distance < nearest) nearest = part.distance;
    }
    ASSERT_EQ(hit.hit, nearest < kInf) << i;
    if (hit.hit) {
      EXPECT_EQ(hit.distance, nearest) << i;
    }
  }
}

TEST(GroundTest, QueriesAllocateNothing) {
  const std::vector<GroundPlane> planes = {Floor(-0.2), Floor(0.05)};
  const std::shared_ptr<const Heightfield> platform = Platform(0.1);
  const std::shared_ptr<const TriangleMesh> soup =
      std::make_shared<const TriangleMesh>(
          *TriangleMesh::Create(testing::RandomTriangleSoup(5000, 4.0, 54)));
  const Heightfield* heightfields[] = {platform.get()};
  const TriangleMesh* meshes[] = {soup.get()};
  Ground ground;
  ground.planes = planes;
  ground.heightfields = heightfields;
  ground.meshes = meshes;
  std::mt19937_64 engine(55);
  std::uniform_real_distribution<double> unit(0.0, 4.0);
  const long at_start = allocation_count.load();
  std::vector<std::pair<Vec3, Vec3>> rays;
  for (int i = 0; i < 1000; ++i) {
    const double x = unit(engine);  // drawn in order
    const Vec3 origin(x, 5.0, unit(engine));
    rays.push_back(
        {origin, i % 2 == 0 ? kDown : testing::RandomDirection(engine)});
  }
  int hits = 0;
  const long before = allocation_count.load();
  EXPECT_GT(before, at_start);  // the counter works
  for (const auto& [origin, direction] : rays) {
    hits += ground.Raycast(origin, direction, kInf).hit ? 1 : 0;
  }
  EXPECT_EQ(allocation_count.load(), before);
  EXPECT_GT(hits, 500);
}

// The prefetch hints allocate nothing and change no answer.
TEST(GroundTest, PrefetchAllocatesNothingAndChangesNoAnswer) {
  const MixedGround mixed;
  const Ground ground = mixed.view();
  std::mt19937_64 engine(56);
  std::uniform_real_distribution<double> unit(-2.5, 2.5);
  std::vector<Vec3> points;
  std::vector<RayHit> before;
  for (int i = 0; i < 12; ++i) {
    const double x = unit(engine);  // drawn in order
    points.push_back(Vec3(x, 3.0, unit(engine)));
    before.push_back(ground.Raycast(points.back(), kDown, kInf));
  }
  points.push_back(Vec3(std::numeric_limits<double>::quiet_NaN()));
  const long allocations = allocation_count.load();
  ground.PrefetchVerticalFirst(points);
  ground.PrefetchVerticalRest(points);
  EXPECT_EQ(allocation_count.load(), allocations);
  for (size_t i = 0; i < before.size(); ++i) {
    const RayHit hit = ground.Raycast(points[i], kDown, kInf);
    ASSERT_EQ(hit.hit, before[i].hit) << i;
    EXPECT_EQ(hit.distance, before[i].distance) << i;
    EXPECT_EQ(hit.point, before[i].point) << i;
    EXPECT_EQ(hit.normal, before[i].normal) << i;
    EXPECT_EQ(hit.kind, before[i].kind) << i;
    EXPECT_EQ(hit.primitive, before[i].primitive) << i;
    EXPECT_EQ(hit.source, before[i].source) << i;
  }
}

// Shared, immutable terrains queried from several threads at once give the
// same bits as one thread.
TEST(GroundTest, ConcurrentQueriesAgreeBitForBit) {
  const std::shared_ptr<const TriangleMesh> soup =
      std::make_shared<const TriangleMesh>(
          *TriangleMesh::Create(testing::RandomTriangleSoup(20000, 4.0, 52)));
  const std::shared_ptr<const Heightfield> platform = Platform(0.1);
  const std::vector<GroundPlane> planes = {Floor(-0.2)};
  const Heightfield* heightfields[] = {platform.get()};
  const TriangleMesh* meshes[] = {soup.get()};
  Ground ground;
  ground.planes = planes;
  ground.heightfields = heightfields;
  ground.meshes = meshes;
  std::mt19937_64 engine(53);
  std::uniform_real_distribution<double> unit(0.0, 4.0);
  std::vector<std::pair<Vec3, Vec3>> rays;
  for (int i = 0; i < 4000; ++i) {
    const double x = unit(engine);  // drawn in order
    const Vec3 origin(x, 5.0, unit(engine));
    rays.push_back(
        {origin, i % 2 == 0 ? kDown : testing::RandomDirection(engine)});
  }
  const auto run_all = [&](std::vector<RayHit>* hits) {
    for (const auto& [origin, direction] : rays) {
      hits->push_back(ground.Raycast(origin, direction, kInf));
    }
  };
  std::vector<RayHit> reference;
  run_all(&reference);
  std::vector<std::vector<RayHit>> results(4);
  std::vector<std::thread> threads;
  for (std::vector<RayHit>& result : results) {
    threads.emplace_back([&run_all, &result] { run_all(&result); });
  }
  for (std::thread& thread : threads) thread.join();
  for (const std::vector<RayHit>& result : results) {
    ASSERT_EQ(result.size(), reference.size());
    for (size_t i = 0; i < result.size(); ++i) {
      ASSERT_EQ(result[i].hit, reference[i].hit);
      EXPECT_EQ(result[i].primitive, reference[i].primitive);
      EXPECT_EQ(result[i].kind, reference[i].kind);
      EXPECT_EQ(std::memcmp(&result[i].distance, &reference[i].distance,
                            sizeof(double)),
                0);
      EXPECT_EQ(
          std::memcmp(&result[i].normal, &reference[i].normal, sizeof(Vec3)),
          0);
    }
  }
}

}  // namespace
}  // namespace ik
