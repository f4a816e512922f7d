// The iterative solvers (FABRIK, CCD, the torque solver) along smooth
// target paths (chain_paths.h): the clavicle arm and the tail, with limits
// and without, from every kind of incoming pose.
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "chain_paths.h"
#include "gtest/gtest.h"
#include "humanoid_rig.h"
#include "ik/rig/rig.h"
#include "ik/rig/solve_chain.h"
#include "tail_rig.h"

namespace ik {
namespace {

using testing::FollowPaths;
using testing::Incoming;
using testing::PathCase;
using testing::PathFigures;
using testing::WithoutLimits;

// What a chain's paths must show beyond reaching every target: flagged
// answers at most 1 % of the steps (`flagged_rare`), and the largest
// turn / bound ratio of the unflagged steps fed the previous answer
// (`warm_ratio`), an animation near the goal (`near_ratio`), a fixed pose
// (`fixed_ratio`) and a separate animation (`animated_ratio`; of their
// steps with both answers further than `clearance` radians from a singular
// direction, `fixed_clear_ratio` and `animated_clear_ratio`) below the
// given values (infinity: measured only).
struct Expected {
  bool flagged_rare = false;
  double warm_ratio = std::numeric_limits<double>::infinity();
  double near_ratio = std::numeric_limits<double>::infinity();
  double fixed_ratio = std::numeric_limits<double>::infinity();
  double animated_ratio = std::numeric_limits<double>::infinity();
  double fixed_clear_ratio = std::numeric_limits<double>::infinity();
  double animated_clear_ratio = std::numeric_limits<double>::infinity();
  double clearance = 20.0 * kPi / 180.0;
};

// Every solver and incoming mode on `chain_name` of `rig`, the figures
// printed under the chain's name, the solver and `suffix`. Every solver
// from every start reaches every target within the chain's tolerance:
// where one stops short it retries (the torque solver with the last limb
// aimed at the target, then FABRIK finishing from its answer). Every joint
// an answer leaves on its limit is listed. And `expected`.
void FollowEverySolverAndMode(const Rig& rig, const char* chain_name,
                              const char* suffix, const Expected& expected) {
  const Chain& chain = *rig.FindChain(chain_name);
  for (const SolverKind solver :
       {SolverKind::kFabrik, SolverKind::kCcd, SolverKind::kTorque}) {
    for (const Incoming incoming : {Incoming::kWarm, Incoming::kFixed,
                                    Incoming::kAnimated, Incoming::kNear}) {
      PathCase c;
      c.rig = &rig;
      c.chain = &chain;
      c.solver = solver;
      c.incoming = incoming;
      c.clearance = expected.clearance;
      const std::string label = std::string(chain_name) +
                                (solver == SolverKind::kFabrik ? " fabrik"
                                 : solver == SolverKind::kCcd  ? " ccd"
                                                               : " torque") +
                                suffix;
      const PathFigures all = FollowPaths(c, label.c_str());
      EXPECT_LE(all.largest_residual, chain.tolerance + 1e-9) << label;
      EXPECT_EQ(all.unlisted, 0) << label;
      if (expected.flagged_rare) {
        EXPECT_LE(all.flagged, all.steps / 100) << label;
      }
      if (incoming == Incoming::kWarm) {
        EXPECT_LT(all.largest_ratio, expected.warm_ratio) << label;
      }
      if (incoming == Incoming::kNear) {
        EXPECT_LT(all.largest_ratio, expected.near_ratio) << label;
      }
      if (incoming == Incoming::kFixed) {
        EXPECT_LT(all.largest_ratio, expected.fixed_ratio) << label;
        EXPECT_LT(all.largest_clear_ratio, expected.fixed_clear_ratio) << label;
      }
      if (incoming == Incoming::kAnimated) {
        EXPECT_LT(all.largest_ratio, expected.animated_ratio) << label;
        EXPECT_LT(all.largest_clear_ratio, expected.animated_clear_ratio)
            << label;
      }
    }
  }
}

// The iterative solvers along the same paths: the clavicle arm (four
// joints) with FABRIK, CCD and torque, and the tail with each. Every
// solver reaches every target within the chain's tolerance (where one stops
// short it retries: the answer may name another solver) and every joint an
// answer leaves on its limit is in limited_joints. Flagged answers stay
// rare, and on the arm fed their previous answer its solvers keep its
// last limb's swivel: no step over twice the bound (the history-free
// choice, below, flips it); from an animation near the goal within the
// bound; from a fixed pose or a separate animation under twice it. The
// tail fed its previous answer stays within the bound (the continuity pass
// leads each answer from the incoming pose round the arc to the target;
// history-free, below, its distal joints swing), near the goal and from a
// fixed pose under twice it; from a separate animation that eases in and
// out, under 4 times it (the steps over the bound are counted and printed:
// docs/accuracy.md).
TEST(IterativePathTest, FollowsSmoothPaths) {
  absl::StatusOr<Rig> humanoid = testing::HumanoidRig();
  ASSERT_TRUE(humanoid.ok());
  absl::StatusOr<Rig> tail = Rig::Create(testing::TailRigDefinition());
  ASSERT_TRUE(tail.ok());
  // {flagged_rare, warm_ratio, near_ratio, fixed_ratio, animated_ratio}
  FollowEverySolverAndMode(*humanoid, "left_arm_clavicle", "",
                           {true, 2.0, 1.0, 2.0, 2.0});
  FollowEverySolverAndMode(*tail, "tail", "", {true, 1.0, 2.0, 2.0, 4.0});
}

// The same chains without limits (targets from free poses): every solver
// reaches every target from every start; fed the previous answer or an
// animation near the goal every solver stays within the bound. From a
// fixed pose within it wherever both answers are 60 degrees clear of a
// singular direction, from a separate animation that eases in and out
// under 6 times it there; nearer the target opposite the incoming
// tip the turns grow without bound (no answer continuous in the target
// exists over a whole sphere of targets about the chain's start), measured
// and printed.
TEST(IterativePathTest, FreeChainsAlongSmoothPaths) {
  absl::StatusOr<Rig> humanoid =
      Rig::Create(WithoutLimits(testing::HumanoidRigDefinition()));
  ASSERT_TRUE(humanoid.ok());
  absl::StatusOr<Rig> tail =
      Rig::Create(WithoutLimits(testing::TailRigDefinition()));
  ASSERT_TRUE(tail.ok());
  // {flagged_rare, warm_ratio, near_ratio, fixed_ratio, animated_ratio,
  //  fixed_clear_ratio, animated_clear_ratio, clearance}
  const double inf = std::numeric_limits<double>::infinity();
  const double clearance = 60.0 * kPi / 180.0;
  FollowEverySolverAndMode(*humanoid, "left_arm_clavicle", " free",
                           {false, 1.0, 1.0, inf, inf, 1.0, 6.0, clearance});
  FollowEverySolverAndMode(*tail, "tail", " free",
                           {false, 1.0, 1.0, inf, inf, 1.0, 6.0, clearance});
}

// Fed their previous answers, history-free: FABRIK on the clavicle arm,
// whose iterations' own turn of the last limb about its root -> tip axis
// drifts and flips (the snaps the continuity rule removes), and FABRIK on
// the tail, whose passes swing its distal joints (what the continuity pass
// removes).
TEST(IterativePathTest, TheHistoryFreeChoiceSnapsOnTheSamePaths) {
  absl::StatusOr<Rig> humanoid = testing::HumanoidRig();
  ASSERT_TRUE(humanoid.ok());
  absl::StatusOr<Rig> tail = Rig::Create(testing::TailRigDefinition());
  ASSERT_TRUE(tail.ok());
  PathCase c;
  c.rig = &*humanoid;
  c.chain = humanoid->FindChain("left_arm_clavicle");
  c.solver = SolverKind::kFabrik;
  c.history_free = true;
  EXPECT_GT(
      FollowPaths(c, "left_arm_clavicle history-free fabrik").largest_ratio,
      5.0);
  c.rig = &*tail;
  c.chain = tail->FindChain("tail");
  EXPECT_GT(FollowPaths(c, "tail history-free fabrik").largest_ratio, 2.0);
}

// The continuity pass leads the chain round the shortest arc from the
// incoming tip to the target, undefined where the target lies opposite the
// incoming tip: every solver's answer reports that direction. Seeded free
// tails (any pose), each with a target at the incoming tip's distance from
// the chain's start, `opposite` radians from the direction opposite it
// (computed here from the test's own forward kinematics): the answer
// reaches it, reports a singularity_angle no larger than `opposite` (the
// nearer of that and the last limb's own) and near_singularity within the
// chain's warning angle; in most cases the angle is `opposite` itself.
// History-free, none is reported.
TEST(IterativeSingularityTest, ReportsTheTargetOppositeTheIncomingTip) {
  absl::StatusOr<Rig> tail =
      Rig::Create(WithoutLimits(testing::TailRigDefinition()));
  ASSERT_TRUE(tail.ok());
  const Chain& chain = *tail->FindChain("tail");
  testing::ChainSolveRunner runner(*tail);
  std::mt19937_64 engine(20261202);
  std::uniform_real_distribution<double> share(0.0, 1.0);
  int cases = 0;
  int exactly = 0;
  for (int i = 0; i < 60; ++i) {
    const std::vector<Quat> rotations =
        testing::InLimitRotations(*tail, chain, engine);
    const std::vector<Transform> incoming =
        testing::Between(*tail, chain, rotations, rotations, 0.0);
    const std::vector<Transform> model =
        testing::ModelTransforms(*tail, incoming);
    const Vec3 start = model[chain.joints.front()].translation;
    const Vec3 tip = model[chain.joints.back()].translation - start;
    // Opposite the tip, turned off that line by `opposite` about an axis
    // across it.
    const double opposite = 0.01 + 0.3 * share(engine);
    const Vec3 across = glm::normalize(
        glm::cross(tip, Vec3(share(engine) - 0.5, share(engine) - 0.5, 1.0)));
    for (const SolverKind solver :
         {SolverKind::kFabrik, SolverKind::kCcd, SolverKind::kTorque}) {
      for (const bool history_free : {false, true}) {
        ChainGoal goal;
        goal.chain = &chain;
        goal.solver = solver;
        goal.history_free = history_free;
        goal.target_world = start + AngleAxis(opposite, across) * -tip;
        std::vector<Transform> locals = incoming;
        absl::StatusOr<ChainSolveResult> result =
            runner.Solve(goal, Transform(), absl::MakeSpan(locals));
        ASSERT_TRUE(result.ok()) << result.status();
        EXPECT_EQ(result->stop_reason, StopReason::kReached) << i;
        if (history_free) {
          EXPECT_EQ(result->singularity_angle, 0.0) << i;
          EXPECT_FALSE(result->near_singularity) << i;
          continue;
        }
        ++cases;
        EXPECT_LE(result->singularity_angle, opposite + 1e-9) << i;
        exactly += std::abs(result->singularity_angle - opposite) < 1e-9;
        EXPECT_EQ(result->near_singularity,
                  result->singularity_angle <= chain.flip_warning_angle)
            << i;
      }
    }
  }
  EXPECT_GE(exactly, cases * 8 / 10);
}

}  // namespace
}  // namespace ik
