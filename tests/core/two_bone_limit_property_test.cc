// Property test of the two-bone solver between the limits of the humanoid's
// arms and legs (a ball-and-socket root, a hinge middle joint), checked with
// tests/core/independent_checks.h: targets too near are clamped at the
// hinge's end and reported; targets made by poses within both limits are
// all reached, on the circle of exact solutions where the root's limit
// allows it.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <glm/gtc/matrix_transform.hpp>
#include <random>
#include <string>
#include <vector>

#include "draws.h"
#include "gtest/gtest.h"
#include "humanoid_rig.h"
#include "ik/rig/solve_chain.h"
#include "ik/solvers/fabrik.h"
#include "independent_checks.h"
#include "random_poses.h"
#include "solve_chain_runner.h"
#include "tail_rig.h"

namespace ik {
namespace {

using ::ik::testing::AngleAbout;
using ::ik::testing::kCases;
using ::ik::testing::kLimitSlack;
using ::ik::testing::kSeed;
using ::ik::testing::LimitViolation;
using ::ik::testing::WorldPositions;

class TwoBoneLimitPropertyTest : public ::testing::TestWithParam<const char*> {
};

TEST_P(TwoBoneLimitPropertyTest, ReachesInLimitTargetsAndClampsTheHinge) {
  absl::StatusOr<Rig> rig = testing::HumanoidRig();
  ASSERT_TRUE(rig.ok());
  const Chain& chain = *rig->FindChain(GetParam());
  const int mid = chain.joints[1];
  const HingeLimit& hinge = rig->joint(mid).limit.hinge;
  const std::vector<Transform> rest(rig->rest_pose().begin(),
                                    rig->rest_pose().end());
  const std::vector<Vec3> rest_world = WorldPositions(*rig, rest, Transform());
  const double upper =
      glm::length(rest_world[chain.joints[1]] - rest_world[chain.joints[0]]);
  const double lower =
      glm::length(rest_world[chain.joints[2]] - rest_world[chain.joints[1]]);
  // |root - tip| with the hinge at its most folded (max) angle, the rest
  // bend included: the bones then meet at pi - (max + rest bend).
  const double rest_bend =
      kPi - std::acos(glm::dot(glm::normalize(rest_world[chain.joints[0]] -
                                              rest_world[chain.joints[1]]),
                               glm::normalize(rest_world[chain.joints[2]] -
                                              rest_world[chain.joints[1]])));
  const double fold = hinge.range.max + rest_bend;
  const double nearest = std::sqrt(upper * upper + lower * lower -
                                   2.0 * upper * lower * std::cos(kPi - fold));

  std::mt19937_64 engine(kSeed + 2);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  testing::ChainSolveRunner solver(*rig);
  int clamped = 0;
  int reached = 0;
  double max_violation = 0.0;
  double max_in_limit_residual = 0.0;
  for (int i = 0; i < kCases; ++i) {
    // Half too near the root (inside the folded limb's reach), half from
    // poses within the limits.
    const bool too_near = i % 2 == 0;
    Vec3 target;
    if (too_near) {
      Vec3 direction = testing::DrawVec3(unit, engine);
      direction /= std::max(glm::length(direction), 1e-9);
      target = rest_world[chain.joints[0]] +
               direction * (0.9 * nearest * (unit(engine) + 1.0) / 2.0);
    } else {
      target = testing::ReachableTarget(*rig, chain, engine);
    }
    ChainGoal goal;
    goal.chain = &chain;
    goal.target_world = target;
    std::vector<Transform> locals = rest;
    absl::StatusOr<ChainSolveResult> result =
        solver.Solve(goal, Transform(), absl::MakeSpan(locals));
    ASSERT_TRUE(result.ok()) << result.status();
    ASSERT_EQ(result->solver, SolverKind::kTwoBone);
    for (const int joint : chain.joints) {
      const double violation =
          LimitViolation(*rig, joint, locals[joint].rotation);
      max_violation = std::max(max_violation, violation);
      ASSERT_LE(violation, kLimitSlack) << "case " << i;
    }
    const bool mid_limited =
        std::find(result->limited_joints.begin(), result->limited_joints.end(),
                  mid) != result->limited_joints.end();
    if (too_near) {
      ASSERT_FALSE(result->report.reached) << "case " << i;
      ASSERT_EQ(result->stop_reason, StopReason::kOutOfReach);
      ASSERT_TRUE(mid_limited) << "case " << i;
      const double angle = AngleAbout(
          glm::inverse(rig->joint(mid).rest.rotation) * locals[mid].rotation,
          hinge.axis);
      ASSERT_NEAR(angle, hinge.range.max, 1e-9) << "case " << i;
      ++clamped;
    } else {
      // An in-limit pose made the target: a point of the circle of exact
      // solutions is within both limits, and the solver finds one.
      max_in_limit_residual =
          std::max(max_in_limit_residual, result->report.residual);
      ASSERT_LE(result->report.residual, 1e-6) << "case " << i;
      reached += result->report.reached ? 1 : 0;
    }
  }
  EXPECT_EQ(reached, kCases / 2);
  std::printf(
      "[ property ] two-bone %s: %d targets too near clamped at the hinge's "
      "end and reported; %d of %d targets from poses within the limits "
      "reached (largest residual %.3g m); largest limit violation %.3g rad\n",
      GetParam(), clamped, reached, kCases / 2, max_in_limit_residual,
      max_violation);
}

// Exact from any animated start: a limb whose incoming pose is within its
// limits, outside them (a hyperextended or over-folded middle joint, a root
// beyond its cone or twist) or entirely random reaches every target a pose
// within the limits makes, within 1e-6 m, and ends within its limits.
TEST_P(TwoBoneLimitPropertyTest, ReachesInLimitTargetsFromAnyAnimatedStart) {
  absl::StatusOr<Rig> rig = testing::HumanoidRig();
  ASSERT_TRUE(rig.ok());
  const Chain& chain = *rig->FindChain(GetParam());
  std::mt19937_64 engine(kSeed + 3);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  testing::ChainSolveRunner solver(*rig);
  const char* const kStarts[] = {"within", "beyond", "random"};
  int reached[3] = {0, 0, 0};
  double largest_residual = 0.0;
  for (int i = 0; i < 3 * kCases; ++i) {
    const int start = i % 3;
    const Vec3 target = testing::ReachableTarget(*rig, chain, engine);
    std::vector<Transform> locals(rig->rest_pose().begin(),
                                  rig->rest_pose().end());
    for (int k = 0; k < 2; ++k) {
      const JointDefinition& joint = rig->joint(chain.joints[k]);
      Quat& rotation = locals[chain.joints[k]].rotation;
      if (start == 0) {
        rotation = testing::RandomRotationWithinLimit(joint, engine);
      } else if (start == 1) {
        rotation = testing::RandomRotationBeyondLimit(joint, engine);
      } else {
        rotation = glm::normalize(
            AngleAxis(kPi * (2.0 * unit(engine) - 1.0),
                      glm::normalize(testing::DrawVec3(unit, engine) - 0.5 +
                                     Vec3(1e-9, 0.0, 0.0))));
      }
    }
    ChainGoal goal;
    goal.chain = &chain;
    goal.target_world = target;
    absl::StatusOr<ChainSolveResult> result =
        solver.Solve(goal, Transform(), absl::MakeSpan(locals));
    ASSERT_TRUE(result.ok()) << result.status();
    for (const int joint : chain.joints) {
      ASSERT_LE(LimitViolation(*rig, joint, locals[joint].rotation),
                kLimitSlack)
          << kStarts[start] << " case " << i;
    }
    largest_residual = std::max(largest_residual, result->report.residual);
    EXPECT_LE(result->report.residual, 1e-6) << kStarts[start] << " case " << i;
    reached[start] += result->report.residual <= 1e-6 ? 1 : 0;
  }
  std::printf(
      "[ property ] two-bone %s from animated starts: reached %d/%d within "
      "the limits, %d/%d beyond them, %d/%d random (largest residual %.3g "
      "m)\n",
      GetParam(), reached[0], kCases, reached[1], kCases, reached[2], kCases,
      largest_residual);
}

// Targets made by poses held on their limits' boundaries (a clamped or
// held animation): the root on the edge of its cone or at an end of its
// twist, the middle joint at an end of its hinge. Each is reached within
// 2e-5 m from the rest pose, most within 1e-6 m: where the solver's circle
// of exact solutions only touches the root's cone, rounding in the
// middle joint's bend (near straight, ill-conditioned) moves the point of
// contact by up to about 2e-5 rad.
TEST_P(TwoBoneLimitPropertyTest, ReachesTargetsOfPosesOnTheirLimits) {
  absl::StatusOr<Rig> rig = testing::HumanoidRig();
  ASSERT_TRUE(rig.ok());
  const Chain& chain = *rig->FindChain(GetParam());
  std::mt19937_64 engine(kSeed + 4);
  testing::ChainSolveRunner solver(*rig);
  int reached = 0;
  double largest_residual = 0.0;
  for (int i = 0; i < kCases; ++i) {
    std::vector<Transform> made(rig->rest_pose().begin(),
                                rig->rest_pose().end());
    for (int k = 0; k < 2; ++k) {
      made[chain.joints[k]].rotation = testing::RandomRotationOnLimitBoundary(
          rig->joint(chain.joints[k]), engine);
    }
    ChainGoal goal;
    goal.chain = &chain;
    goal.target_world =
        testing::ModelTransforms(*rig, made)[chain.joints[2]].translation;
    std::vector<Transform> locals(rig->rest_pose().begin(),
                                  rig->rest_pose().end());
    absl::StatusOr<ChainSolveResult> result =
        solver.Solve(goal, Transform(), absl::MakeSpan(locals));
    ASSERT_TRUE(result.ok()) << result.status();
    largest_residual = std::max(largest_residual, result->report.residual);
    EXPECT_LE(result->report.residual, 2e-5) << "case " << i;
    reached += result->report.residual <= 1e-6 ? 1 : 0;
  }
  std::printf(
      "[ property ] two-bone %s, targets of poses on their limits: %d/%d "
      "within 1e-6 m, all within %.3g m\n",
      GetParam(), reached, kCases, largest_residual);
}

INSTANTIATE_TEST_SUITE_P(Limbs, TwoBoneLimitPropertyTest,
                         ::testing::Values("left_arm", "left_leg", "right_arm",
                                           "right_leg"),
                         [](const ::testing::TestParamInfo<const char*>& info) {
                           return std::string(info.param);
                         });

}  // namespace
}  // namespace ik
