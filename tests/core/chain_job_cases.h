// Behaviour both iterative chain jobs share (FabrikJob, CcdJob), as a typed
// test suite that fabrik_test.cc and ccd_test.cc instantiate: accuracy on
// reachable targets, the stopping rules, the degenerate cases (target on a
// joint, straight and folded chains, unreachable targets) without NaN,
// limits, determinism.
#ifndef IK_TESTS_CORE_CHAIN_JOB_CASES_H_
#define IK_TESTS_CORE_CHAIN_JOB_CASES_H_

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <tuple>
#include <vector>

#include "absl/status/status.h"
#include "chain_fixtures.h"
#include "draws.h"
#include "gtest/gtest.h"
#include "ik/base/math.h"
#include "ik/solvers/chain_job.h"

namespace ik::testing {

inline constexpr double kTestTolerance = 1e-6;
inline constexpr int kTestIterations = 500;

template <typename Job>
class ChainJobCases : public ::testing::Test {
 protected:
  // Solves `chain` for `target`; the outputs land in the fixture.
  absl::Status Solve(TestChain& chain, const Vec3& target,
                     int max_iterations = kTestIterations,
                     double tolerance = kTestTolerance) {
    Job job = chain.MakeJob<Job>(target, &workspace_, &report_, &stop_, &mask_);
    job.max_iterations = max_iterations;
    job.tolerance = tolerance;
    return job.Run();
  }

  // Rotations finite and unit, translations and scales untouched, bone
  // lengths kept.
  static void ExpectIntact(TestChain& chain,
                           const std::vector<Transform>& before) {
    const std::vector<Transform>& after = chain.locals();
    ASSERT_EQ(after.size(), before.size());
    for (size_t i = 0; i < after.size(); ++i) {
      EXPECT_TRUE(IsFinite(after[i].rotation)) << "joint " << i;
      EXPECT_NEAR(Norm(after[i].rotation), 1.0, 1e-12) << "joint " << i;
      EXPECT_EQ(after[i].translation, before[i].translation);
      EXPECT_EQ(after[i].scale, before[i].scale);
    }
    // The tip's rotation does not move the tip: left alone.
    EXPECT_EQ(after.back().rotation, before.back().rotation);
    const std::vector<Vec3> positions = chain.Positions();
    for (size_t i = 1; i < after.size(); ++i) {
      const double length = glm::length(before[i].translation);
      EXPECT_NEAR(glm::length(positions[i] - positions[i - 1]), length,
                  1e-12 * length)
          << "bone " << i;
    }
  }

  ChainWorkspace workspace_;
  SolveReport report_;
  StopReason stop_ = StopReason::kReached;
  std::uint64_t mask_ = ~std::uint64_t{0};
};

TYPED_TEST_SUITE_P(ChainJobCases);

TYPED_TEST_P(ChainJobCases, ReachesAReachableTargetWithinTolerance) {
  TestChain chain(Vec3(0.0, 1.0, 0.0), {0.3, 0.25, 0.2});
  chain.locals()[1].rotation = AngleAxis(0.3, Vec3(0.0, 0.0, 1.0));
  // Where the tip is in another pose: reachable.
  TestChain goal_pose(Vec3(0.0, 1.0, 0.0), {0.3, 0.25, 0.2});
  goal_pose.locals()[0].rotation =
      AngleAxis(0.8, glm::normalize(Vec3(1, 2, 3)));
  goal_pose.locals()[1].rotation = AngleAxis(1.1, Vec3(0.0, 0.0, 1.0));
  goal_pose.locals()[2].rotation = AngleAxis(0.5, Vec3(0.0, 1.0, 0.0));
  const Vec3 target = goal_pose.Tip();
  const std::vector<Transform> before = chain.locals();

  ASSERT_TRUE(this->Solve(chain, target).ok());
  const Vec3 tip = chain.Tip();
  EXPECT_LE(glm::length(tip - target), kTestTolerance);
  EXPECT_TRUE(this->report_.reached);
  EXPECT_EQ(this->stop_, StopReason::kReached);
  EXPECT_NEAR(this->report_.residual, glm::length(tip - target), 1e-12);
  EXPECT_NEAR(glm::length(this->report_.tip_model - tip), 0.0, 1e-12);
  EXPECT_GE(this->report_.iterations, 1);
  EXPECT_LE(this->report_.iterations, kTestIterations);
  EXPECT_EQ(this->mask_, 0u);
  this->ExpectIntact(chain, before);
}

TYPED_TEST_P(ChainJobCases, StopsBeforeIteratingWhenTheTipIsThere) {
  TestChain chain(Vec3(0.0), {0.3, 0.25});
  const std::vector<Transform> before = chain.locals();
  ASSERT_TRUE(this->Solve(chain, Vec3(0.55, 0.0, 0.0)).ok());
  EXPECT_EQ(this->report_.iterations, 0);
  EXPECT_EQ(this->stop_, StopReason::kReached);
  EXPECT_TRUE(this->report_.reached);
  EXPECT_EQ(std::memcmp(before.data(), chain.locals().data(),
                        before.size() * sizeof(Transform)),
            0);
}

TYPED_TEST_P(ChainJobCases, ReachesTowardsAnUnreachableTarget) {
  TestChain chain(Vec3(0.0), {0.3, 0.25, 0.2});
  chain.locals()[1].rotation = AngleAxis(0.7, Vec3(0.0, 0.0, 1.0));
  const Vec3 target(0.0, 3.0, 4.0);  // 5 m away; the chain is 0.75 m
  const std::vector<Transform> before = chain.locals();
  ASSERT_TRUE(this->Solve(chain, target).ok());
  EXPECT_FALSE(this->report_.reached);
  EXPECT_NE(this->stop_, StopReason::kReached);
  // Nearly straight at the target: at most a millimetre short of the best.
  EXPECT_LT(this->report_.residual, 5.0 - 0.75 + 1e-3);
  EXPECT_GE(this->report_.residual, 5.0 - 0.75 - 1e-12);
  const Vec3 tip = chain.Tip();
  EXPECT_GT(glm::dot(glm::normalize(tip), glm::normalize(target)), 1.0 - 1e-6);
  this->ExpectIntact(chain, before);
}

// A zero-length joint -> target vector, and a target sitting on joints.
TYPED_TEST_P(ChainJobCases, HandlesTargetsOnJointsWithoutNan) {
  for (int joint = 0; joint < 3; ++joint) {
    TestChain chain(Vec3(0.1, 0.2, 0.3), {0.3, 0.25, 0.2});
    chain.locals()[1].rotation = AngleAxis(0.6, Vec3(0.0, 0.0, 1.0));
    chain.locals()[2].rotation = AngleAxis(0.4, Vec3(0.0, 1.0, 0.0));
    const Vec3 target = chain.Positions()[joint];
    const double start = glm::length(chain.Tip() - target);
    const std::vector<Transform> before = chain.locals();
    ASSERT_TRUE(this->Solve(chain, target).ok()) << "joint " << joint;
    EXPECT_TRUE(IsFinite(this->report_.residual));
    EXPECT_LE(this->report_.residual, start) << "joint " << joint;
    this->ExpectIntact(chain, before);
  }
}

// Fully stretched: targets on the chain's own line (in front, inside reach,
// behind), where no bend direction is preferred.
TYPED_TEST_P(ChainJobCases, HandlesAStraightChainWithTargetsOnItsLine) {
  for (const double x : {0.3, 0.6, -0.4, 1.5}) {
    TestChain chain(Vec3(0.0), {0.3, 0.25, 0.2});
    const Vec3 target(x, 0.0, 0.0);
    const double start = glm::length(chain.Tip() - target);
    const std::vector<Transform> before = chain.locals();
    ASSERT_TRUE(this->Solve(chain, target).ok()) << x;
    EXPECT_TRUE(IsFinite(this->report_.residual)) << x;
    EXPECT_LE(this->report_.residual, start + 1e-12) << x;
    this->ExpectIntact(chain, before);
  }
}

TYPED_TEST_P(ChainJobCases, HandlesAFullyFoldedChain) {
  TestChain chain(Vec3(0.0), {0.3, 0.3, 0.3});
  chain.locals()[1].rotation = AngleAxis(kPi, Vec3(0.0, 0.0, 1.0));
  chain.locals()[2].rotation = AngleAxis(kPi, Vec3(0.0, 0.0, 1.0));
  const std::vector<Transform> before = chain.locals();
  const Vec3 target(0.1, 0.4, 0.2);
  const double start = glm::length(chain.Tip() - target);
  ASSERT_TRUE(this->Solve(chain, target).ok());
  EXPECT_TRUE(IsFinite(this->report_.residual));
  EXPECT_LT(this->report_.residual, start);
  this->ExpectIntact(chain, before);
}

TYPED_TEST_P(ChainJobCases, SolvesATwoJointChain) {
  TestChain chain(Vec3(0.0, 1.0, 0.0), {0.4});
  // On the sphere the bone sweeps: reached.
  const Vec3 on_sphere =
      Vec3(0.0, 1.0, 0.0) + 0.4 * glm::normalize(Vec3(-1.0, 2.0, 0.5));
  ASSERT_TRUE(this->Solve(chain, on_sphere).ok());
  EXPECT_TRUE(this->report_.reached);
  EXPECT_LE(glm::length(chain.Tip() - on_sphere), kTestTolerance);
  // Off it: pointed at it.
  const Vec3 far = Vec3(0.0, 1.0, 0.0) + Vec3(0.0, 0.0, -2.0);
  ASSERT_TRUE(this->Solve(chain, far).ok());
  EXPECT_FALSE(this->report_.reached);
  EXPECT_NEAR(this->report_.residual, 1.6, 1e-9);
}

TYPED_TEST_P(ChainJobCases, WorksBelowAMovedParent) {
  TestChain chain(Vec3(0.0, 0.1, 0.0), {0.3, 0.25, 0.2});
  chain.parent().translation = Vec3(1.0, 2.0, 3.0);
  chain.parent().rotation = AngleAxis(1.0, glm::normalize(Vec3(1, 1, 0)));
  chain.parent().scale = Vec3(2.0);
  chain.locals()[1].rotation = AngleAxis(0.5, Vec3(0.0, 0.0, 1.0));
  TestChain goal_pose(Vec3(0.0, 0.1, 0.0), {0.3, 0.25, 0.2});
  goal_pose.parent() = chain.parent();
  goal_pose.locals()[0].rotation = AngleAxis(-0.7, Vec3(0.0, 1.0, 0.0));
  goal_pose.locals()[1].rotation = AngleAxis(1.3, Vec3(0.0, 0.0, 1.0));
  const Vec3 target = goal_pose.Tip();
  ASSERT_TRUE(this->Solve(chain, target).ok());
  EXPECT_TRUE(this->report_.reached);
  EXPECT_LE(glm::length(chain.Tip() - target), kTestTolerance);
}

TYPED_TEST_P(ChainJobCases, StopsAtTheIterationCap) {
  TestChain chain(Vec3(0.0), {0.3, 0.25, 0.2});
  chain.locals()[1].rotation = AngleAxis(0.3, Vec3(0.0, 0.0, 1.0));
  const Vec3 target(-0.1, 0.45, 0.2);
  ASSERT_TRUE(this->Solve(chain, target, /*max_iterations=*/1, 0.0).ok());
  EXPECT_EQ(this->report_.iterations, 1);
  EXPECT_EQ(this->stop_, StopReason::kIterationCap);
  EXPECT_FALSE(this->report_.reached);
}

// Every turned joint ends within its limit, for targets in and out of reach,
// and only limited joints are reported as clamped.
TYPED_TEST_P(ChainJobCases, KeepsEveryJointWithinItsLimit) {
  std::mt19937_64 engine(7);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  int clamped = 0;
  for (int i = 0; i < 200; ++i) {
    TestChain chain(Vec3(0.0), {0.3, 0.25, 0.2, 0.1});
    chain.SetLimit(0, ConeLimit(0.6, 0.3));
    chain.SetLimit(1, HingeLimitAbout(Vec3(0.0, 0.0, 1.0), 0.0, 2.0));
    chain.SetLimit(2, ConeLimit(0.4));
    // Joint 3 is the tip: its limit is not used.
    const Vec3 target = DrawVec3(unit, engine) * (i % 2 ? 0.6 : 1.5);
    const std::vector<Transform> before = chain.locals();
    ASSERT_TRUE(this->Solve(chain, target, 100, 1e-4).ok());
    this->ExpectIntact(chain, before);
    // Joint 0: bone within 0.6 of +X, twist within 0.3.
    const Quat q0 = chain.locals()[0].rotation;
    const Vec3 bone0 = q0 * Vec3(1.0, 0.0, 0.0);
    EXPECT_LE(std::acos(std::min(1.0, bone0.x)), 0.6 + 1e-9) << i;
    // Its twist about +X (the swing has no +X part): within 0.3.
    const double sign = q0.w < 0.0 ? -1.0 : 1.0;
    EXPECT_LE(std::abs(2.0 * std::atan2(sign * q0.x, sign * q0.w)), 0.3 + 1e-9)
        << i;
    // Joint 1: about Z only, angle in [0, 2].
    const Quat q1 = chain.locals()[1].rotation;
    EXPECT_NEAR(glm::length(Vec3(q1.x, q1.y, 0.0)), 0.0, 1e-12) << i;
    const double angle1 = 2.0 * std::atan2(q1.z, q1.w);
    EXPECT_GE(std::remainder(angle1, 2.0 * kPi), -1e-9) << i;
    EXPECT_LE(std::remainder(angle1, 2.0 * kPi), 2.0 + 1e-9) << i;
    // Joint 2: bone within 0.4 of +X.
    const Vec3 bone2 = chain.locals()[2].rotation * Vec3(1.0, 0.0, 0.0);
    EXPECT_LE(std::acos(std::min(1.0, bone2.x)), 0.4 + 1e-9) << i;
    EXPECT_EQ(this->mask_ & ~std::uint64_t{0b111}, 0u) << i;
    if (this->mask_ != 0) ++clamped;
  }
  // Far targets pull joints onto their limits.
  EXPECT_GT(clamped, 50);
}

TYPED_TEST_P(ChainJobCases, ReportsTheJointsHeldAtTheirLimits) {
  TestChain chain(Vec3(0.0), {0.6});
  chain.SetLimit(0, HingeLimitAbout(Vec3(0.0, 0.0, 1.0), -0.5, 0.5));
  // The target asks for a 1.2 rad turn about Z.
  const Vec3 target = 0.6 * Vec3(std::cos(1.2), std::sin(1.2), 0.0);
  ASSERT_TRUE(this->Solve(chain, target).ok());
  EXPECT_EQ(this->mask_, 0b1u);
  EXPECT_FALSE(this->report_.reached);
  const Vec3 tip = chain.Tip();
  EXPECT_NEAR(std::atan2(tip.y, tip.x), 0.5, 1e-9);
  EXPECT_NEAR(this->report_.residual,
              glm::length(target - 0.6 * Vec3(std::cos(0.5), std::sin(0.5), 0)),
              1e-9);
}

TYPED_TEST_P(ChainJobCases, GivesTheSameBitsForTheSameInputs) {
  auto solve = [](ChainWorkspace& workspace) {
    TestChain chain(Vec3(0.0), {0.3, 0.25, 0.2, 0.15});
    chain.SetLimit(1, HingeLimitAbout(Vec3(0.0, 0.0, 1.0), -0.1, 2.4));
    chain.SetLimit(2, ConeLimit(0.5, 0.2));
    chain.locals()[1].rotation = AngleAxis(0.2, Vec3(0.0, 0.0, 1.0));
    SolveReport report;
    StopReason stop;
    std::uint64_t mask;
    TypeParam job = chain.MakeJob<TypeParam>(Vec3(0.2, 0.5, -0.3), &workspace,
                                             &report, &stop, &mask);
    job.tolerance = 1e-9;
    EXPECT_TRUE(job.Run().ok());
    return std::make_tuple(chain.locals(), report.residual, report.iterations,
                           stop, mask);
  };
  ChainWorkspace fresh;
  const auto first = solve(fresh);
  // A workspace left dirty by another solve.
  TestChain other(Vec3(1.0), {0.5, 0.5});
  ASSERT_TRUE(this->Solve(other, Vec3(1.2, 0.4, 0.1)).ok());
  const auto second = solve(this->workspace_);
  const std::vector<Transform>& a = std::get<0>(first);
  const std::vector<Transform>& b = std::get<0>(second);
  EXPECT_EQ(std::memcmp(a.data(), b.data(), a.size() * sizeof(Transform)), 0);
  EXPECT_EQ(
      std::memcmp(&std::get<1>(first), &std::get<1>(second), sizeof(double)),
      0);
  EXPECT_EQ(std::get<2>(first), std::get<2>(second));
  EXPECT_EQ(std::get<3>(first), std::get<3>(second));
  EXPECT_EQ(std::get<4>(first), std::get<4>(second));
}

REGISTER_TYPED_TEST_SUITE_P(
    ChainJobCases, ReachesAReachableTargetWithinTolerance,
    StopsBeforeIteratingWhenTheTipIsThere, ReachesTowardsAnUnreachableTarget,
    HandlesTargetsOnJointsWithoutNan, HandlesAStraightChainWithTargetsOnItsLine,
    HandlesAFullyFoldedChain, SolvesATwoJointChain, WorksBelowAMovedParent,
    StopsAtTheIterationCap, KeepsEveryJointWithinItsLimit,
    ReportsTheJointsHeldAtTheirLimits, GivesTheSameBitsForTheSameInputs);

}  // namespace ik::testing

#endif  // IK_TESTS_CORE_CHAIN_JOB_CASES_H_
