// The two-bone limbs along smooth target paths (chain_paths.h), with
// limits and without, with a pole and without, from every kind of incoming
// pose; and the singular directions of the two-bone solver's own plane.
#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "chain_paths.h"
#include "gtest/gtest.h"
#include "humanoid_rig.h"
#include "ik/rig/rig.h"
#include "ik/rig/solve_chain.h"
#include "solve_chain_runner.h"

namespace ik {
namespace {

using testing::FollowPaths;
using testing::Incoming;
using testing::PathCase;
using testing::PathFigures;
using testing::TwoBoneCase;
using testing::WithoutLimits;

class TwoBonePathTest : public ::testing::TestWithParam<const char*> {};

// The paths of `chain_name` of `rig` in every incoming mode, with a pole
// where the middle joint points (behind an elbow, before a knee: the
// humanoid faces +z, and its legs are the limbs whose tip is lower) and
// without one; each mode's figures, printed under `label`, go to `check`.
template <typename Check>
void FollowEveryMode(const Rig& rig, const char* chain_name, const char* label,
                     Check check) {
  const Chain& chain = *rig.FindChain(chain_name);
  const std::vector<Transform> rest =
      testing::ModelTransforms(rig, rig.rest_pose());
  const bool leg = rest[chain.joints[2]].translation.y <
                   rest[chain.joints[0]].translation.y - 0.5;
  for (const Incoming incoming : {Incoming::kWarm, Incoming::kFixed,
                                  Incoming::kAnimated, Incoming::kNear}) {
    for (const bool with_pole : {false, true}) {
      check(
          incoming, with_pole,
          FollowPaths(TwoBoneCase(rig, chain, Vec3(0.0, -0.5, leg ? 0.5 : -0.5),
                                  with_pole, incoming),
                      label));
    }
  }
}

// The two-bone limbs: exact on every step; a step over the bound has a
// flagged answer or one near a singular direction, up to the rates of arc
// ends near tangency, of the swing through the rest limb a little outside
// the flip warning (an incoming limb far from the target swings through
// it) and of the pole's plane just outside the flip warning (under 2 x the
// bound; without a pole, warm or near the goal, under 1 x); flagged answers
// (no allowed arc holds the incoming swivel) stay within 1 % of the steps,
// from a separate animation and near the goal too.
TEST_P(TwoBonePathTest, ExactAlongSmoothPaths) {
  absl::StatusOr<Rig> rig = testing::HumanoidRig();
  ASSERT_TRUE(rig.ok());
  FollowEveryMode(
      *rig, GetParam(), GetParam(),
      [](Incoming incoming, bool with_pole, const PathFigures& all) {
        EXPECT_LE(all.largest_residual, 1e-6);
        EXPECT_LT(all.largest_ratio, 2.0);
        // Without a pole, fed the previous answer or an animation near the
        // goal: within the bound itself.
        if (!with_pole &&
            (incoming == Incoming::kWarm || incoming == Incoming::kNear)) {
          EXPECT_LT(all.largest_ratio, 1.0);
        }
        EXPECT_LE(all.flagged, all.steps / 100);
        EXPECT_EQ(all.unlisted, 0);
      });
}

// The same paths with the history-free choice (the allowed solution nearest
// the pole's or bend plane): the harness sees the snaps the rule removes.
TEST(TwoBonePathTest, TheHistoryFreeChoiceSnapsOnTheSamePaths) {
  absl::StatusOr<Rig> rig = testing::HumanoidRig();
  ASSERT_TRUE(rig.ok());
  const Chain& chain = *rig->FindChain("right_arm");
  double largest = 0.0;
  for (const Incoming incoming :
       {Incoming::kWarm, Incoming::kFixed, Incoming::kAnimated}) {
    for (const bool with_pole : {false, true}) {
      PathCase c =
          TwoBoneCase(*rig, chain, Vec3(0.0, -0.5, -0.5), with_pole, incoming);
      c.history_free = true;
      largest = std::max(
          largest, FollowPaths(c, "right_arm history-free").largest_ratio);
    }
  }
  EXPECT_GT(largest, 10.0);
}

// The same limbs without limits (targets from free poses): exact, none
// flagged (no limit closes an arc), and every step away from the singular
// directions -- the free middle joint's included: the incoming limb near
// straight, where the plane it bends in flips -- under 4 x the bound (a
// free root swings by the shortest arc, whose singular direction, opposite
// the incoming tip, moves with an animation); fed the previous answer or
// an animation near the goal, without a pole, within the bound itself.
TEST_P(TwoBonePathTest, FreeLimbsStayWithinTheBound) {
  absl::StatusOr<Rig> rig =
      Rig::Create(WithoutLimits(testing::HumanoidRigDefinition()));
  ASSERT_TRUE(rig.ok());
  const std::string label = std::string(GetParam()) + " free";
  FollowEveryMode(
      *rig, GetParam(), label.c_str(),
      [](Incoming incoming, bool with_pole, const PathFigures& all) {
        EXPECT_LE(all.largest_residual, 1e-6);
        EXPECT_LT(all.largest_ratio, 4.0);
        if (!with_pole &&
            (incoming == Incoming::kWarm || incoming == Incoming::kNear)) {
          EXPECT_LT(all.largest_ratio, 1.0);
        }
        EXPECT_EQ(all.flagged, 0);
      });
}

// A seeded variant of the humanoid, as an outside client draws rigs: each
// bone 0.7 to 1.3 x as long, each cone's axis tilted up to 0.3 rad off its
// bone with its swing_max 0.8 to 1.2 x (at least the tilt and 0.05 rad more:
// the rest pose stays within), each hinge end moved up to 0.2 rad (the rest
// bend, 0, kept within).
RigDefinition SeededVariant(std::uint64_t seed) {
  RigDefinition definition = testing::HumanoidRigDefinition();
  std::mt19937_64 engine(seed);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  std::vector<JointDefinition>& joints = definition.joints;
  for (JointDefinition& joint : joints) {
    joint.rest.translation *= 1.0 + 0.3 * unit(engine);
  }
  for (size_t j = 0; j < joints.size(); ++j) {
    JointLimit& limit = joints[j].limit;
    if (limit.kind == JointLimit::Kind::kHinge) {
      limit.hinge.range.min =
          std::min(limit.hinge.range.min + 0.2 * unit(engine), 0.0);
      limit.hinge.range.max =
          std::max(limit.hinge.range.max + 0.2 * unit(engine), 0.0);
    }
    if (limit.kind != JointLimit::Kind::kBallSocket) continue;
    // The bone: the rest direction to the first child, in the joint's frame.
    Vec3 bone = limit.ball_socket.axis;
    if (limit.axis_from_child) {
      for (const JointDefinition& child : joints) {
        if (child.parent == static_cast<int>(j) &&
            glm::length(child.rest.translation) > 1e-9) {
          bone = glm::normalize(child.rest.translation);
          break;
        }
      }
    }
    Vec3 side =
        glm::cross(bone, Vec3(unit(engine), unit(engine), unit(engine)));
    if (!(glm::length(side) > 1e-6))
      side = glm::cross(bone, Vec3(1.0, 0.0, 0.0));
    const double tilt = 0.3 * unit(engine);
    limit.axis_from_child = false;
    limit.ball_socket.axis =
        glm::normalize(glm::angleAxis(tilt, glm::normalize(side)) * bone);
    limit.ball_socket.swing_max =
        std::clamp(limit.ball_socket.swing_max * (1.0 + 0.2 * unit(engine)),
                   std::abs(tilt) + 0.05, kPi);
  }
  return definition;
}

// The same paths on seeded variants of the humanoid: every target (from a
// pose within the variant's limits) reached exactly -- where the root's
// limit allows no point of the circle of solutions with the bend the
// solver took, a hinge that allows the mirrored bend takes it (flagged) --
// and every joint left on a limit listed. Every unflagged step 20 degrees
// clear of a singular direction under 1.5 x the bound, every other under
// 2.5 x (a pole's plane just outside the flip warning); flagged answers
// under 2 % of a mode's steps (docs/accuracy.md).
TEST_P(TwoBonePathTest, SeededRigsAlongSmoothPaths) {
  for (const std::uint64_t seed : {11, 12, 13}) {
    absl::StatusOr<Rig> rig = Rig::Create(SeededVariant(seed));
    ASSERT_TRUE(rig.ok()) << rig.status();
    const std::string label =
        std::string(GetParam()) + " seed " + std::to_string(seed);
    FollowEveryMode(*rig, GetParam(), label.c_str(),
                    [&](Incoming, bool, const PathFigures& all) {
                      EXPECT_LE(all.largest_residual, 1e-6) << label;
                      EXPECT_EQ(all.unlisted, 0) << label;
                      EXPECT_LT(all.largest_clear_ratio, 1.5) << label;
                      EXPECT_LT(all.largest_ratio, 2.5) << label;
                      EXPECT_LE(all.flagged, all.steps * 2 / 100) << label;
                    });
  }
}

INSTANTIATE_TEST_SUITE_P(Limbs, TwoBonePathTest,
                         ::testing::Values("left_arm", "right_arm", "left_leg",
                                           "right_leg"),
                         [](const ::testing::TestParamInfo<const char*>& info) {
                           return std::string(info.param);
                         });

// The two-bone solver's own plane flips where the target lies opposite the
// direction the incoming limb swings through (a ball-and-socket root's rest
// limb, for an incoming limb far from the target; without a limit, the
// limb's own root -> tip, the swing then being a shortest arc) and where a
// pole crosses the root -> target line: from the rest pose, targets
// at the rest limb's own distance (so the bend stays as it came) turned by a
// known angle from those directions report that angle, and flag it within
// the chain's flip_warning_angle.
TEST(TwoBoneSingularityTest, ReportsTheSingularDirectionsOfItsOwnPlane) {
  absl::StatusOr<Rig> limited = testing::HumanoidRig();
  ASSERT_TRUE(limited.ok());
  // The limbs' roots without their limits (the hinges kept, so the
  // incoming plane stays the hinge's).
  RigDefinition definition = testing::HumanoidRigDefinition();
  for (JointDefinition& joint : definition.joints) {
    if (joint.name == "left_shoulder" || joint.name == "right_hip") {
      joint.limit = JointLimit();
    }
  }
  absl::StatusOr<Rig> free_roots = Rig::Create(definition);
  ASSERT_TRUE(free_roots.ok());
  for (const Rig* rig : {&*limited, &*free_roots}) {
    for (const char* name : {"left_arm", "right_leg"}) {
      const Chain& chain = *rig->FindChain(name);
      const std::vector<Transform> model =
          testing::ModelTransforms(*rig, rig->rest_pose());
      const Vec3 root = model[chain.joints[0]].translation;
      const Vec3 limb = model[chain.joints[2]].translation - root;
      // Seen from the rest pose, the swing through the rest limb and the
      // shortest arc flip at the same target: opposite the rest limb.
      const Vec3 centre = glm::normalize(limb);
      const Vec3 across =
          glm::normalize(glm::cross(centre, Vec3(0.3, 0.5, 0.8)));
      testing::ChainSolveRunner solver(*rig);
      for (const double angle : {0.02, 0.1, 0.3, 1.0}) {
        // Opposite the centre, turned by `angle`.
        ChainGoal goal;
        goal.chain = &chain;
        goal.target_world =
            root + AngleAxis(angle, across) * (-glm::length(limb) * centre);
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
        const Vec3 across_limb =
            glm::normalize(glm::cross(limb, Vec3(0.3, 0.5, 0.8)));
        goal.pole_world =
            root + AngleAxis(0.5 * angle, across_limb) * (-0.5 * limb);
        locals.assign(rig->rest_pose().begin(), rig->rest_pose().end());
        result = solver.Solve(goal, Transform(), absl::MakeSpan(locals));
        ASSERT_TRUE(result.ok()) << result.status();
        EXPECT_NEAR(result->singularity_angle, 0.5 * angle, 1e-6) << name;
      }
    }
  }
}

// A middle joint without a hinge bends in the incoming limb's plane: an
// incoming limb bent by a small angle from straight (or from folded)
// reports that angle, and within the warning angle near_singularity; a
// hinge bends about its axis and reports none of it.
TEST(TwoBoneSingularityTest, ReportsAnIncomingLimbNearStraight) {
  absl::StatusOr<Rig> free_rig =
      Rig::Create(WithoutLimits(testing::HumanoidRigDefinition()));
  absl::StatusOr<Rig> hinged = testing::HumanoidRig();
  ASSERT_TRUE(free_rig.ok());
  ASSERT_TRUE(hinged.ok());
  for (const Rig* rig : {&*free_rig, &*hinged}) {
    const Chain& chain = *rig->FindChain("left_arm");
    const int mid = chain.joints[1];
    // Across the upper arm (along +x in the shoulder's frame).
    const Vec3 axis = glm::normalize(Vec3(0.0, -1.0, 0.2));
    testing::ChainSolveRunner solver(*rig);
    for (const double bend : {0.02, 0.1, kPi - 0.05, 0.6}) {
      std::vector<Transform> locals(rig->rest_pose().begin(),
                                    rig->rest_pose().end());
      const JointDefinition& elbow = rig->joint(mid);
      // The elbow straight (its bone along the upper arm's), then bent
      // about an axis across both.
      const Vec3 lower = rig->joint(chain.joints[2]).rest.translation;
      locals[mid].rotation =
          AngleAxis(bend, axis) * FromTo(lower, elbow.rest.translation);
      const std::vector<Transform> model =
          testing::ModelTransforms(*rig, locals);
      ChainGoal goal;
      goal.chain = &chain;
      // A target well inside the reach, off the limb's singular directions.
      goal.target_world =
          model[chain.joints[0]].translation + Vec3(0.1, -0.3, 0.25);
      absl::StatusOr<ChainSolveResult> result =
          solver.Solve(goal, Transform(), absl::MakeSpan(locals));
      ASSERT_TRUE(result.ok()) << result.status();
      const double from_line = std::min(bend, kPi - bend);
      if (rig == &*free_rig) {
        EXPECT_NEAR(result->singularity_angle, from_line, 1e-9) << bend;
        EXPECT_EQ(result->near_singularity,
                  from_line <= chain.flip_warning_angle)
            << bend;
      } else {
        EXPECT_GT(result->singularity_angle, chain.flip_warning_angle) << bend;
      }
    }
  }
}

}  // namespace
}  // namespace ik
