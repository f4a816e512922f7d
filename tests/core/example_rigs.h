// The bundled example rigs by name, for tests parameterised over them.
#ifndef IK_TESTS_CORE_EXAMPLE_RIGS_H_
#define IK_TESTS_CORE_EXAMPLE_RIGS_H_

#include <string>

#include "absl/status/statusor.h"
#include "humanoid_rig.h"
#include "ik/rig/rig.h"
#include "tail_rig.h"

namespace ik::testing {

// "tail" (tail_rig.h), else the humanoid (humanoid_rig.h).
inline absl::StatusOr<Rig> ExampleRig(const std::string& name) {
  return name == "tail" ? TailRig() : HumanoidRig();
}

}  // namespace ik::testing

#endif  // IK_TESTS_CORE_EXAMPLE_RIGS_H_
