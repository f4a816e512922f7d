#include "ik/solvers/ccd.h"

#include <cmath>
#include <cstdint>

#include "chain_fixtures.h"
#include "chain_job_cases.h"
#include "gtest/gtest.h"

namespace ik {
namespace testing {
namespace {

INSTANTIATE_TYPED_TEST_SUITE_P(Ccd, ChainJobCases, CcdJob);

class CcdJobTest : public ::testing::Test {
 protected:
  ChainWorkspace workspace_;
  SolveReport report_;
  StopReason stop_ = StopReason::kReached;
  std::uint64_t mask_ = 0;
};

TEST_F(CcdJobTest, ASingleSweepAimsEachJointFromTheTipBack) {
  // Two joints, one bone: one turn of the root lands any target on the
  // sphere the bone sweeps.
  TestChain chain(Vec3(0.0), {0.5});
  const Vec3 target = 0.5 * glm::normalize(Vec3(-0.3, 0.8, 0.2));
  CcdJob job = chain.MakeJob<CcdJob>(target, &workspace_, &report_, &stop_);
  job.tolerance = 1e-12;
  ASSERT_TRUE(job.Run().ok());
  EXPECT_EQ(report_.iterations, 1);
  EXPECT_EQ(stop_, StopReason::kReached);
  EXPECT_LE(glm::length(chain.Tip() - target), 1e-12);
}

TEST_F(CcdJobTest, SolvesAFreeThreeJointChainInOneSweep) {
  // Root and second joint without limits: the sweep ends with the two-bone
  // step, so one sweep lands any target in reach, the straight chain's
  // targets on its own line included.
  TestChain goal_pose(Vec3(0.0, 1.0, 0.0), {0.3, 0.25});
  goal_pose.locals()[0].rotation =
      AngleAxis(0.8, glm::normalize(Vec3(1, 2, 3)));
  goal_pose.locals()[1].rotation = AngleAxis(1.1, Vec3(0.0, 0.0, 1.0));
  for (const Vec3& target :
       {goal_pose.Tip(), Vec3(0.45, 1.0, 0.0), Vec3(0.1, 1.0, 0.0)}) {
    TestChain chain(Vec3(0.0, 1.0, 0.0), {0.3, 0.25});
    CcdJob job = chain.MakeJob<CcdJob>(target, &workspace_, &report_, &stop_);
    job.tolerance = 1e-9;
    ASSERT_TRUE(job.Run().ok());
    EXPECT_EQ(report_.iterations, 1) << target.x;
    EXPECT_EQ(stop_, StopReason::kReached) << target.x;
    EXPECT_LE(glm::length(chain.Tip() - target), 1e-9) << target.x;
  }
}

TEST_F(CcdJobTest, BendsAStraightHingeForATargetOnItsLine) {
  // A straight chain whose middle joint is a hinge, the target on the
  // chain's line inside reach: CCD alone finds no turn (joint -> tip and
  // joint -> target are parallel); the hinge takes the two-bone turn.
  TestChain chain(Vec3(0.0), {0.3, 0.3});
  chain.SetLimit(1, HingeLimitAbout(Vec3(0.0, 0.0, 1.0), 0.0, 2.5));
  const Vec3 target(0.45, 0.0, 0.0);
  CcdJob job =
      chain.MakeJob<CcdJob>(target, &workspace_, &report_, &stop_, &mask_);
  job.tolerance = 1e-9;
  ASSERT_TRUE(job.Run().ok());
  EXPECT_TRUE(report_.reached) << report_.residual;
  const Quat elbow = chain.locals()[1].rotation;
  EXPECT_GT(2.0 * std::atan2(elbow.z, elbow.w), 0.0);  // bent the allowed way
}

TEST_F(CcdJobTest, BendsAHingeTheAllowedWayRoundForATargetBehindIt) {
  // The hinge bends towards +Y only, the target asks for a bend towards -Y
  // as the chain lies: the root must turn the chain over.
  TestChain chain(Vec3(0.0), {0.3, 0.3});
  chain.locals()[1].rotation = AngleAxis(0.3, Vec3(0.0, 0.0, 1.0));
  chain.SetLimit(1, HingeLimitAbout(Vec3(0.0, 0.0, 1.0), -0.3, 2.2));
  const Vec3 target(0.4, -0.2, 0.0);
  CcdJob job =
      chain.MakeJob<CcdJob>(target, &workspace_, &report_, &stop_, &mask_);
  job.tolerance = 1e-9;
  ASSERT_TRUE(job.Run().ok());
  EXPECT_TRUE(report_.reached) << report_.residual;
}

TEST_F(CcdJobTest, ReachesTargetsThatNeedTheTwistLimitRespected) {
  // Joint 0 may twist by at most 0.1 rad; shortest-arc aims at targets out
  // of the bent chain's plane twist it more. Turning about the joint ->
  // target line instead (which keeps the tip on that line) stays within the
  // limit. Targets: where the tip is in poses within the limits.
  for (int i = 0; i < 8; ++i) {
    TestChain chain(Vec3(0.0), {0.3, 0.3});
    chain.locals()[1].rotation = AngleAxis(1.2, Vec3(0.0, 0.0, 1.0));
    chain.SetLimit(0, ConeLimit(1.5, 0.1));
    chain.SetLimit(1, HingeLimitAbout(Vec3(0.0, 0.0, 1.0), -1.2, 1.3));
    TestChain goal_pose(Vec3(0.0), {0.3, 0.3});
    const Vec3 direction = AngleAxis(0.8 * i, Vec3(1.0, 0.0, 0.0)) *
                           glm::normalize(Vec3(1.0, 0.8, 0.0));
    goal_pose.locals()[0].rotation =
        FromTo(Vec3(1.0, 0.0, 0.0), direction) *
        AngleAxis(i % 2 ? 0.09 : -0.09, Vec3(1.0, 0.0, 0.0));
    goal_pose.locals()[1].rotation = AngleAxis(0.9, Vec3(0.0, 0.0, 1.0));
    const Vec3 target = goal_pose.Tip();
    CcdJob job =
        chain.MakeJob<CcdJob>(target, &workspace_, &report_, &stop_, &mask_);
    job.tolerance = 1e-9;
    job.max_iterations = 500;
    ASSERT_TRUE(job.Run().ok());
    EXPECT_TRUE(report_.reached) << i << ": " << report_.residual;
    const Quat root = chain.locals()[0].rotation;
    const double sign = root.w < 0.0 ? -1.0 : 1.0;
    EXPECT_LE(std::abs(2.0 * std::atan2(sign * root.x, sign * root.w)),
              0.1 + 1e-9);
  }
}

}  // namespace
}  // namespace testing
}  // namespace ik
