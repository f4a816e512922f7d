// Internals of SolveChainJob (ik/rig/solve_chain.h) shared by its source
// files: what validation leaves for the solve. Not part of the public API.
#ifndef IK_SRC_RIG_SOLVE_CHAIN_INTERNAL_H_
#define IK_SRC_RIG_SOLVE_CHAIN_INTERNAL_H_

#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "ik/base/math.h"
#include "ik/rig/solve_chain.h"

namespace ik::internal {

// A goal checked against its job, in the solver's terms.
struct PreparedGoal {
  SolverKind solver = SolverKind::kTwoBone;
  Vec3 target_model{0.0};
  std::optional<Vec3> pole_model;
  std::optional<Quat> orientation_world;  // normalised
};

// Everything SolveChainJob::Validate() checks (solve_chain_validate.cc),
// with what the solve needs of it.
absl::StatusOr<PreparedGoal> Prepare(const SolveChainJob& job);

// The path errors about the job's pose name: its pose_path, or "locals".
std::string LocalsPath(const SolveChainJob& job);

}  // namespace ik::internal

#endif  // IK_SRC_RIG_SOLVE_CHAIN_INTERNAL_H_
