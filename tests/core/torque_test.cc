#include "ik/solvers/torque.h"

#include <cmath>
#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "chain_fixtures.h"
#include "chain_job_cases.h"
#include "gtest/gtest.h"

namespace ik {
namespace testing {
namespace {

// The shared chain-job behaviour for both steps: damped (the default) and
// plain Jacobian transpose.
struct PlainTorqueJob : TorqueJob {
  PlainTorqueJob() { settings.damping = 0.0; }
};
using TorqueVariants = ::testing::Types<TorqueJob, PlainTorqueJob>;
INSTANTIATE_TYPED_TEST_SUITE_P(Torque, ChainJobCases, TorqueVariants);

class TorqueJobTest : public ::testing::Test {
 protected:
  ChainWorkspace workspace_;
  SolveReport report_;
  StopReason stop_ = StopReason::kReached;
  std::uint64_t mask_ = 0;
};

// Bend of a local rotation (identity rest): its rotation angle, radians.
double Bend(const Quat& local) {
  return 2.0 * std::atan2(glm::length(Vec3(local.x, local.y, local.z)),
                          std::abs(local.w));
}

TEST_F(TorqueJobTest, RejectsBadSettingsNamingTheField) {
  TestChain chain(Vec3(0.0), {0.3, 0.25});
  std::vector<TorqueJointSettings> joints(3);
  auto expect_invalid = [&](const TorqueJob& job, const char* message) {
    const absl::Status status = job.Run();
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << message;
    EXPECT_NE(status.message().find(message), absl::string_view::npos)
        << status.message();
  };
  auto job = [&] {
    TorqueJob torque =
        chain.MakeJob<TorqueJob>(Vec3(0.1, 0.2, 0.0), &workspace_, &report_);
    torque.settings.joints = joints;
    return torque;
  };
  ASSERT_TRUE(job().Run().ok());
  {
    TorqueJob torque = job();
    torque.report = nullptr;  // the chain's own checks come first
    expect_invalid(torque, "report: null");
  }
  {
    TorqueJob torque = job();
    torque.settings.gain = 0.0;
    expect_invalid(torque, "settings.gain: must be in (0, 1], got 0");
  }
  {
    TorqueJob torque = job();
    torque.settings.gain = 1.5;
    expect_invalid(torque, "settings.gain");
  }
  {
    TorqueJob torque = job();
    torque.settings.damping = -0.1;
    expect_invalid(torque, "settings.damping: must be finite and >= 0");
  }
  {
    TorqueJob torque = job();
    torque.settings.damping = std::nan("");
    expect_invalid(torque, "settings.damping");
  }
  {
    TorqueJob torque = job();
    torque.settings.max_step = 4.0;
    expect_invalid(torque, "settings.max_step: must be in (0, pi]");
  }
  {
    TorqueJob torque = job();
    torque.settings.root_stiffness = 0.0;
    expect_invalid(torque, "settings.root_stiffness: must be finite and > 0");
  }
  {
    TorqueJob torque = job();
    torque.settings.joints = absl::MakeConstSpan(joints).subspan(0, 2);
    expect_invalid(torque, "settings.joints: 2 for 3 joints");
  }
  joints[1].stiffness = -1.0;
  expect_invalid(job(), "settings.joints[1].stiffness: must be finite and > 0");
  joints[1] = TorqueJointSettings();
  joints[2].elasticity = -0.5;
  expect_invalid(job(), "settings.joints[2].elasticity");
  joints[2] = TorqueJointSettings();
  joints[0].comfort = 3.5;
  expect_invalid(job(), "settings.joints[0].comfort: must be in [0, pi]");
  joints[0] = TorqueJointSettings();
  joints[0].preferred_rotation = Quat(0.0, 0.0, 0.0, 0.0);
  expect_invalid(job(), "settings.joints[0].preferred_rotation: not a unit");
}

TEST_F(TorqueJobTest, APlainStepMovesTheTipAlongTheForceAtFirst) {
  // One iteration of the plain step from a bent chain: the tip moves
  // towards the target (the torques are the gradient), by a step whose
  // predicted move matches the force.
  TestChain chain(Vec3(0.0), {0.3, 0.3, 0.3});
  chain.locals()[1].rotation = AngleAxis(0.4, Vec3(0.0, 0.0, 1.0));
  const Vec3 start = chain.Tip();
  const Vec3 target = start + Vec3(-0.02, 0.03, 0.01);
  TorqueJob job = chain.MakeJob<TorqueJob>(target, &workspace_, &report_);
  job.settings.damping = 0.0;
  job.max_iterations = 1;
  job.tolerance = 0.0;
  ASSERT_TRUE(job.Run().ok());
  EXPECT_LT(report_.residual, 0.5 * glm::length(target - start));
}

TEST_F(TorqueJobTest, ConvergesFasterDampedThanPlain) {
  int iterations[2] = {0, 0};
  for (const int damped : {0, 1}) {
    TestChain chain(Vec3(0.0), {0.3, 0.25, 0.2, 0.15, 0.1});
    for (int j = 0; j < 5; ++j) {
      chain.locals()[j].rotation = AngleAxis(0.3, Vec3(0.0, 0.0, 1.0));
    }
    TorqueJob job =
        chain.MakeJob<TorqueJob>(Vec3(0.2, 0.6, 0.3), &workspace_, &report_);
    job.settings.damping = damped ? 0.05 : 0.0;
    job.max_iterations = 1000;
    job.tolerance = 1e-6;
    ASSERT_TRUE(job.Run().ok());
    EXPECT_TRUE(report_.reached) << damped << ": " << report_.residual;
    iterations[damped] = report_.iterations;
  }
  EXPECT_LT(iterations[1], iterations[0]);
}

TEST_F(TorqueJobTest, ElasticitySpreadsTheBendAlongTheChain) {
  // A 6-bone chain with all its bend in joint 2, reaching a little further:
  // without springs the step turns every joint a little and joint 2 stays
  // bent; with springs towards the straight pose the bend spreads.
  double largest[2] = {0.0, 0.0};
  for (const int elastic : {0, 1}) {
    TestChain chain(Vec3(0.0), {0.2, 0.2, 0.2, 0.2, 0.2, 0.2});
    chain.locals()[2].rotation = AngleAxis(1.2, Vec3(0.0, 0.0, 1.0));
    const Vec3 target = chain.Tip() + Vec3(0.03, 0.02, 0.01);
    std::vector<TorqueJointSettings> joints(7);
    for (TorqueJointSettings& joint : joints) joint.elasticity = 4.0 * elastic;
    TorqueJob job = chain.MakeJob<TorqueJob>(target, &workspace_, &report_);
    job.settings.joints = joints;
    job.max_iterations = 300;
    job.tolerance = 1e-6;
    ASSERT_TRUE(job.Run().ok());
    EXPECT_TRUE(report_.reached) << elastic << ": " << report_.residual;
    for (int j = 0; j < 6; ++j) {
      largest[elastic] =
          std::max(largest[elastic], Bend(chain.locals()[j].rotation));
    }
  }
  EXPECT_GT(largest[0], 1.0);
  EXPECT_LT(largest[1], 0.5 * largest[0]);
}

TEST_F(TorqueJobTest, AStifferRootTurnsLess) {
  double root_bend[2] = {0.0, 0.0};
  for (const int stiff : {0, 1}) {
    TestChain chain(Vec3(0.0), {0.2, 0.2, 0.2, 0.2});
    chain.locals()[1].rotation = AngleAxis(0.1, Vec3(0.0, 0.0, 1.0));
    TorqueJob job =
        chain.MakeJob<TorqueJob>(Vec3(0.4, 0.5, 0.0), &workspace_, &report_);
    job.settings.root_stiffness = stiff ? 8.0 : 1.0;
    job.tolerance = 1e-6;
    job.max_iterations = 300;
    ASSERT_TRUE(job.Run().ok());
    EXPECT_TRUE(report_.reached) << stiff << ": " << report_.residual;
    root_bend[stiff] = Bend(chain.locals()[0].rotation);
  }
  EXPECT_LT(root_bend[1], root_bend[0]);
}

TEST_F(TorqueJobTest, ComfortRangeHasNoResistanceInside) {
  // With a comfort range wider than any bend the target needs, the springs
  // never act: the same bits as without them.
  std::vector<Transform> answers[2];
  for (const int springs : {0, 1}) {
    TestChain chain(Vec3(0.0), {0.3, 0.3, 0.3});
    chain.locals()[1].rotation = AngleAxis(0.3, Vec3(0.0, 0.0, 1.0));
    std::vector<TorqueJointSettings> joints(4);
    for (TorqueJointSettings& joint : joints) {
      joint.elasticity = springs ? 5.0 : 0.0;
      joint.comfort = 2.5;
    }
    TorqueJob job =
        chain.MakeJob<TorqueJob>(Vec3(0.5, 0.5, 0.2), &workspace_, &report_);
    job.settings.joints = joints;
    job.tolerance = 1e-6;
    ASSERT_TRUE(job.Run().ok());
    EXPECT_TRUE(report_.reached);
    answers[springs] = chain.locals();
  }
  for (int j = 0; j < 4; ++j) {
    EXPECT_EQ(answers[0][j].rotation, answers[1][j].rotation) << j;
  }
}

TEST_F(TorqueJobTest, StaysNearThePreferredPoseWhileReaching) {
  // Preferred: every joint bent 0.4 rad about Z. From the straight pose,
  // reaching for a target near the preferred pose's tip, the answer ends
  // closer to the preferred pose with springs than without.
  TestChain preferred_pose(Vec3(0.0), {0.2, 0.2, 0.2, 0.2, 0.2});
  const Quat bent = AngleAxis(0.4, Vec3(0.0, 0.0, 1.0));
  for (int j = 0; j < 5; ++j) preferred_pose.locals()[j].rotation = bent;
  const Vec3 target = preferred_pose.Tip() + Vec3(0.05, -0.05, 0.05);
  double distance[2] = {0.0, 0.0};
  for (const int springs : {0, 1}) {
    TestChain chain(Vec3(0.0), {0.2, 0.2, 0.2, 0.2, 0.2});
    std::vector<TorqueJointSettings> joints(6);
    for (TorqueJointSettings& joint : joints) {
      joint.elasticity = springs ? 4.0 : 0.0;
      joint.preferred_rotation = bent;
    }
    TorqueJob job = chain.MakeJob<TorqueJob>(target, &workspace_, &report_);
    job.settings.joints = joints;
    job.tolerance = 1e-6;
    job.max_iterations = 300;
    ASSERT_TRUE(job.Run().ok());
    EXPECT_TRUE(report_.reached) << springs << ": " << report_.residual;
    for (int j = 0; j < 5; ++j) {
      distance[springs] +=
          Bend(glm::conjugate(bent) * chain.locals()[j].rotation);
    }
  }
  EXPECT_LT(distance[1], 0.5 * distance[0]);
}

TEST_F(TorqueJobTest, TurnsATwistJointAboutItsBone) {
  // Elias's twist joint: joint 0 turns only about its own bone (+X),
  // joint 1 is fixed at a right angle. The torque about the bone comes
  // from the joint -> tip vector (the bone itself would give none); a
  // quarter turn about the bone reaches the target.
  TestChain chain(Vec3(0.0), {0.3, 0.3});
  chain.locals()[1].rotation = AngleAxis(0.5 * kPi, Vec3(0.0, 0.0, 1.0));
  chain.SetLimit(0, HingeLimitAbout(Vec3(1.0, 0.0, 0.0), -kPi, kPi));
  chain.SetLimit(1, HingeLimitAbout(Vec3(0.0, 0.0, 1.0), 0.0, 0.0));
  const Vec3 target(0.3, 0.0, 0.3);
  TorqueJob job = chain.MakeJob<TorqueJob>(target, &workspace_, &report_);
  job.tolerance = 1e-9;
  ASSERT_TRUE(job.Run().ok());
  EXPECT_TRUE(report_.reached) << report_.residual;
  const Quat root = chain.locals()[0].rotation;
  EXPECT_NEAR(2.0 * std::atan2(root.x, root.w), 0.5 * kPi, 1e-6);
}

TEST_F(TorqueJobTest, TurnsAHingeOnlyAboutItsAxis) {
  TestChain chain(Vec3(0.0), {0.3, 0.3, 0.2});
  chain.SetLimit(1, HingeLimitAbout(Vec3(0.0, 0.0, 1.0), 0.0, 2.5));
  chain.locals()[1].rotation = AngleAxis(0.5, Vec3(0.0, 0.0, 1.0));
  TorqueJob job = chain.MakeJob<TorqueJob>(Vec3(0.3, 0.4, 0.2), &workspace_,
                                           &report_, &stop_, &mask_);
  job.tolerance = 1e-6;
  job.max_iterations = 300;
  ASSERT_TRUE(job.Run().ok());
  EXPECT_TRUE(report_.reached) << report_.residual;
  const Quat hinge = chain.locals()[1].rotation;
  EXPECT_NEAR(glm::length(Vec3(hinge.x, hinge.y, 0.0)), 0.0, 1e-12);
  EXPECT_EQ(mask_, 0u);
}

}  // namespace
}  // namespace testing
}  // namespace ik
