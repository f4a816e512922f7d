// Benchmarks of the grounding pass: GroundFeetJob::Run for the humanoid (2
// legs with toe joints: 4 rays, 2 two-bone solves) on 4 planes, on a
// heightfield and on a 100,000-triangle mesh (the terrain of
// terrain_bench.cc). Each iteration grounds one character: copies its
// animated pose into the job's locals (as a server does per request) and
// runs the job. The characters stand at 256 seeded random places and
// headings over the ground, their soles between 5 cm into it and 8 cm
// above it, with seeded random planted weights. Target: <= 2 us per
// character. Also TriangleMesh::Create for a jittered 100,000-triangle
// grid (target: <= 100 ms).
//
//   build/bench/ground_bench --benchmark_repetitions=5
//     --benchmark_report_aggregates_only=true
#include <cmath>
#include <cstdlib>
#include <random>
#include <utility>
#include <vector>

#include "bench_rigs.h"
#include "benchmark/benchmark.h"
#include "humanoid_rig.h"
#include "ik/ground/grounding.h"
#include "ik/ground/terrain.h"
#include "terrain_shapes.h"

namespace ik {
namespace {

constexpr int kCharacters = 256;  // a power of two
// A 250 x 200-cell grid: 100,000 triangles, 50 m x 40 m.
constexpr int kColumns = 251;
constexpr int kRows = 201;
constexpr double kSpacing = 0.2;
// The humanoid's rest soles, model space (ankles at 0.0705, ankle height
// 0.07).
constexpr double kRestSoleHeight = 0.0705 - testing::kHumanoidAnkleHeight;

// Rolling ground with small bumps, metres (as terrain_bench.cc).
double Terrain(double x, double z) {
  return 0.5 * std::sin(0.3 * x) * std::cos(0.2 * z) +
         0.05 * std::sin(7.1 * x + 3.3 * z);
}

using ::ik::bench::HumanoidCharacter;

const TriangleMesh& Mesh() {
  static const TriangleMesh* const mesh = [] {
    std::mt19937_64 engine(61);
    absl::StatusOr<TriangleMesh> created =
        TriangleMesh::Create(testing::GridMesh(
            Terrain, Vec3(0), kSpacing, kSpacing, kColumns, kRows, engine));
    if (!created.ok()) std::abort();
    return new TriangleMesh(*std::move(created));
  }();
  return *mesh;
}

const Heightfield& Field() {
  static const Heightfield* const field = [] {
    absl::StatusOr<Heightfield> created =
        Heightfield::Create(testing::SampledHeightfield(
            Terrain, Vec3(0), kSpacing, kSpacing, kColumns, kRows));
    if (!created.ok()) std::abort();
    return new Heightfield(*std::move(created));
  }();
  return *field;
}

// Gently tilted planes around the terrain's mean height; all but the first
// bounded to the terrain's rectangle (as terrain_bench.cc).
std::vector<GroundPlane> Planes() {
  std::vector<GroundPlane> planes;
  for (int i = 0; i < 4; ++i) {
    GroundPlaneDefinition definition;
    definition.point = Vec3(25.0, -0.05 * i, 20.0);
    definition.normal = Vec3(0.01 * i, 1.0, -0.01 * i);
    if (i > 0) definition.rectangle_xz = RectangleXZ{0.0, 50.0, 0.0, 40.0};
    planes.push_back(*GroundPlane::Create(definition));
  }
  return planes;
}

struct Stance {
  Transform root;
  double weights[2] = {0.0, 0.0};
};

// Stances of the humanoid over `ground`, seeded.
std::vector<Stance> Stances(const Ground& ground) {
  std::mt19937_64 engine(63);
  std::uniform_real_distribution<double> x(2.0, (kColumns - 3) * kSpacing);
  std::uniform_real_distribution<double> z(2.0, (kRows - 3) * kSpacing);
  std::uniform_real_distribution<double> yaw(-kPi, kPi);
  std::uniform_real_distribution<double> above(-0.05, 0.08);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::vector<Stance> characters;
  while (characters.size() < kCharacters) {
    const double at_x = x(engine);  // drawn in order, whatever the compiler
    const Vec3 at(at_x, 100.0, z(engine));
    const RayHit hit = ground.Raycast(at, Vec3(0, -1, 0), 200.0);
    if (!hit.hit) std::abort();
    Stance character;
    character.root.rotation = AngleAxis(yaw(engine), Vec3(0, 1, 0));
    character.root.translation =
        Vec3(at.x, hit.point.y - kRestSoleHeight + above(engine), at.z);
    character.weights[0] = unit(engine);
    character.weights[1] = unit(engine);
    characters.push_back(character);
  }
  return characters;
}

void RunGroundFeet(benchmark::State& state, const Ground& ground) {
  const Character& humanoid = HumanoidCharacter();
  const Rig& rig = humanoid.rig;
  const std::vector<Stance> characters = Stances(ground);
  const std::vector<Transform> animated(rig.rest_pose().begin(),
                                        rig.rest_pose().end());
  std::vector<Transform> locals = animated;
  std::vector<FootResult> feet(humanoid.legs.size());
  GroundFeetReport report;
  GroundFeetJob job;
  job.rig = &rig;
  job.legs = humanoid.legs;
  job.locals = absl::MakeSpan(locals);
  job.ground = ground;
  job.feet = absl::MakeSpan(feet);
  job.report = &report;
  int next = 0;
  int grounded = 0;
  int reached = 0;
  for (auto _ : state) {
    const Stance& character = characters[next];
    std::copy(animated.begin(), animated.end(), locals.begin());
    job.root = character.root;
    job.weights = character.weights;
    if (!job.Run().ok()) std::abort();
    benchmark::DoNotOptimize(locals.data());
    benchmark::ClobberMemory();
    for (const FootResult& foot : feet) {
      grounded += foot.grounded ? 1 : 0;
      reached += foot.reached ? 1 : 0;
    }
    next = (next + 1) & (kCharacters - 1);
  }
  state.SetItemsProcessed(state.iterations());
  const double feet_run = 2.0 * static_cast<double>(state.iterations());
  state.counters["grounded"] = grounded / feet_run;
  state.counters["reached"] = reached / feet_run;
}

void BM_GroundFeetPlanes(benchmark::State& state) {
  const std::vector<GroundPlane> planes = Planes();
  Ground ground;
  ground.planes = planes;
  RunGroundFeet(state, ground);
}
BENCHMARK(BM_GroundFeetPlanes);

void BM_GroundFeetHeightfield(benchmark::State& state) {
  const Heightfield* heightfields[] = {&Field()};
  Ground ground;
  ground.heightfields = heightfields;
  RunGroundFeet(state, ground);
}
BENCHMARK(BM_GroundFeetHeightfield);

void BM_GroundFeetMesh(benchmark::State& state) {
  const TriangleMesh* meshes[] = {&Mesh()};
  Ground ground;
  ground.meshes = meshes;
  RunGroundFeet(state, ground);
}
BENCHMARK(BM_GroundFeetMesh);

// Building a ground mesh as a server does when one is registered:
// TriangleMesh::Create (validation, the BVH, the slot-ordered triangles)
// on a 224 x 224-vertex grid (99,458 triangles, 0.2 m apart) whose
// heights are the rolling terrain plus seeded jitter of up to +-5 cm, and
// whose cells are split along seeded diagonals. Target: <= 100 ms.
void BM_TriangleMeshCreateJittered(benchmark::State& state) {
  constexpr int kGridVertices = 224;
  std::mt19937_64 engine(64);
  std::uniform_real_distribution<double> jitter(-0.05, 0.05);
  const TriangleMeshDefinition definition = testing::GridMesh(
      [&](double x, double z) { return Terrain(x, z) + jitter(engine); },
      Vec3(0), kSpacing, kSpacing, kGridVertices, kGridVertices, engine);
  for (auto _ : state) {
    state.PauseTiming();
    TriangleMeshDefinition copy = definition;
    state.ResumeTiming();
    absl::StatusOr<TriangleMesh> mesh = TriangleMesh::Create(std::move(copy));
    if (!mesh.ok()) std::abort();
    benchmark::DoNotOptimize(mesh);
  }
  state.counters["triangles"] =
      static_cast<double>(definition.indices.size() / 3);
}
BENCHMARK(BM_TriangleMeshCreateJittered)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace ik
