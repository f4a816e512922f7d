// The example humanoid (tests/core/humanoid_rig.h), built once per
// benchmark program and shared by its benchmarks.
#ifndef IK_BENCH_BENCH_RIGS_H_
#define IK_BENCH_BENCH_RIGS_H_

#include <cstdlib>
#include <utility>

#include "absl/status/statusor.h"
#include "humanoid_rig.h"
#include "ik/rig/rig.h"

namespace ik::bench {

inline const Rig& Humanoid() {
  static const Rig* const rig = [] {
    absl::StatusOr<Rig> created = testing::HumanoidRig();
    if (!created.ok()) std::abort();
    return new Rig(*std::move(created));
  }();
  return *rig;
}

}  // namespace ik::bench

#endif  // IK_BENCH_BENCH_RIGS_H_
