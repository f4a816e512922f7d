#include "ik/dynamics/dynamic_rotations.h"

#include <cmath>
#include <random>
#include <vector>

#include "draws.h"
#include "dynamics_fixtures.h"
#include "gtest/gtest.h"

namespace ik {
namespace {

using testing::StraightChain;
using testing::TwistAngleAbout;

Quat RandomRotation(std::mt19937_64& engine) {
  std::normal_distribution<double> normal(0.0, 1.0);
  return glm::normalize(testing::DrawQuat(normal, engine));
}

Vec3 RandomDirection(std::mt19937_64& engine) {
  std::normal_distribution<double> normal(0.0, 1.0);
  return glm::normalize(testing::DrawVec3(normal, engine));
}

double AngleBetween(const Vec3& a, const Vec3& b) {
  return std::atan2(glm::length(glm::cross(a, b)), glm::dot(a, b));
}

// An animated pose with random rotations whose bones have the chain's
// lengths, and simulated positions with the same lengths in random
// directions.
struct Poses {
  std::vector<Transform> animated;
  std::vector<Vec3> simulated;
};

Poses RandomPoses(const DynamicChain& chain, uint64_t seed) {
  std::mt19937_64 engine(seed);
  Poses poses;
  poses.animated.resize(chain.joints.size());
  poses.simulated.resize(chain.joints.size());
  poses.animated[0].translation = Vec3(0.2, 1.4, -0.1);
  poses.animated[0].rotation = RandomRotation(engine);
  poses.simulated[0] = poses.animated[0].translation;
  for (size_t i = 1; i < chain.joints.size(); ++i) {
    const DynamicJoint& joint = chain.joints[i];
    const Transform& parent = poses.animated[joint.parent];
    poses.animated[i].translation =
        parent.translation +
        parent.rotation * (joint.length * RandomDirection(engine));
    poses.animated[i].rotation = RandomRotation(engine);
    poses.simulated[i] =
        poses.simulated[joint.parent] + joint.length * RandomDirection(engine);
  }
  return poses;
}

struct Outputs {
  std::vector<Quat> deltas;
  std::vector<Quat> rotations_world;
  std::vector<Quat> corrections_local;
};

Outputs Update(const DynamicChain& chain, const Poses& poses, int substeps,
               std::vector<Quat> deltas = {}) {
  Outputs out;
  out.deltas = deltas.empty()
                   ? std::vector<Quat>(chain.joints.size(), IdentityQuat())
                   : deltas;
  out.rotations_world.resize(chain.joints.size());
  out.corrections_local.resize(chain.joints.size());
  UpdateDynamicRotations(chain, poses.animated, poses.simulated, substeps,
                         absl::MakeSpan(out.deltas),
                         absl::MakeSpan(out.rotations_world),
                         absl::MakeSpan(out.corrections_local));
  return out;
}

TEST(UpdateDynamicRotationsTest, CorrectedPoseReproducesSimulatedPositions) {
  const DynamicChain chain = StraightChain(7, 0.13);
  for (uint64_t seed = 1; seed <= 50; ++seed) {
    const Poses poses = RandomPoses(chain, seed);
    const Outputs out = Update(chain, poses, /*substeps=*/1);
    // Forward kinematics of the animated locals times the corrections,
    // independent of the function's own bookkeeping.
    std::vector<Quat> world(chain.joints.size());
    std::vector<Vec3> position(chain.joints.size());
    world[0] = poses.animated[0].rotation * out.corrections_local[0];
    position[0] = poses.animated[0].translation;
    for (size_t i = 1; i < chain.joints.size(); ++i) {
      const int p = chain.joints[i].parent;
      const Transform& parent = poses.animated[p];
      const Quat local =
          glm::conjugate(parent.rotation) * poses.animated[i].rotation;
      const Vec3 offset = glm::conjugate(parent.rotation) *
                          (poses.animated[i].translation - parent.translation);
      world[i] = world[p] * (local * out.corrections_local[i]);
      position[i] = position[p] + world[p] * offset;
    }
    for (size_t i = 0; i < chain.joints.size(); ++i) {
      EXPECT_LT(glm::length(position[i] - poses.simulated[i]), 1e-12)
          << "seed " << seed << " joint " << i;
      EXPECT_NEAR(std::abs(glm::dot(world[i], out.rotations_world[i])), 1.0,
                  1e-12)
          << "seed " << seed << " joint " << i;
    }
  }
}

TEST(UpdateDynamicRotationsTest, LeafKeepsItsLocalRotation) {
  const DynamicChain chain = StraightChain(4, 0.1);
  const Poses poses = RandomPoses(chain, 3);
  const Outputs out = Update(chain, poses, 1);
  const Quat leaf = out.corrections_local.back();
  EXPECT_NEAR(std::abs(leaf.w), 1.0, 1e-12);
  EXPECT_EQ(out.deltas[3], out.deltas[2]);
}

TEST(UpdateDynamicRotationsTest, BranchTurnsTowardsTheMeanChildDirection) {
  // 0 -> 1 -> {2, 3}.
  DynamicChain chain = StraightChain(3, 0.1);
  DynamicJoint second_child;
  second_child.parent = 1;
  second_child.length = 0.2;
  chain.joints.push_back(second_child);
  ASSERT_TRUE(chain.Validate().ok());
  const Poses poses = RandomPoses(chain, 11);
  const Outputs out = Update(chain, poses, 1);
  auto mean_direction = [&](auto position_of) {
    const Vec3 base = position_of(1);
    return glm::normalize(glm::normalize(position_of(2) - base) +
                          glm::normalize(position_of(3) - base));
  };
  const Vec3 animated =
      mean_direction([&](int i) { return poses.animated[i].translation; });
  const Vec3 simulated =
      mean_direction([&](int i) { return poses.simulated[i]; });
  EXPECT_LT(AngleBetween(out.deltas[1] * animated, simulated), 1e-12);
  EXPECT_LT(std::abs(TwistAngleAbout(out.deltas[1], animated)), 1e-12);
}

TEST(UpdateDynamicRotationsTest, BlendSmoothsAndCompoundsOverSubsteps) {
  DynamicChain chain = StraightChain(2, 0.1);
  chain.rotation_blend = 0.25;
  const Poses poses = RandomPoses(chain, 5);
  const Vec3 animated =
      poses.animated[1].translation - poses.animated[0].translation;
  const Vec3 simulated = poses.simulated[1] - poses.simulated[0];
  const double full = AngleBetween(animated, simulated);
  ASSERT_GT(full, 0.3);

  const Outputs one = Update(chain, poses, 1);
  const double left_after_one =
      AngleBetween(one.deltas[0] * animated, simulated);
  EXPECT_GT(left_after_one, 0.5 * full);  // lags: smoothing
  EXPECT_LT(left_after_one, full);

  // Two substeps in one update behave like two updates of one substep
  // (exactly so for slerp; nlerp agrees to a small fraction of the angle).
  const Outputs twice = Update(chain, poses, 1, one.deltas);
  const Outputs both = Update(chain, poses, 2);
  const double left_twice = AngleBetween(twice.deltas[0] * animated, simulated);
  const double left_both = AngleBetween(both.deltas[0] * animated, simulated);
  EXPECT_LT(left_twice, left_after_one);
  EXPECT_NEAR(left_twice, left_both, 0.05 * full);

  // Repeated updates converge on the simulated direction.
  Outputs out = one;
  for (int i = 0; i < 200; ++i) out = Update(chain, poses, 1, out.deltas);
  EXPECT_LT(AngleBetween(out.deltas[0] * animated, simulated), 1e-9);
}

TEST(UpdateDynamicRotationsTest, ZeroSubstepsOrZeroBlendLeaveTheDeltas) {
  DynamicChain chain = StraightChain(3, 0.1);
  chain.remove_twist = false;
  const Poses poses = RandomPoses(chain, 8);
  std::mt19937_64 engine(8);
  const std::vector<Quat> deltas = {
      RandomRotation(engine), RandomRotation(engine), RandomRotation(engine)};
  const Outputs none = Update(chain, poses, 0, deltas);
  EXPECT_EQ(none.deltas[0], deltas[0]);
  EXPECT_EQ(none.deltas[1], deltas[1]);
  chain.rotation_blend = 0.0;
  const Outputs frozen = Update(chain, poses, 4, deltas);
  EXPECT_EQ(frozen.deltas[0], deltas[0]);
  EXPECT_EQ(frozen.deltas[1], deltas[1]);
}

TEST(UpdateDynamicRotationsTest, RemovesTwistButKeepsTheBoneDirection) {
  DynamicChain chain = StraightChain(2, 0.1);
  const Poses poses = RandomPoses(chain, 13);
  const Vec3 animated = glm::normalize(poses.animated[1].translation -
                                       poses.animated[0].translation);
  // Start from a delta with a large twist about the bone.
  const std::vector<Quat> twisted = {AngleAxis(1.2, animated), IdentityQuat()};
  chain.remove_twist = false;
  const Outputs kept = Update(chain, poses, 1, twisted);
  chain.remove_twist = true;
  const Outputs removed = Update(chain, poses, 1, twisted);
  EXPECT_NEAR(TwistAngleAbout(kept.deltas[0], animated), 1.2, 1e-9);
  EXPECT_LT(std::abs(TwistAngleAbout(removed.deltas[0], animated)), 1e-12);
  EXPECT_LT(
      glm::length(kept.deltas[0] * animated - removed.deltas[0] * animated),
      1e-12);
}

TEST(UpdateDynamicRotationsTest, PerJointOverridesWin) {
  DynamicChain chain = StraightChain(3, 0.1);
  chain.rotation_blend = 1.0;
  chain.joints[1].overrides.rotation_blend = 0.0;
  const Poses poses = RandomPoses(chain, 21);
  const Outputs out = Update(chain, poses, 1);
  EXPECT_EQ(out.deltas[1], IdentityQuat());
  EXPECT_NE(out.deltas[0], IdentityQuat());
}

}  // namespace
}  // namespace ik
