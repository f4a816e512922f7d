// The example humanoid (tests/core/humanoid_rig.h), built once per
// benchmark program and shared by its benchmarks.
#ifndef IK_BENCH_BENCH_RIGS_H_
#define IK_BENCH_BENCH_RIGS_H_

#include <cstdlib>
#include <utility>

#include "absl/status/statusor.h"
#include "humanoid_rig.h"
#include "ik/character/character.h"
#include "ik/rig/rig.h"

namespace ik::bench {

// With its legs, colliders and ponytail.
inline const Character& HumanoidCharacter() {
  static const Character* const character = [] {
    absl::StatusOr<Character> created = testing::HumanoidCharacter();
    if (!created.ok()) std::abort();
    return new Character(*std::move(created));
  }();
  return *character;
}

inline const Rig& Humanoid() { return HumanoidCharacter().rig; }

}  // namespace ik::bench

#endif  // IK_BENCH_BENCH_RIGS_H_
