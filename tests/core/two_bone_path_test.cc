// Two-bone limbs along smooth target paths: seeded paths of targets made
// by in-limit poses moving smoothly (so every target is reachable within
// the limits, steps of at most 1.5 cm), with and without a pole, with the
// incoming pose the previous answer ("warm"), a fixed in-limit pose, or a
// separate smooth in-limit animation. Every answer is exact; a step counts
// as a snap when a joint turns by more than max(3 x the target's angular
// step about the limb's root, 5 degrees).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <glm/gtc/quaternion.hpp>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "humanoid_rig.h"
#include "ik/base/joint_limits.h"
#include "ik/rig/solve_chain.h"
#include "independent_checks.h"
#include "random_poses.h"
#include "solve_chain_runner.h"

namespace ik {
namespace {

using ::ik::testing::RotationAngle;

// The angle, radians, between two directions (atan2 of the cross and dot
// products: accurate for small angles).
double AngleBetween(const Vec3& a, const Vec3& b) {
  return std::atan2(glm::length(glm::cross(a, b)), glm::dot(a, b));
}

enum class Incoming { kWarm, kFixed, kAnimated };
constexpr const char* kIncomingNames[] = {"warm", "fixed", "animated"};

// The chain's root and middle joint turned within their limits.
std::vector<Quat> InLimitRotations(const Rig& rig, const Chain& chain,
                                   std::mt19937_64& engine) {
  return {
      testing::RandomRotationWithinLimit(rig.joint(chain.joints[0]), engine),
      testing::RandomRotationWithinLimit(rig.joint(chain.joints[1]), engine)};
}

// Two in-limit rotations of the chain's root and middle joint whose slerps
// stay within the limits all the way (checked at 65 points): a path that
// needs no clamp, so it is smooth.
struct InLimitPair {
  std::vector<Quat> from, to;
};
InLimitPair SmoothInLimitPair(const Rig& rig, const Chain& chain,
                              std::mt19937_64& engine) {
  for (;;) {
    InLimitPair pair{InLimitRotations(rig, chain, engine),
                     InLimitRotations(rig, chain, engine)};
    bool within = true;
    for (int i = 0; i <= 64 && within; ++i) {
      for (int k = 0; k < 2 && within; ++k) {
        const JointDefinition& joint = rig.joint(chain.joints[k]);
        const Quat mixed =
            glm::normalize(glm::slerp(pair.from[k], pair.to[k], i / 64.0));
        within =
            !ApplyJointLimit(joint.limit, joint.rest.rotation, mixed).clamped;
      }
    }
    if (within) return pair;
  }
}

// `rest` with the chain's root and middle joint at `from` and `to` mixed by
// `t` (slerp), held to their limits: a pose within the limits.
std::vector<Transform> Between(const Rig& rig, const Chain& chain,
                               const std::vector<Quat>& from,
                               const std::vector<Quat>& to, double t) {
  std::vector<Transform> pose(rig.rest_pose().begin(), rig.rest_pose().end());
  for (int k = 0; k < 2; ++k) {
    const JointDefinition& joint = rig.joint(chain.joints[k]);
    const Quat mixed = glm::normalize(glm::slerp(from[k], to[k], t));
    pose[chain.joints[k]].rotation =
        ApplyJointLimit(joint.limit, joint.rest.rotation, mixed).rotation;
  }
  return pose;
}

struct PathFigures {
  int steps = 0;
  int flagged = 0;             // the answer says branch_switch
  int singular = 0;            // either answer near a singular direction
  int snaps = 0;               // other steps over the bound
  double largest_ratio = 0.0;  // joint turn / max(3 x target step, 5 deg)
  double largest_residual = 0.0;
};

PathFigures FollowPath(const Rig& rig, const Chain& chain, Incoming incoming,
                       bool with_pole, std::mt19937_64& engine) {
  PathFigures figures;
  const auto [from, to] = SmoothInLimitPair(rig, chain, engine);
  const std::vector<Quat> fixed = InLimitRotations(rig, chain, engine);
  const auto [animated_from, animated_to] =
      SmoothInLimitPair(rig, chain, engine);
  const int tip = chain.joints[2];
  const auto target_at = [&](double t) {
    return testing::ModelTransforms(rig, Between(rig, chain, from, to, t))[tip]
        .translation;
  };
  // Steps of at most 1.5 cm (measured along a fine sampling of the path).
  double length = 0.0;
  for (int i = 0; i < 400; ++i) {
    length += glm::length(target_at((i + 1) / 400.0) - target_at(i / 400.0));
  }
  const int steps = std::max(100, static_cast<int>(std::ceil(length / 0.015)));
  const Vec3 root =
      testing::ModelTransforms(rig, rig.rest_pose())[chain.joints[0]]
          .translation;
  ChainGoal goal;
  goal.chain = &chain;
  if (with_pole) goal.pole_world = root + Vec3(0.0, -0.5, -0.5);
  testing::ChainSolveRunner solver(rig);
  std::vector<Transform> answer = Between(rig, chain, from, to, 0.0);
  std::vector<Quat> before;
  Vec3 target_before(0.0);
  bool singular_before = false;
  bool flagged_before = false;
  Quat incoming_before = IdentityQuat();
  for (int i = 0; i <= steps; ++i) {
    const double t = static_cast<double>(i) / steps;
    goal.target_world = target_at(t);
    std::vector<Transform> locals =
        incoming == Incoming::kWarm ? answer
        : incoming == Incoming::kFixed
            ? Between(rig, chain, fixed, fixed, 0.0)
            : Between(rig, chain, animated_from, animated_to, t);
    const Quat incoming_now = locals[chain.joints[0]].rotation;
    absl::StatusOr<ChainSolveResult> result =
        solver.Solve(goal, Transform(), absl::MakeSpan(locals));
    EXPECT_TRUE(result.ok()) << result.status();
    if (!result.ok()) return figures;
    figures.largest_residual =
        std::max(figures.largest_residual, result->report.residual);
    const std::vector<Quat> now = {locals[chain.joints[0]].rotation,
                                   locals[chain.joints[1]].rotation};
    if (i > 0) {
      const double target_step =
          AngleBetween(target_before - root, goal.target_world - root);
      const double bound = std::max(3.0 * target_step, 5.0 * kPi / 180.0);
      double turn = 0.0;
      for (int k = 0; k < 2; ++k) {
        turn = std::max(turn, RotationAngle(before[k], now[k]));
      }
      ++figures.steps;
      // A jump sits next to a flagged answer on either side of the step.
      const bool flagged = flagged_before || result->report.branch_switch;
      const bool singular = singular_before || result->near_singularity;
      figures.flagged += flagged;
      figures.singular += singular && !flagged;
      if (!flagged && !singular) {
        if (turn > bound && std::getenv("PATH_DEBUG") != nullptr) {
          std::printf(
              "  snap step %d: anim %.3f root %.3f mid %.3f bound %.3f limited "
              "%zu sing %.3f\n",
              i, RotationAngle(incoming_before, incoming_now),
              RotationAngle(before[0], now[0]),
              RotationAngle(before[1], now[1]), bound,
              result->limited_joints.size(), result->singularity_angle);
          const JointDefinition& mid = rig.joint(chain.joints[1]);
          const auto hinge = [&](const Quat& q) {
            return TwistAngleAbout(glm::conjugate(mid.rest.rotation) * q,
                                   mid.limit.hinge.axis);
          };
          std::printf("    elbow %.4f -> %.4f, distance %.4f reach %.4f\n",
                      hinge(before[1]), hinge(now[1]),
                      glm::length(goal.target_world - root), 0.0);
        }
        figures.snaps += turn > bound;
        figures.largest_ratio = std::max(figures.largest_ratio, turn / bound);
      }
    }
    singular_before = result->near_singularity;
    flagged_before = result->report.branch_switch;
    incoming_before = incoming_now;
    before = now;
    target_before = goal.target_world;
    answer = locals;
  }
  return figures;
}

class TwoBonePathTest : public ::testing::TestWithParam<const char*> {};

TEST_P(TwoBonePathTest, ExactAlongSmoothPathsAndCountsTheSnaps) {
  absl::StatusOr<Rig> rig = testing::HumanoidRig();
  ASSERT_TRUE(rig.ok());
  const Chain& chain = *rig->FindChain(GetParam());
  for (const Incoming incoming :
       {Incoming::kWarm, Incoming::kFixed, Incoming::kAnimated}) {
    for (const bool with_pole : {false, true}) {
      std::mt19937_64 engine(20261127);
      PathFigures all;
      for (int path = 0; path < 20; ++path) {
        const PathFigures figures =
            FollowPath(*rig, chain, incoming, with_pole, engine);
        all.steps += figures.steps;
        all.snaps += figures.snaps;
        all.flagged += figures.flagged;
        all.singular += figures.singular;
        all.largest_ratio = std::max(all.largest_ratio, figures.largest_ratio);
        all.largest_residual =
            std::max(all.largest_residual, figures.largest_residual);
      }
      std::printf(
          "[ path ] %-9s %-8s %-7s: %d steps, %d flagged, %d near a singular "
          "direction, %d others over the bound, largest turn %.2f x the "
          "bound, largest residual %.2g m\n",
          GetParam(), kIncomingNames[static_cast<int>(incoming)],
          with_pole ? "pole" : "no pole", all.steps, all.flagged, all.singular,
          all.snaps, all.largest_ratio, all.largest_residual);
      EXPECT_LE(all.largest_residual, 1e-6);
    }
  }
}

// The two-bone solver's own plane flips where the target lies opposite the
// limb's root -> tip (keeping the incoming bend plane is a shortest-arc
// swing) and where a pole crosses the root -> target line: targets at the
// rest limb's own distance (so the bend stays as it came) turned by a known
// angle from those directions report that angle, and flag it within the
// chain's flip_warning_angle.
TEST(TwoBoneSingularityTest, ReportsTheSingularDirectionsOfItsOwnPlane) {
  absl::StatusOr<Rig> rig = testing::HumanoidRig();
  ASSERT_TRUE(rig.ok());
  for (const char* name : {"left_arm", "right_leg"}) {
    const Chain& chain = *rig->FindChain(name);
    const std::vector<Transform> model =
        testing::ModelTransforms(*rig, rig->rest_pose());
    const Vec3 root = model[chain.joints[0]].translation;
    const Vec3 limb = model[chain.joints[2]].translation - root;
    const Vec3 across = glm::normalize(glm::cross(limb, Vec3(0.3, 0.5, 0.8)));
    testing::ChainSolveRunner solver(*rig);
    for (const double angle : {0.02, 0.1, 0.3, 1.0}) {
      // Opposite the rest limb, turned by `angle`.
      ChainGoal goal;
      goal.chain = &chain;
      goal.target_world = root + AngleAxis(angle, across) * -limb;
      std::vector<Transform> locals(rig->rest_pose().begin(),
                                    rig->rest_pose().end());
      absl::StatusOr<ChainSolveResult> result =
          solver.Solve(goal, Transform(), absl::MakeSpan(locals));
      ASSERT_TRUE(result.ok()) << result.status();
      EXPECT_NEAR(result->singularity_angle, angle, 1e-6) << name;
      EXPECT_EQ(result->near_singularity, angle <= chain.flip_warning_angle)
          << name << " " << angle;
      // A pole on the line through the root, turned by angle / 2 (nearer
      // than the opposite direction), towards a target along the limb.
      goal.target_world = root + limb;
      goal.pole_world = root + AngleAxis(0.5 * angle, across) * (-0.5 * limb);
      locals.assign(rig->rest_pose().begin(), rig->rest_pose().end());
      result = solver.Solve(goal, Transform(), absl::MakeSpan(locals));
      ASSERT_TRUE(result.ok()) << result.status();
      EXPECT_NEAR(result->singularity_angle, 0.5 * angle, 1e-6) << name;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Limbs, TwoBonePathTest,
                         ::testing::Values("left_arm", "right_arm", "left_leg",
                                           "right_leg"),
                         [](const ::testing::TestParamInfo<const char*>& info) {
                           return std::string(info.param);
                         });

}  // namespace
}  // namespace ik
