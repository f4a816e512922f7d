// Benchmarks of the ground queries: building a 100,000-triangle mesh (the
// BVH alone, and TriangleMesh::Create with validation, counting the pieces
// it gives way between: counters pieces, per_piece), and the downward
// rays the grounding pass casts (about 4 per character: a leg ray and a toe
// ray per foot) against planes, a heightfield, the 100,000-triangle mesh and
// all of them together.
//
//   build/bench/terrain_bench --benchmark_repetitions=5
#include <cmath>
#include <cstdlib>
#include <random>
#include <utility>
#include <vector>

#include "benchmark/benchmark.h"
#include "ik/geometry/bvh.h"
#include "ik/geometry/vertical_ray_grid.h"
#include "ik/ground/terrain.h"
#include "terrain_shapes.h"

namespace ik {
namespace {

constexpr int kRayCount = 1024;  // a power of two
// A 250 x 200-cell grid: 100,000 triangles, 50 m x 40 m.
constexpr int kMeshColumns = 251;
constexpr int kMeshRows = 201;
constexpr double kMeshSpacing = 0.2;

// Rolling ground with small seeded bumps, metres.
double Terrain(double x, double z) {
  return 0.5 * std::sin(0.3 * x) * std::cos(0.2 * z) +
         0.05 * std::sin(7.1 * x + 3.3 * z);
}

TriangleMeshDefinition HundredThousandTriangles() {
  std::mt19937_64 engine(61);
  return testing::GridMesh(Terrain, Vec3(0), kMeshSpacing, kMeshSpacing,
                           kMeshColumns, kMeshRows, engine);
}

const TriangleMesh& Mesh() {
  static const TriangleMesh* const mesh = [] {
    absl::StatusOr<TriangleMesh> created =
        TriangleMesh::Create(HundredThousandTriangles());
    if (!created.ok()) std::abort();
    return new TriangleMesh(*std::move(created));
  }();
  return *mesh;
}

const Heightfield& Field() {
  static const Heightfield* const field = [] {
    absl::StatusOr<Heightfield> created = Heightfield::Create(
        testing::SampledHeightfield(Terrain, Vec3(0), kMeshSpacing,
                                    kMeshSpacing, kMeshColumns, kMeshRows));
    if (!created.ok()) std::abort();
    return new Heightfield(*std::move(created));
  }();
  return *field;
}

// Leg-ray origins: a little above hip height over the ground, seeded.
std::vector<Vec3> LegRayOrigins() {
  std::mt19937_64 engine(62);
  std::uniform_real_distribution<double> x(1.0,
                                           (kMeshColumns - 2) * kMeshSpacing);
  std::uniform_real_distribution<double> z(1.0, (kMeshRows - 2) * kMeshSpacing);
  std::vector<Vec3> origins;
  for (int i = 0; i < kRayCount; ++i) {
    const double ray_x = x(engine), ray_z = z(engine);
    origins.push_back(Vec3(ray_x, Terrain(ray_x, ray_z) + 1.1, ray_z));
  }
  return origins;
}

constexpr double kLegRayLength = 1.6;  // hip to a little below the ankle
const Vec3 kDown(0.0, -1.0, 0.0);

// The bounding box of each triangle of `definition`.
std::vector<Aabb> TriangleBoxes(const TriangleMeshDefinition& definition) {
  std::vector<Aabb> boxes(definition.indices.size() / 3);
  for (size_t t = 0; t < boxes.size(); ++t) {
    for (int k = 0; k < 3; ++k) {
      boxes[t].Extend(definition.vertices[definition.indices[3 * t + k]]);
    }
  }
  return boxes;
}

void BM_BvhBuild(benchmark::State& state) {
  const std::vector<Aabb> boxes = TriangleBoxes(HundredThousandTriangles());
  for (auto _ : state) {
    Bvh bvh = Bvh::Build(boxes);
    benchmark::DoNotOptimize(bvh);
  }
  state.counters["triangles"] = static_cast<double>(boxes.size());
  state.counters["nodes"] =
      static_cast<double>(Bvh::Build(boxes).nodes().size());
  state.counters["depth"] = Bvh::Build(boxes).depth();
}
BENCHMARK(BM_BvhBuild)->Unit(benchmark::kMillisecond);

// The vertical-ray grid alone, over the same boxes.
void BM_VerticalRayGridBuild(benchmark::State& state) {
  const std::vector<Aabb> boxes = TriangleBoxes(HundredThousandTriangles());
  for (auto _ : state) {
    VerticalRayGrid grid = VerticalRayGrid::Build(boxes);
    benchmark::DoNotOptimize(grid);
  }
  const VerticalRayGrid grid = VerticalRayGrid::Build(boxes);
  const double cells = static_cast<double>(grid.columns()) * grid.rows();
  state.counters["cells"] = cells;
  state.counters["per_cell"] = static_cast<double>(grid.listed()) / cells;
  // Entries a downward leg ray tests past the quarter check.
  double tested = 0.0;
  const std::vector<Vec3> origins = LegRayOrigins();
  for (const Vec3& origin : origins) {
    absl::Span<const std::int32_t> candidates;
    std::int32_t quarter = 0;
    if (grid.Find(origin.x, origin.z, &candidates, &quarter) !=
        VerticalRayGrid::Lookup::kListed) {
      continue;
    }
    for (const std::int32_t entry : candidates) {
      tested += (entry & quarter) != 0 ? 1.0 : 0.0;
    }
  }
  state.counters["per_ray"] = tested / origins.size();
  state.counters["bytes_per_triangle"] =
      static_cast<double>(grid.memory_bytes()) / boxes.size();
}
BENCHMARK(BM_VerticalRayGridBuild)->Unit(benchmark::kMillisecond);

void BM_TriangleMeshCreate(benchmark::State& state) {
  const TriangleMeshDefinition definition = HundredThousandTriangles();
  // The pauses a server's build gives other callers (ik/base/pacer.h).
  std::int64_t pauses = 0;
  for (auto _ : state) {
    state.PauseTiming();
    TriangleMeshDefinition copy = definition;
    state.ResumeTiming();
    absl::StatusOr<TriangleMesh> mesh =
        TriangleMesh::Create(std::move(copy), "mesh", [&pauses] { ++pauses; });
    benchmark::DoNotOptimize(mesh);
  }
  const TriangleMesh& mesh = Mesh();
  state.counters["bytes_per_triangle"] =
      static_cast<double>(mesh.memory_bytes()) / mesh.triangle_count();
  // Pieces per build, and the time of one (the build's time over its
  // pieces).
  state.counters["pieces"] = static_cast<double>(pauses + state.iterations()) /
                             static_cast<double>(state.iterations());
  state.counters["per_piece"] = benchmark::Counter(
      static_cast<double>(pauses + state.iterations()),
      benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_TriangleMeshCreate)->Unit(benchmark::kMillisecond);

// Runs downward leg rays against `ground`, one per iteration.
void RunLegRays(benchmark::State& state, const Ground& ground) {
  const std::vector<Vec3> origins = LegRayOrigins();
  int next = 0;
  int hits = 0;
  for (auto _ : state) {
    const RayHit hit = ground.Raycast(origins[next], kDown, kLegRayLength);
    hits += hit.hit ? 1 : 0;
    benchmark::DoNotOptimize(hit);
    next = (next + 1) & (kRayCount - 1);
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["hit_rate"] =
      static_cast<double>(hits) / static_cast<double>(state.iterations());
}

// Gently tilted planes around the terrain's mean height; all but the
// first bounded to the terrain's rectangle.
std::vector<GroundPlane> Planes(int count) {
  std::vector<GroundPlane> planes;
  for (int i = 0; i < count; ++i) {
    GroundPlaneDefinition def;
    def.point = Vec3(25.0, -0.05 * i, 20.0);
    def.normal = Vec3(0.01 * i, 1.0, -0.01 * i);
    if (i > 0) def.rectangle_xz = RectangleXZ{0.0, 50.0, 0.0, 40.0};
    planes.push_back(*GroundPlane::Create(def));
  }
  return planes;
}

void BM_RaycastPlanes(benchmark::State& state) {
  const std::vector<GroundPlane> planes =
      Planes(static_cast<int>(state.range(0)));
  Ground ground;
  ground.planes = planes;
  RunLegRays(state, ground);
}
BENCHMARK(BM_RaycastPlanes)->ArgName("planes")->Arg(1)->Arg(4);

void BM_RaycastHeightfield(benchmark::State& state) {
  const Heightfield* heightfields[] = {&Field()};
  Ground ground;
  ground.heightfields = heightfields;
  RunLegRays(state, ground);
}
BENCHMARK(BM_RaycastHeightfield);

void BM_RaycastMesh(benchmark::State& state) {
  const TriangleMesh* meshes[] = {&Mesh()};
  Ground ground;
  ground.meshes = meshes;
  RunLegRays(state, ground);
}
BENCHMARK(BM_RaycastMesh);

// Tilted rays (toe rays on a slope, or a character leaning) on the mesh.
void BM_RaycastMeshTilted(benchmark::State& state) {
  const std::vector<Vec3> origins = LegRayOrigins();
  const Vec3 direction(0.3, -1.0, 0.2);
  const TriangleMesh& mesh = Mesh();
  int next = 0;
  for (auto _ : state) {
    const RayHit hit = mesh.Raycast(origins[next], direction, kLegRayLength);
    benchmark::DoNotOptimize(hit);
    next = (next + 1) & (kRayCount - 1);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_RaycastMeshTilted);

// Everything at once: 4 planes, the heightfield and the mesh.
void BM_RaycastGroundAll(benchmark::State& state) {
  const std::vector<GroundPlane> planes = Planes(4);
  const Heightfield* heightfields[] = {&Field()};
  const TriangleMesh* meshes[] = {&Mesh()};
  Ground ground;
  ground.planes = planes;
  ground.heightfields = heightfields;
  ground.meshes = meshes;
  RunLegRays(state, ground);
}
BENCHMARK(BM_RaycastGroundAll);

}  // namespace
}  // namespace ik
