// The tick's dynamics groups (dynamics_internal::RunRigDynamicsSteps: the
// i-th chains of up to four characters, their substeps side by side in
// SIMD lanes where the chain fits the group's room, else each on its own)
// against each RigDynamicsStep's own Run(): a creature with a long tail
// (beyond the group's room) and a short whisker, in seeded groups of every
// size, must get the same states, rotations and reports, bit for bit.
#include <cstring>
#include <random>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_format.h"
#include "dynamics/dynamics_internal.h"
#include "gtest/gtest.h"
#include "ik/base/math.h"
#include "ik/character/character.h"
#include "ik/dynamics/colliders.h"
#include "ik/dynamics/rig_dynamics.h"
#include "ik/rig/forward_kinematics.h"

namespace ik {
namespace {

template <typename T>
bool SameBits(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() &&
         (a.empty() ||
          std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
}

// A creature with a long tail (40 joints, 20 colliders: beyond what a
// group steps side by side) and a short whisker (6 joints, 3 colliders).
absl::StatusOr<Character> Creature() {
  CharacterDefinition definition;
  definition.rig.name = "creature";
  JointDefinition hips;
  hips.name = "hips";
  hips.rest.translation = Vec3(0.0, 1.0, 0.0);
  definition.rig.joints.push_back(hips);
  const auto add_strand = [&](const char* name, int joints, const Vec3& bone) {
    for (int i = 0; i < joints; ++i) {
      JointDefinition joint;
      joint.name = absl::StrFormat("%s_%02d", name, i);
      joint.parent =
          i == 0 ? 0 : static_cast<int>(definition.rig.joints.size()) - 1;
      joint.rest.translation = bone;
      definition.rig.joints.push_back(joint);
    }
  };
  add_strand("tail", 40, Vec3(0.0, -0.02, -0.04));
  add_strand("whisker", 6, Vec3(0.03, 0.0, 0.05));
  DynamicChainDefinition tail;
  tail.name = "tail";
  tail.root = "tail_00";
  tail.radius = 0.02;
  DynamicChainDefinition whisker;
  whisker.name = "whisker";
  whisker.root = "whisker_00";
  whisker.radius = 0.01;
  whisker.settings.wind.strength = 4.0;
  whisker.settings.wind.turbulence = 0.5;
  for (int c = 0; c < 20; ++c) {
    ColliderDefinition collider;
    collider.name = absl::StrFormat("ball_%02d", c);
    collider.joint = "hips";
    collider.sphere = true;
    collider.shape = SphereCollider(
        Vec3(0.05 * (c % 3) - 0.05, -0.1 - 0.04 * c, -0.2 - 0.07 * c), 0.06);
    definition.colliders.push_back(collider);
    tail.colliders.push_back(collider.name);
    if (c < 3) whisker.colliders.push_back(collider.name);
  }
  definition.dynamic_chains = {tail, whisker};
  return Character::Create(definition);
}

// One character's step of one chain: its pose, state and outputs.
struct CreatureStep {
  std::vector<Transform> locals;
  std::vector<Transform> world;
  DynamicState state;
  std::vector<Quat> rotations;
  DynamicsReport report;

  RigDynamicsStep Step(const Character& character,
                       const DynamicChainBinding& chain) {
    RigDynamicsStep step;
    step.rig = &character.rig;
    step.colliders = character.colliders;
    step.chain = &chain;
    step.models_world = world;
    step.locals = locals;
    step.delta_time = 1.0 / 60.0;
    step.state = &state;
    step.rotations_local = absl::MakeSpan(rotations);
    step.report = &report;
    return step;
  }
};

TEST(RigDynamicsGroupTest, StepsOfEveryChainSizeGiveEachStepsOwnBits) {
  const absl::StatusOr<Character> created = Creature();
  ASSERT_TRUE(created.ok()) << created.status();
  const Character& creature = *created;
  ASSERT_EQ(creature.dynamic_chains.size(), 2u);
  std::mt19937_64 engine(0x5eed0005);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  for (int round = 0; round < 40; ++round) {
    const int count = std::uniform_int_distribution<int>(1, 9)(engine);
    std::vector<CreatureStep> alone(static_cast<size_t>(count));
    std::vector<const DynamicChainBinding*> chains;
    for (CreatureStep& data : alone) {
      const DynamicChainBinding& chain =
          creature.dynamic_chains[unit(engine) < 0.0 ? 0 : 1];
      chains.push_back(&chain);
      data.locals.assign(creature.rig.rest_pose().begin(),
                         creature.rig.rest_pose().end());
      for (Transform& local : data.locals) {
        const Vec3 axis = glm::normalize(Vec3(unit(engine), 1.0, unit(engine)));
        local.rotation = AngleAxis(0.2 * unit(engine), axis);
      }
      data.world.resize(data.locals.size());
      LocalToModelJob fk;
      fk.parents = creature.rig.parents();
      fk.locals = data.locals;
      fk.root.translation = Vec3(unit(engine), 0.0, unit(engine));
      fk.models = absl::MakeSpan(data.world);
      ASSERT_TRUE(fk.Run().ok());
      data.rotations.assign(chain.joints.size(), Quat(0.0, 0.0, 0.0, 0.0));
      // A step from rest first, so that this one continues a motion.
      ASSERT_TRUE(data.Step(creature, chain).Run().ok());
      for (Transform& model : data.world) {
        model.translation += 0.05 * Vec3(unit(engine), unit(engine), 0.0);
      }
    }
    std::vector<CreatureStep> together = alone;
    std::vector<RigDynamicsStep> steps;
    for (size_t k = 0; k < together.size(); ++k) {
      steps.push_back(together[k].Step(creature, *chains[k]));
    }
    std::vector<const RigDynamicsStep*> pointers;
    for (const RigDynamicsStep& step : steps) pointers.push_back(&step);
    std::vector<absl::Status> statuses(steps.size());
    dynamics_internal::RunRigDynamicsSteps(pointers, statuses.data());
    for (size_t k = 0; k < alone.size(); ++k) {
      SCOPED_TRACE(::testing::Message() << "round " << round << " step " << k
                                        << " chain " << chains[k]->name);
      ASSERT_TRUE(statuses[k].ok()) << statuses[k];
      ASSERT_TRUE(alone[k].Step(creature, *chains[k]).Run().ok());
      EXPECT_TRUE(
          SameBits(alone[k].state.positions, together[k].state.positions));
      EXPECT_TRUE(SameBits(alone[k].state.previous_positions,
                           together[k].state.previous_positions));
      EXPECT_TRUE(SameBits(alone[k].rotations, together[k].rotations));
      EXPECT_EQ(alone[k].report.substeps, together[k].report.substeps);
    }
  }
}

}  // namespace
}  // namespace ik
