#include "ik/solvers/fabrik.h"

#include <cmath>

#include "chain_fixtures.h"
#include "chain_job_cases.h"
#include "gtest/gtest.h"

namespace ik {
namespace testing {
namespace {

INSTANTIATE_TYPED_TEST_SUITE_P(Fabrik, ChainJobCases, FabrikJob);

class FabrikJobTest : public ::testing::Test {
 protected:
  ChainWorkspace workspace_;
  SolveReport report_;
  StopReason stop_ = StopReason::kReached;
};

TEST_F(FabrikJobTest, ReachesStraightAtAnUnreachableTargetInOneIteration) {
  TestChain chain(Vec3(0.0, 1.0, 0.0), {0.3, 0.25, 0.2});
  chain.locals()[1].rotation = AngleAxis(1.0, Vec3(0.0, 0.0, 1.0));
  const Vec3 target(2.0, 1.0, -1.0);
  FabrikJob job =
      chain.MakeJob<FabrikJob>(target, &workspace_, &report_, &stop_);
  ASSERT_TRUE(job.Run().ok());
  // One iteration lays the chain straight; the next cannot improve on it.
  EXPECT_EQ(report_.iterations, 2);
  EXPECT_EQ(stop_, StopReason::kNoImprovement);
  const double distance = glm::length(target - Vec3(0.0, 1.0, 0.0));
  EXPECT_NEAR(report_.residual, distance - 0.75, 1e-12);
  const std::vector<Vec3> positions = chain.Positions();
  const Vec3 direction = (target - positions[0]) / distance;
  for (const Vec3& position : positions) {
    EXPECT_NEAR(glm::length(glm::cross(position - positions[0], direction)),
                0.0, 1e-12);
  }
}

TEST_F(FabrikJobTest, ConvergesOnAnAlmostStraightChain) {
  // A target just inside reach in front of a straight chain: FABRIK
  // converges (slowly, as it does at the edge of reach).
  TestChain chain(Vec3(0.0), {0.3, 0.3, 0.3});
  chain.locals()[1].rotation = AngleAxis(1e-3, Vec3(0.0, 0.0, 1.0));
  const Vec3 target(0.85, 0.05, 0.0);
  FabrikJob job =
      chain.MakeJob<FabrikJob>(target, &workspace_, &report_, &stop_);
  job.tolerance = 1e-6;
  job.max_iterations = 500;
  ASSERT_TRUE(job.Run().ok());
  EXPECT_TRUE(report_.reached) << report_.residual;
}

TEST_F(FabrikJobTest, AlignsAHingeWithTheBendItIsAskedFor) {
  // A hinge about Z on joint 1, bending only towards +Y (angles >= 0); the
  // target lies out of the hinge's plane: joint 0 must turn the plane.
  TestChain chain(Vec3(0.0), {0.3, 0.3});
  chain.SetLimit(1, HingeLimitAbout(Vec3(0.0, 0.0, 1.0), 0.0, 2.5));
  const Vec3 target(0.2, 0.1, 0.35);
  FabrikJob job =
      chain.MakeJob<FabrikJob>(target, &workspace_, &report_, &stop_);
  job.tolerance = 1e-6;
  ASSERT_TRUE(job.Run().ok());
  EXPECT_TRUE(report_.reached) << report_.residual;
  const Quat elbow = chain.locals()[1].rotation;
  EXPECT_NEAR(glm::length(Vec3(elbow.x, elbow.y, 0.0)), 0.0, 1e-12);
}

TEST_F(FabrikJobTest, KeepsAHingeWithinItsRangeByMovingItsParent) {
  // The straight chain would need to fold beyond the hinge's range to reach
  // a target near its root; FABRIK keeps the hinge in range and gets as
  // near as that allows.
  TestChain chain(Vec3(0.0), {0.3, 0.3});
  chain.SetLimit(1, HingeLimitAbout(Vec3(0.0, 0.0, 1.0), 0.0, 2.0));
  const Vec3 target(0.05, 0.05, 0.0);
  std::uint64_t mask = 0;
  FabrikJob job =
      chain.MakeJob<FabrikJob>(target, &workspace_, &report_, &stop_, &mask);
  ASSERT_TRUE(job.Run().ok());
  EXPECT_FALSE(report_.reached);
  EXPECT_EQ(mask, 0b10u);
  // Folded as far as allowed (2 rad between the bones), the tip is
  // 2 * 0.3 * cos(1) from the root, and pointed at the target.
  const double closest = 2.0 * 0.3 * std::cos(1.0);
  EXPECT_NEAR(glm::length(chain.Tip()), closest, 1e-9);
  EXPECT_GE(report_.residual, closest - glm::length(target) - 1e-12);
  EXPECT_LE(report_.residual, closest - glm::length(target) + 1e-3);
}

}  // namespace
}  // namespace testing
}  // namespace ik
