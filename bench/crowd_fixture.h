// The tick benchmarks' shared set-up: the example rigs and terrains, the
// handlers over them, and the 1,000-character crowd of client/crowd/crowd.h
// with three ticks absorbed (so dynamics has states); `request` is its fourth
// tick. Built once per benchmark program.
#ifndef IK_BENCH_CROWD_FIXTURE_H_
#define IK_BENCH_CROWD_FIXTURE_H_

#include <cstdio>
#include <cstdlib>
#include <memory>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "crowd.h"
#include "crowd_core.h"
#include "handlers/handlers.h"
#include "ik/rig_json.h"
#include "rpc/solver_pool.h"

namespace ik::server {

inline constexpr int kCrowdCharacters = 1000;

// A benchmark is meaningless past a failure: say it and stop.
inline void Expect(const absl::Status& status) {
  if (status.ok()) return;
  std::fprintf(stderr, "benchmark set-up: %s\n", status.ToString().c_str());
  std::abort();
}
inline void Expect(bool ok, const char* what) {
  if (!ok) Expect(absl::InternalError(what));
}

// The example crowd: kCrowdCharacters of the bundled humanoid.
inline std::unique_ptr<SyntheticCrowd> ExampleCrowd() {
  absl::StatusOr<v1::Rig> humanoid =
      ReadRigFile(IK_EXAMPLES_DIR "/rigs/humanoid.json");
  Expect(humanoid.status());
  CrowdOptions options;
  options.characters = kCrowdCharacters;
  return std::make_unique<SyntheticCrowd>(*humanoid, options);
}

struct CrowdTickFixture {
  CrowdTickFixture()
      : rigs(limits.max_rigs),
        terrains(limits.max_terrains),
        handlers(rigs, terrains, limits),
        pool(1, 1024) {
    Expect(LoadExamples(IK_EXAMPLES_DIR, limits, rigs, terrains));
    crowd = ExampleCrowd();
    scope.pool = &pool;
    scope.client = "bench";
    for (int t = 0; t < 3; ++t) {
      v1::TickResponse response;
      Expect(handlers.Tick(crowd->NextTick(), response, scope));
      crowd->Absorb(response);
    }
    request = crowd->NextTick();
  }

  ServiceLimits limits;
  RigRegistry rigs;
  TerrainRegistry terrains;
  IkHandlers handlers;
  SolverPool pool;
  CallScope scope;
  std::unique_ptr<SyntheticCrowd> crowd;
  v1::TickRequest request;
};

}  // namespace ik::server

#endif  // IK_BENCH_CROWD_FIXTURE_H_
