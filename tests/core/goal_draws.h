// A seeded goal of every kind on the humanoid's chains, shared by the tests
// that run many goals at once (tick_batch_groups_test.cc,
// solve_chain_jobs_test.cc).
#ifndef IK_TESTS_CORE_GOAL_DRAWS_H_
#define IK_TESTS_CORE_GOAL_DRAWS_H_

#include <cmath>
#include <cstddef>
#include <random>

#include "absl/strings/str_cat.h"
#include "draws.h"
#include "ik/rig/rig.h"
#include "ik/rig/solve_chain.h"
#include "random_poses.h"

namespace ik::testing {

// Goal `index` ("goals[index]") on one of the humanoid's arm, clavicle-arm
// and leg chains, in model space: a reachable target moved by up to 0.1 m
// on each axis (1 m one time in five); a pole (a quarter) or a swivel (a
// fifth); history-free (a fifth), FABRIK (15 %), an orientation goal
// (15 %); a NaN target (6 %).
inline ChainGoal DrawHumanoidGoal(const Rig& rig, size_t index,
                                  std::mt19937_64& engine) {
  static const char* const kChains[] = {
      "left_arm",           "right_arm", "left_arm_clavicle",
      "right_arm_clavicle", "left_leg",  "right_leg"};
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  std::uniform_int_distribution<int> pick(0, 99);
  ChainGoal goal;
  goal.chain = rig.FindChain(kChains[pick(engine) % 6]);
  goal.target_world = ReachableTarget(rig, *goal.chain, engine) +
                      (pick(engine) < 20 ? 1.0 : 0.1) * DrawVec3(unit, engine);
  goal.path = absl::StrCat("goals[", index, "]");
  const int kind = pick(engine);
  if (kind < 25) {
    goal.pole_world = goal.target_world + DrawVec3(unit, engine);
  } else if (kind < 45) {
    goal.swivel = 3.0 * unit(engine);
  }
  goal.history_free = pick(engine) < 20;
  if (pick(engine) < 15) goal.solver = SolverKind::kFabrik;
  if (pick(engine) < 15) {
    goal.orientation_world =
        glm::normalize(Quat(1.0, 0.3 * unit(engine), 0.3 * unit(engine), 0.0));
    goal.orientation_weight = 0.5 + 0.5 * unit(engine);
  }
  if (pick(engine) < 6) goal.target_world.y = std::nan("");
  return goal;
}

}  // namespace ik::testing

#endif  // IK_TESTS_CORE_GOAL_DRAWS_H_
