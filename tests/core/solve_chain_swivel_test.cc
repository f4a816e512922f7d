// SolveChainJob with a swivel angle (ChainGoal::swivel,
// ik/rig/solve_chain.h): the goal's checks, the preferred pose as the start,
// the flip report and the two swivel spaces. Seeded properties over many
// goals: swivel_property_test.cc.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "ik/rig/solve_chain.h"
#include "ik/solvers/swivel.h"
#include "solve_chain_runner.h"
#include "swivel_fixtures.h"
#include "tail_rig.h"

namespace ik::testing {
namespace {

void ExpectFailure(const Rig& rig, const ChainGoal& goal,
                   std::vector<Transform>& pose, absl::StatusCode code,
                   const std::string& prefix) {
  const std::vector<Transform> before = pose;
  testing::ChainSolveRunner solver(rig);
  absl::StatusOr<ChainSolveResult> result =
      solver.Solve(goal, Transform(), absl::MakeSpan(pose));
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), code) << result.status();
  EXPECT_TRUE(absl::StartsWith(result.status().message(), prefix))
      << result.status().message();
  EXPECT_EQ(std::memcmp(before.data(), pose.data(),
                        before.size() * sizeof(Transform)),
            0)
      << "a failed solve changed the pose";
}

TEST_F(SwivelSolveTest, RejectsBadSwivelGoalsAndLeavesThePose) {
  std::vector<Transform> pose(rig_->rest_pose().begin(),
                              rig_->rest_pose().end());
  ChainGoal goal;
  goal.chain = rig_->FindChain("left_arm");
  goal.target_world = Vec3(0.5, 1.3, 0.2);
  goal.swivel = 0.3;
  goal.pole_world = Vec3(0.3, 0.5, 0.0);
  ExpectFailure(*rig_, goal, pose, absl::StatusCode::kInvalidArgument,
                "swivel: give a swivel or a pole, not both");
  goal.pole_world.reset();
  goal.swivel = std::nan("");
  ExpectFailure(*rig_, goal, pose, absl::StatusCode::kInvalidArgument,
                "swivel: not finite");
  // A bone of zero length fails in the solver, after the swivel has set up.
  goal.swivel = 0.3;
  pose[rig_->FindJoint("left_wrist")].translation = Vec3(0.0);
  ExpectFailure(*rig_, goal, pose, absl::StatusCode::kInvalidArgument,
                "locals: chain 'left_arm' cannot be solved");
  goal.chain = rig_->FindChain("left_arm_clavicle");
  ExpectFailure(*rig_, goal, pose, absl::StatusCode::kInvalidArgument,
                "locals: chain 'left_arm_clavicle' cannot be solved");

  absl::StatusOr<Rig> tail = TailRig();
  ASSERT_TRUE(tail.ok()) << tail.status();
  std::vector<Transform> tail_pose(tail->rest_pose().begin(),
                                   tail->rest_pose().end());
  goal.chain = &tail->chains()[0];
  goal.target_world = Vec3(0.0, 0.5, -0.8);
  ExpectFailure(*tail, goal, tail_pose, absl::StatusCode::kFailedPrecondition,
                "swivel: chain 'tail' has no zero-plane map");
}

TEST_F(SwivelSolveTest, ZeroSwivelAtThePreferredTargetKeepsThePreferredPose) {
  const std::vector<Transform> rest_models =
      ModelTransforms(*rig_, rig_->rest_pose());
  for (const Case& c : kSwivelCases) {
    const Chain& chain = *rig_->FindChain(c.chain);
    Solver solver(*rig_, Transform());
    // An earlier answer elsewhere must not matter.
    ASSERT_TRUE(solver.Solve(chain, c.solver, Vec3(0.0, 1.0, 0.4), 1.0).ok());
    absl::StatusOr<ChainSolveResult> result = solver.Solve(
        chain, c.solver, rest_models[chain.joints.back()].translation, 0.0);
    ASSERT_TRUE(result.ok()) << result.status();
    EXPECT_TRUE(result->report.reached) << c.chain;
    EXPECT_FALSE(result->near_singularity);
    EXPECT_NEAR(result->singularity_angle, kPi / 2, 1e-9) << c.chain;
    for (size_t k = 0; k < chain.joints.size(); ++k) {
      EXPECT_LT(RotationAngle(solver.pose()[chain.joints[k]].rotation,
                              rig_->joint(chain.joints[k]).rest.rotation),
                1e-7)
          << c.chain << " joint " << k;
    }
  }
}

TEST_F(SwivelSolveTest, FlagsEEAxesNearTheSingularDirections) {
  const Chain& arm = *rig_->FindChain("left_arm");
  Chain wide = ChainIn(*rig_, "left_arm", SwivelSpace::kStartParent);
  wide.flip_warning_angle = 0.3;
  const ZeroPlaneMap& map = *arm.zero_plane_map;
  Solver solver(*rig_, Transform());
  absl::StatusOr<ChainSolveResult> plain =
      solver.Solve(arm, SolverKind::kAuto, Vec3(0.5, 1.3, 0.2), std::nullopt);
  ASSERT_TRUE(plain.ok()) << plain.status();
  // Without a swivel, the two-bone solver reports its own plane's singular
  // directions (two_bone_path_test.cc checks them); this target is far.
  EXPECT_FALSE(plain->near_singularity);
  EXPECT_GT(plain->singularity_angle, arm.flip_warning_angle);
  struct Expected {
    double degrees;  // from +n0 towards u0
    bool flagged;
    bool flagged_wide;
  };
  for (const Expected& e : {Expected{0.0, true, true},
                            {5.0, true, true},
                            {175.0, true, true},
                            {15.0, false, true},
                            {60.0, false, false},
                            {90.0, false, false}}) {
    const double angle = e.degrees * kPi / 180.0;
    const Vec3 direction =
        std::cos(angle) * map.normal + std::sin(angle) * map.axis;
    const Vec3 target = solver.Target(arm, direction, 0.4);
    absl::StatusOr<ChainSolveResult> result =
        solver.Solve(arm, SolverKind::kAuto, target, 0.0);
    ASSERT_TRUE(result.ok()) << result.status();
    EXPECT_EQ(result->near_singularity, e.flagged) << e.degrees;
    EXPECT_NEAR(result->singularity_angle, std::min(angle, kPi - angle), 1e-9);
    result = solver.Solve(wide, SolverKind::kAuto, target, 0.0);
    ASSERT_TRUE(result.ok()) << result.status();
    EXPECT_EQ(result->near_singularity, e.flagged_wide) << e.degrees;
  }
}

TEST_F(SwivelSolveTest, StartParentMapsTurnWithTheParentWorldMapsDoNot) {
  for (const Case& c : kSwivelCases) {
    const Chain parent_chain =
        ChainIn(*free_rig_, c.chain, SwivelSpace::kStartParent);
    const Chain world_chain = ChainIn(*free_rig_, c.chain, SwivelSpace::kWorld);
    const Vec3 direction = glm::normalize(Vec3(0.3, -0.5, 0.6));
    const double distance = 0.6 * Reach(*free_rig_, parent_chain);
    Solver rest(*free_rig_, Transform());
    Solver turned(*free_rig_, Transform());
    const int chest = free_rig_->FindJoint("chest");
    const int pelvis = free_rig_->FindJoint("pelvis");
    turned.pose()[chest].rotation =
        AngleAxis(0.6, glm::normalize(Vec3(1.0, 1.0, 0.2)));
    turned.pose()[pelvis].rotation = AngleAxis(-0.5, Vec3(0.0, 0.0, 1.0));
    for (const Chain* chain : {&parent_chain, &world_chain}) {
      ASSERT_TRUE(rest.Solve(*chain, c.solver,
                             rest.Target(*chain, direction, distance), 0.7)
                      .ok());
      ASSERT_TRUE(turned
                      .Solve(*chain, c.solver,
                             turned.Target(*chain, direction, distance), 0.7)
                      .ok());
      // The same swivel in each chain's own map space...
      for (Solver* solver : {&rest, &turned}) {
        const std::optional<double> measured =
            MeasureSwivel(*chain->zero_plane_map, solver->MapPositions(*chain));
        ASSERT_TRUE(measured.has_value());
        EXPECT_NEAR(*measured, 0.7, 0.01) << c.chain;
      }
      // ...which, in the start joint's parent space, is the same answer.
      double largest = 0.0;
      for (size_t k = 0; k < chain->joints.size(); ++k) {
        largest = std::max(
            largest, RotationAngle(rest.pose()[chain->joints[k]].rotation,
                                   turned.pose()[chain->joints[k]].rotation));
      }
      if (chain == &parent_chain) {
        EXPECT_LT(largest, 1e-6) << c.chain;
      } else {
        EXPECT_GT(largest, 0.05) << c.chain;
      }
    }
  }
}

// A uniformly drawn direction at least `min_angle` from the map's singular
// directions.
}  // namespace
}  // namespace ik::testing
