// The crowd the TickBatchJob tests share: the example humanoid, a tilted
// plane, and a seeded crowd with every job (tick_batch_test.cc,
// tick_batch_inputs_test.cc).
#ifndef IK_TESTS_CORE_TICK_BATCH_CROWD_H_
#define IK_TESTS_CORE_TICK_BATCH_CROWD_H_

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "draws.h"
#include "gtest/gtest.h"
#include "humanoid_rig.h"
#include "ik/character/tick_batch.h"
#include "ik/ground/ground_plane.h"
#include "random_poses.h"

namespace ik::tick_batch_testing {

inline const Character& Humanoid() {
  static const Character* const character = [] {
    absl::StatusOr<Character> created = testing::HumanoidCharacter();
    if (!created.ok()) std::abort();
    return new Character(*std::move(created));
  }();
  return *character;
}

inline GroundPlane TiltedPlane() {
  GroundPlaneDefinition definition;
  definition.point = Vec3(0.0, -0.05, 0.0);
  definition.normal = Vec3(0.1, 1.0, -0.15);
  absl::StatusOr<GroundPlane> plane = GroundPlane::Create(definition);
  if (!plane.ok()) std::abort();
  return *plane;
}

inline bool SameBits(const void* a, const void* b, size_t size) {
  return std::memcmp(a, b, size) == 0;
}

// A seeded crowd: legs swung a little, a root wandering over the plane, two
// hand goals (some out of reach), fresh dynamics states.
struct Crowd {
  Crowd(int count, std::uint64_t seed) {
    const Character& character = Humanoid();
    const Rig& rig = character.rig;
    std::mt19937_64 engine(seed);
    std::uniform_real_distribution<double> unit(-1.0, 1.0);
    const Chain* arms[2] = {rig.FindChain("left_arm"),
                            rig.FindChain("right_arm")};
    locals.resize(count);
    goals.resize(count);
    results.resize(count);
    feet.resize(count);
    states.resize(count);
    reports.resize(count);
    ticks.resize(count);
    for (int k = 0; k < count; ++k) {
      std::vector<Transform>& pose = locals[k];
      pose.assign(rig.rest_pose().begin(), rig.rest_pose().end());
      // Each leg swung a little about its hip (up to 0.25 rad).
      for (const Leg& leg : character.legs) {
        const Vec3 axis = glm::normalize(testing::DrawVec3(unit, engine) +
                                         Vec3(1e-3, 0.0, 0.0));
        pose[leg.hip].rotation = glm::normalize(
            pose[leg.hip].rotation * AngleAxis(0.25 * unit(engine), axis));
      }
      for (int a = 0; a < 2; ++a) {
        ChainGoal goal;
        goal.chain = arms[a];
        goal.target_world = testing::ReachableTarget(rig, *arms[a], engine) +
                            0.2 * testing::DrawVec3(unit, engine);
        goal.path = "goals[" + std::to_string(a) + "]";
        goals[k].push_back(goal);
      }
      results[k].resize(2);
      feet[k].resize(character.legs.size());
      states[k].resize(character.dynamic_chains.size());
      reports[k].resize(character.dynamic_chains.size());
      CharacterTick& tick = ticks[k];
      tick.root.translation = Vec3(unit(engine), 0.1 * unit(engine), 0.0);
      tick.locals = absl::MakeSpan(pose);
      tick.ground_feet = true;
      tick.feet = absl::MakeSpan(feet[k]);
      tick.goals = goals[k];
      tick.goal_results = absl::MakeSpan(results[k]);
      tick.dynamic_states = absl::MakeSpan(states[k]);
      tick.dynamic_reports = absl::MakeSpan(reports[k]);
      tick.delta_time = 1.0 / 60.0;
    }
  }

  std::vector<std::vector<Transform>> locals;
  std::vector<std::vector<ChainGoal>> goals;
  std::vector<std::vector<ChainSolveResult>> results;
  std::vector<std::vector<FootResult>> feet;
  std::vector<std::vector<DynamicState>> states;
  std::vector<std::vector<DynamicsReport>> reports;
  std::vector<CharacterTick> ticks;
};

// One batch run of `crowd` on `plane`.
inline void RunBatch(Crowd& crowd, const GroundPlane& plane) {
  TickScratch scratch;
  TickBatchJob batch;
  batch.character = &Humanoid();
  batch.ground.planes = absl::MakeConstSpan(&plane, 1);
  batch.characters = absl::MakeSpan(crowd.ticks);
  batch.scratch = &scratch;
  ASSERT_TRUE(batch.Run().ok());
}

}  // namespace ik::tick_batch_testing

#endif  // IK_TESTS_CORE_TICK_BATCH_CROWD_H_
