// Shared by the swivel solve tests (solve_chain_swivel_test.cc,
// swivel_property_test.cc): the example humanoid with and without joint
// limits, the chains and solvers they try, and a small driver that solves
// goals on one pose and reads the chain back in its swivel space.
#ifndef IK_TESTS_CORE_SWIVEL_FIXTURES_H_
#define IK_TESTS_CORE_SWIVEL_FIXTURES_H_

#include <algorithm>
#include <cmath>
#include <optional>
#include <random>
#include <vector>

#include "absl/status/statusor.h"
#include "gtest/gtest.h"
#include "humanoid_rig.h"
#include "ik/base/math.h"
#include "ik/rig/rig.h"
#include "ik/rig/solve_chain.h"
#include "ik/solvers/swivel.h"
#include "independent_checks.h"
#include "random_poses.h"
#include "solve_chain_runner.h"

namespace ik::testing {

// A chain to solve and the solver to solve it with.
struct Case {
  const char* chain;
  SolverKind solver;
};
inline constexpr Case kSwivelCases[] = {
    {"left_arm", SolverKind::kTwoBone},
    {"right_leg", SolverKind::kTwoBone},
    {"left_arm_clavicle", SolverKind::kFabrik},
    {"right_arm_clavicle", SolverKind::kCcd},
};

// The humanoid with every joint free: the swivel's own behaviour, with no
// limit pulling the tip off the target.
inline absl::StatusOr<Rig> FreeHumanoid() {
  RigDefinition definition = HumanoidRigDefinition();
  for (JointDefinition& joint : definition.joints) joint.limit = JointLimit();
  return Rig::Create(std::move(definition));
}

inline double Reach(const Rig& rig, const Chain& chain) {
  const std::vector<Transform> models = ModelTransforms(rig, rig.rest_pose());
  double reach = 0.0;
  for (size_t k = 1; k < chain.joints.size(); ++k) {
    reach += glm::length(models[chain.joints[k]].translation -
                         models[chain.joints[k - 1]].translation);
  }
  return reach;
}

// A unit direction drawn uniformly on the sphere.
inline Vec3 RandomDirection(std::mt19937_64& engine) {
  std::normal_distribution<double> normal(0.0, 1.0);
  return glm::normalize(DrawVec3(normal, engine));
}

// Solves chains of one rig on one pose and reads them in their map space.
class Solver {
 public:
  Solver(const Rig& rig, const Transform& root)
      : rig_(rig), root_(root), solver_(rig) {
    pose_.assign(rig.rest_pose().begin(), rig.rest_pose().end());
  }

  // The world point `distance` from the chain's start along the map-space
  // direction `direction` (uniform scale assumed).
  Vec3 Target(const Chain& chain, const Vec3& direction,
              double distance) const {
    const std::vector<Transform> models = ModelTransforms(rig_, pose_);
    const Vec3 start = models[chain.joints[0]].translation;
    if (chain.swivel_space == SwivelSpace::kWorld) {
      return TransformPoint(root_, start) + distance * direction;
    }
    const Transform& parent = models[rig_.parents()[chain.joints[0]]];
    return TransformPoint(
        root_, TransformPoint(parent, InverseTransformPoint(parent, start) +
                                          distance * direction));
  }

  absl::StatusOr<ChainSolveResult> Solve(const Chain& chain, SolverKind solver,
                                         const Vec3& target,
                                         std::optional<double> swivel) {
    ChainGoal goal;
    goal.chain = &chain;
    goal.solver = solver;
    goal.target_world = target;
    goal.swivel = swivel;
    return solver_.Solve(goal, root_, absl::MakeSpan(pose_));
  }

  // The chain's joint positions in its swivel space.
  std::vector<Vec3> MapPositions(const Chain& chain) const {
    const std::vector<Transform> models = ModelTransforms(rig_, pose_);
    const Transform& parent = models[rig_.parents()[chain.joints[0]]];
    std::vector<Vec3> positions;
    for (const int joint : chain.joints) {
      const Vec3& position = models[joint].translation;
      positions.push_back(chain.swivel_space == SwivelSpace::kWorld
                              ? TransformPoint(root_, position)
                              : InverseTransformPoint(parent, position));
    }
    return positions;
  }

  std::vector<Quat> Rotations(const Chain& chain) const {
    std::vector<Quat> rotations;
    for (const int joint : chain.joints) {
      rotations.push_back(pose_[joint].rotation);
    }
    return rotations;
  }

  std::vector<Transform>& pose() { return pose_; }

 private:
  const Rig& rig_;
  Transform root_;
  testing::ChainSolveRunner solver_;
  std::vector<Transform> pose_;
};

class SwivelSolveTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<Rig> rig = HumanoidRig();
    ASSERT_TRUE(rig.ok()) << rig.status();
    rig_.emplace(*std::move(rig));
    absl::StatusOr<Rig> free_rig = FreeHumanoid();
    ASSERT_TRUE(free_rig.ok()) << free_rig.status();
    free_rig_.emplace(*std::move(free_rig));
  }

  // The chain as built by MakeChain with `space`.
  Chain ChainIn(const Rig& rig, const char* name, SwivelSpace space) const {
    const Chain& chain = *rig.FindChain(name);
    ChainDefinition definition;
    definition.name = chain.name;
    definition.root = rig.joint(chain.joints.front()).name;
    definition.tip = rig.joint(chain.joints.back()).name;
    definition.max_iterations = chain.max_iterations;
    definition.tolerance = chain.tolerance;
    definition.swivel_space = space;
    absl::StatusOr<Chain> made = rig.MakeChain(definition);
    EXPECT_TRUE(made.ok()) << made.status();
    return *made;
  }

  std::optional<Rig> rig_;
  std::optional<Rig> free_rig_;
};

// Solves `goal` on `pose`, expecting `code` and a message starting with
// `prefix`, and the pose untouched.

}  // namespace ik::testing

#endif  // IK_TESTS_CORE_SWIVEL_FIXTURES_H_
