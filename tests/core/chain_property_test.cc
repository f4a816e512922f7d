// Property tests of FABRIK and CCD with joint limits, through SolveChainJob on
// the example rigs: the humanoid's 4-joint clavicle-to-wrist arm and the
// 13-joint tail. Seeded; reachable targets come from forward kinematics of
// random poses within the limits (tests/core/random_poses.h), and answers are
// checked with tests/core/independent_checks.h, not the core's own code.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <glm/gtc/matrix_transform.hpp>
#include <random>
#include <string>
#include <vector>

#include "draws.h"
#include "example_rigs.h"
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

using ::ik::testing::kCases;
using ::ik::testing::kHitDistance;
using ::ik::testing::kLengthSlack;
using ::ik::testing::kLimitSlack;
using ::ik::testing::kOutOfReachCases;
using ::ik::testing::kRepeatEvery;
using ::ik::testing::kRequiredHitRate;
using ::ik::testing::kSeed;
using ::ik::testing::LimitViolation;
using ::ik::testing::Percentiles;
using ::ik::testing::Summarize;
using ::ik::testing::WorldPositions;

struct ChainCase {
  const char* rig;
  const char* chain;
  SolverKind solver;
};

std::string Name(const ChainCase& chain_case) {
  return std::string(chain_case.chain) +
         (chain_case.solver == SolverKind::kCcd ? "_ccd" : "_fabrik");
}

std::string CaseName(const ::testing::TestParamInfo<ChainCase>& info) {
  return Name(info.param);
}

class ChainPropertyTest : public ::testing::TestWithParam<ChainCase> {
 protected:
  void SetUp() override {
    absl::StatusOr<Rig> rig = testing::ExampleRig(GetParam().rig);
    ASSERT_TRUE(rig.ok()) << rig.status();
    rig_.emplace(*std::move(rig));
    chain_ = rig_->FindChain(GetParam().chain);
    ASSERT_NE(chain_, nullptr);
    rest_ = std::vector<Transform>(rig_->rest_pose().begin(),
                                   rig_->rest_pose().end());
    const std::vector<Vec3> rest = WorldPositions(*rig_, rest_, root_);
    for (size_t k = 1; k < chain_->joints.size(); ++k) {
      rest_lengths_.push_back(
          glm::length(rest[chain_->joints[k]] - rest[chain_->joints[k - 1]]));
    }
  }

  ChainGoal Goal(const Vec3& target) const {
    ChainGoal goal;
    goal.chain = chain_;
    goal.solver = GetParam().solver;
    goal.target_world = target;
    return goal;
  }

  // Every joint within its limit, bones as long as at rest, the tip where
  // the result says; returns the tip's distance from the target.
  double CheckPose(const std::vector<Transform>& locals,
                   const ChainSolveResult& result, const Vec3& target, int i) {
    for (const int joint : chain_->joints) {
      EXPECT_TRUE(IsFinite(locals[joint].rotation)) << "case " << i;
      const double violation =
          LimitViolation(*rig_, joint, locals[joint].rotation);
      max_violation_ = std::max(max_violation_, violation);
      EXPECT_LE(violation, kLimitSlack)
          << "case " << i << ": " << rig_->joint(joint).name;
    }
    const std::vector<Vec3> world = WorldPositions(*rig_, locals, root_);
    for (size_t k = 1; k < chain_->joints.size(); ++k) {
      const double length =
          glm::length(world[chain_->joints[k]] - world[chain_->joints[k - 1]]);
      EXPECT_NEAR(length, rest_lengths_[k - 1],
                  kLengthSlack * rest_lengths_[k - 1])
          << "case " << i << ", bone " << k;
    }
    const double distance = glm::length(world[chain_->joints.back()] - target);
    EXPECT_NEAR(result.report.residual, distance, 1e-9) << "case " << i;
    if (std::abs(distance - chain_->tolerance) > 1e-9) {
      EXPECT_EQ(result.report.reached, distance <= chain_->tolerance)
          << "case " << i;
    }
    return distance;
  }

  std::optional<Rig> rig_;
  const Chain* chain_ = nullptr;
  // A character standing somewhere, turned: world != model space.
  const Transform root_ = [] {
    Transform root;
    root.translation = Vec3(3.0, 0.2, -7.0);
    root.rotation = AngleAxis(2.0, Vec3(0.0, 1.0, 0.0));
    return root;
  }();
  std::vector<Transform> rest_;
  std::vector<double> rest_lengths_;
  double max_violation_ = 0.0;
};

TEST_P(ChainPropertyTest, ReachesReachableTargetsWithinTheCap) {
  std::mt19937_64 engine(kSeed);
  testing::ChainSolveRunner solver(*rig_);
  testing::ChainSolveRunner second_solver(*rig_);
  int hits = 0;
  double worst = 0.0;
  int switched = 0;
  std::vector<int> iterations;
  for (int i = 0; i < kCases; ++i) {
    const Vec3 target =
        TransformPoint(root_, testing::ReachableTarget(*rig_, *chain_, engine));
    const ChainGoal goal = Goal(target);
    std::vector<Transform> locals = rest_;
    absl::StatusOr<ChainSolveResult> result =
        solver.Solve(goal, root_, absl::MakeSpan(locals));
    ASSERT_TRUE(result.ok()) << "case " << i << ": " << result.status();
    // The requested solver, or after a stall the one whose answer ends
    // nearer (the torque solver, or FABRIK after CCD).
    if (result->solver != GetParam().solver) {
      ASSERT_TRUE(result->solver == SolverKind::kTorque ||
                  result->solver == SolverKind::kFabrik)
          << "case " << i;
      ++switched;
    }
    ASSERT_LE(result->report.iterations, chain_->max_iterations);
    const double distance = CheckPose(locals, *result, target, i);
    if (distance <= kHitDistance) ++hits;
    worst = std::max(worst, distance);
    iterations.push_back(result->report.iterations);
    if (::testing::Test::HasFailure()) return;

    if (i % kRepeatEvery == 0) {
      // The same request on another solver (its workspace dirty from other
      // goals): the same bits.
      std::vector<Transform> again = rest_;
      absl::StatusOr<ChainSolveResult> repeated =
          second_solver.Solve(goal, root_, absl::MakeSpan(again));
      ASSERT_TRUE(repeated.ok());
      ASSERT_EQ(std::memcmp(locals.data(), again.data(),
                            locals.size() * sizeof(Transform)),
                0)
          << "case " << i;
      ASSERT_EQ(std::memcmp(&result->report.residual,
                            &repeated->report.residual, sizeof(double)),
                0);
      ASSERT_EQ(result->report.iterations, repeated->report.iterations);
      ASSERT_EQ(result->stop_reason, repeated->stop_reason);
      ASSERT_EQ(result->limited_joints, repeated->limited_joints);
    }
  }
  const double rate = static_cast<double>(hits) / kCases;
  const Percentiles stats = Summarize(iterations);
  std::printf(
      "[ property ] %s: within %g m of %d reachable targets: %.2f%% "
      "(cap %d, tolerance %g m); iterations mean %.2f, p99 %d, max %d; "
      "worst miss %.3g m; largest limit violation %.3g rad; %d answers by "
      "another solver after a stall\n",
      Name(GetParam()).c_str(), kHitDistance, kCases, 100.0 * rate,
      chain_->max_iterations, chain_->tolerance, stats.mean, stats.p99,
      stats.max, worst, max_violation_, switched);
  RecordProperty("hit_rate", std::to_string(rate));
  RecordProperty("iterations_mean", std::to_string(stats.mean));
  RecordProperty("iterations_p99", std::to_string(stats.p99));
  EXPECT_GE(rate, kRequiredHitRate);
}

TEST_P(ChainPropertyTest, HonoursLimitsForTargetsOutOfReach) {
  std::mt19937_64 engine(kSeed + 1);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  testing::ChainSolveRunner solver(*rig_);
  const Vec3 base = WorldPositions(*rig_, rest_, root_)[chain_->joints[0]];
  double reach = 0.0;
  for (const double length : rest_lengths_) reach += length;
  for (int i = 0; i < kOutOfReachCases; ++i) {
    // Alternately beyond the chain's length, and anywhere in a box around
    // it (mostly outside what the limits allow).
    Vec3 direction = testing::DrawVec3(unit, engine);
    direction /= std::max(glm::length(direction), 1e-9);
    const bool beyond = i % 2 == 0;
    const Vec3 target =
        beyond ? base + direction * reach * (1.01 + 2.0 * (unit(engine) + 1.0))
               : base + testing::DrawVec3(unit, engine) * reach;
    std::vector<Transform> locals = rest_;
    absl::StatusOr<ChainSolveResult> result =
        solver.Solve(Goal(target), root_, absl::MakeSpan(locals));
    ASSERT_TRUE(result.ok()) << "case " << i << ": " << result.status();
    CheckPose(locals, *result, target, i);
    if (beyond) {
      EXPECT_FALSE(result->report.reached) << "case " << i;
      EXPECT_NE(result->stop_reason, StopReason::kReached) << "case " << i;
    }
    if (::testing::Test::HasFailure()) return;
  }
  std::printf(
      "[ property ] %s: %d targets out of reach or limits: largest limit "
      "violation %.3g rad\n",
      Name(GetParam()).c_str(), kOutOfReachCases, max_violation_);
}

INSTANTIATE_TEST_SUITE_P(
    Chains, ChainPropertyTest,
    ::testing::Values(
        ChainCase{"humanoid", "left_arm_clavicle", SolverKind::kFabrik},
        ChainCase{"humanoid", "left_arm_clavicle", SolverKind::kCcd},
        ChainCase{"tail", "tail", SolverKind::kFabrik},
        ChainCase{"tail", "tail", SolverKind::kCcd}),
    CaseName);

// FABRIK without limits (FabrikJob with no constraints; the path that
// iterates on positions alone and aims the chain first), from the rest pose
// to the same kind of reachable targets: the 3-joint shoulder-to-wrist arm
// and the tail, each bone kept, the tip within the tolerance, the report
// measuring the answer.

TEST(FabrikStallTest, FinishesWithCcdSweepsWhereThePassesStall) {
  absl::StatusOr<Rig> rig = testing::HumanoidRig();
  ASSERT_TRUE(rig.ok()) << rig.status();
  const Chain& chain = *rig->FindChain("left_arm_clavicle");
  const std::vector<Transform> rest(rig->rest_pose().begin(),
                                    rig->rest_pose().end());
  constexpr int kStalls[] = {115, 751, 771, 891, 960, 971, 1060, 1209};
  // As ChainPropertyTest places the character.
  Transform root;
  root.translation = Vec3(3.0, 0.2, -7.0);
  root.rotation = AngleAxis(2.0, Vec3(0.0, 1.0, 0.0));
  std::mt19937_64 engine(kSeed);
  testing::ChainSolveRunner solver(*rig);
  int next = 0;
  for (const int stall : kStalls) {
    Vec3 target;
    for (; next <= stall; ++next) {
      target =
          TransformPoint(root, testing::ReachableTarget(*rig, chain, engine));
    }
    ChainGoal goal;
    goal.chain = &chain;
    goal.solver = SolverKind::kFabrik;
    goal.target_world = target;
    std::vector<Transform> locals = rest;
    absl::StatusOr<ChainSolveResult> result =
        solver.Solve(goal, root, absl::MakeSpan(locals));
    ASSERT_TRUE(result.ok()) << result.status();
    EXPECT_TRUE(result->report.reached)
        << "case " << stall << ": " << result->report.residual;
    EXPECT_LE(result->report.iterations, chain.max_iterations);
    for (const int joint : chain.joints) {
      EXPECT_LE(LimitViolation(*rig, joint, locals[joint].rotation),
                kLimitSlack)
          << "case " << stall;
    }
  }
}

// The two-bone solver on the humanoid's limbs: its middle joint's hinge
// bounds the bend (targets too near the root leave the limb folded as far
// as the hinge allows, and say so), and no answer breaks a limit.

}  // namespace
}  // namespace ik
