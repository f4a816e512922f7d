#include "ik/dynamics/dynamics.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "absl/status/status.h"
#include "dynamics_fixtures.h"
#include "gtest/gtest.h"

namespace ik {
namespace {

using testing::Simulation;
using testing::StraightChain;
using testing::StraightPose;
using testing::TwistAngleAbout;

const Vec3 kRoot(0.0, 1.5, 0.0);
const Vec3 kAlongX(1.0, 0.0, 0.0);
const Vec3 kDown(0.0, -1.0, 0.0);

double MaxMove(const std::vector<Vec3>& before,
               const std::vector<Vec3>& after) {
  double worst = 0.0;
  for (size_t i = 0; i < before.size(); ++i) {
    worst = std::max(worst, glm::length(after[i] - before[i]));
  }
  return worst;
}

bool AllFinite(const Simulation& simulation) {
  for (const Vec3& p : simulation.positions()) {
    if (!IsFinite(p)) return false;
  }
  for (const Quat& q : simulation.rotations_world()) {
    if (!IsFinite(q)) return false;
  }
  for (const Quat& q : simulation.corrections_local()) {
    if (!IsFinite(q)) return false;
  }
  return true;
}

TEST(StepDynamicsJobTest, SettlesHangingUnderGravityAndStaysPut) {
  // Animated horizontally; gravity should bring it down to hang.
  DynamicChain chain = StraightChain(6, 0.1);
  Simulation simulation(chain, StraightPose(chain, kRoot, kAlongX));
  for (int step = 0; step < 600; ++step) {  // 10 s at 60 Hz
    ASSERT_TRUE(simulation.Step(1.0 / 60.0).ok());
  }
  EXPECT_LT(simulation.tip().y, kRoot.y - 0.99 * 0.5);
  EXPECT_NEAR(simulation.tip().x, kRoot.x, 0.05);
  EXPECT_LT(simulation.MaxRelativeLengthError(), 1e-5);

  const std::vector<Vec3> settled = simulation.positions();
  for (int step = 0; step < 120; ++step) {
    ASSERT_TRUE(simulation.Step(1.0 / 60.0).ok());
  }
  EXPECT_LT(MaxMove(settled, simulation.positions()), 1e-6);
  EXPECT_LT(simulation.MaxRelativeLengthError(), 1e-5);
}

TEST(StepDynamicsJobTest, FullDragStopsMotionWhenTheRootStops) {
  DynamicChain chain = StraightChain(5, 0.1);
  chain.gravity = Vec3(0.0);
  chain.drag = 1.0;
  Simulation simulation(chain, StraightPose(chain, kRoot, kDown));
  for (int step = 0; step < 30; ++step) {  // drag the root sideways
    simulation.MoveTo(kRoot + Vec3(0.01 * step, 0.0, 0.0));
    ASSERT_TRUE(simulation.Step(1.0 / 60.0).ok());
  }
  // One more step lets the root finish its slide to the animated position.
  ASSERT_TRUE(simulation.Step(1.0 / 60.0).ok());
  const std::vector<Vec3> stopped = simulation.positions();
  for (int step = 0; step < 60; ++step) {
    ASSERT_TRUE(simulation.Step(1.0 / 60.0).ok());
  }
  EXPECT_LT(MaxMove(stopped, simulation.positions()), 1e-12);
}

// How far the bob travels during the 5th second of a simple pendulum (one
// 0.5 m bone; longer chains swing chaotically) released from horizontal;
// `lowest_x` gets the smallest x it reached (it starts at +x and hangs at
// x = 0).
double LateSwing(double drag, double* lowest_x = nullptr) {
  DynamicChain chain = StraightChain(2, 0.5);
  chain.drag = drag;
  Simulation simulation(chain, StraightPose(chain, kRoot, kAlongX));
  double travel = 0.0;
  double lowest = 1e9;
  Vec3 before(0.0);
  for (int step = 0; step < 300; ++step) {
    EXPECT_TRUE(simulation.Step(1.0 / 60.0).ok());
    if (step > 240) travel += glm::length(simulation.tip() - before);
    before = simulation.tip();
    lowest = std::min(lowest, before.x);
  }
  if (lowest_x != nullptr) *lowest_x = lowest;
  return travel;
}

TEST(StepDynamicsJobTest, NoDragSwingsLongest) {
  const double free = LateSwing(0.0);
  const double light = LateSwing(0.005);
  const double heavy = LateSwing(0.05);
  EXPECT_GT(free, 0.5);  // still swinging metres per second after 4 s
  EXPECT_GT(free, light);
  EXPECT_GT(light, heavy);
}

TEST(StepDynamicsJobTest, FullDragCreepsDownWithoutSwinging) {
  // r = 1 removes all velocity each substep: gravity alone moves the joints
  // (by g_v dt^2 per substep), so the tip never swings past the vertical.
  double lowest_x = 0.0;
  LateSwing(1.0, &lowest_x);
  EXPECT_GE(lowest_x, -1e-9);
  double free_lowest_x = 0.0;
  LateSwing(0.0, &free_lowest_x);
  EXPECT_LT(free_lowest_x, -0.1);  // the control swings through
}

// A chain hanging from a root that slides sideways over `collider`, then
// holds still; every step must leave every joint outside it.
void ExpectPushedOutside(const Collider& collider) {
  const double joint_radius = 0.02;
  DynamicChain chain = StraightChain(7, 0.08, joint_radius);
  chain.drag = 0.02;
  const Vec3 start(-0.5, 1.2, 0.0);
  Simulation simulation(chain, StraightPose(chain, start, kDown));
  simulation.colliders().push_back(collider);
  const double reach = collider.radius + joint_radius;
  double closest = 1e9;
  for (int step = 0; step < 480; ++step) {  // 4 s at 120 Hz
    const double t = std::min(1.0, step / 240.0);
    simulation.MoveTo(start + Vec3(1.0 * t, 0.0, 0.0));
    ASSERT_TRUE(simulation.Step(1.0 / 120.0).ok());
    ASSERT_TRUE(AllFinite(simulation));
    for (size_t i = 1; i < chain.joints.size(); ++i) {
      const Vec3 p = simulation.positions()[i];
      const double distance = glm::length(
          p - ClosestPointOnSegment(p, collider.start, collider.end));
      closest = std::min(closest, distance);
      ASSERT_GE(distance, reach - 1e-4) << "joint " << i << " step " << step;
    }
    ASSERT_LT(simulation.MaxRelativeLengthError(), 1e-5) << "step " << step;
  }
  // The chain did meet the collider.
  EXPECT_LT(closest, reach + 1e-3);
}

TEST(StepDynamicsJobTest, ChainPushedIntoSphereEndsOutsideIt) {
  ExpectPushedOutside(SphereCollider(Vec3(0.0, 0.85, 0.0), 0.15));
}

TEST(StepDynamicsJobTest, ChainPushedIntoCapsuleEndsOutsideIt) {
  ExpectPushedOutside(
      CapsuleCollider(Vec3(0.0, 0.85, -0.3), Vec3(0.05, 0.8, 0.3), 0.1));
}

TEST(StepDynamicsJobTest, ParentInsideColliderGivesNoNan) {
  DynamicChain chain = StraightChain(4, 0.1, 0.02);
  Simulation simulation(chain, StraightPose(chain, kRoot, kDown));
  // The root and its first bones sit inside a big sphere and a capsule.
  simulation.colliders().push_back(SphereCollider(kRoot, 0.5));
  simulation.colliders().push_back(
      CapsuleCollider(kRoot, kRoot + Vec3(0.0, -0.2, 0.0), 0.3));
  for (int step = 0; step < 120; ++step) {
    ASSERT_TRUE(simulation.Step(1.0 / 60.0).ok());
    ASSERT_TRUE(AllFinite(simulation));
    ASSERT_LT(simulation.MaxRelativeLengthError(), 1e-9);
  }
}

// The tip's trajectory sampled every 1/30 s over one second of a root
// swaying in gusty wind, stepped at `rate` Hz from a common start at t = 0.
std::vector<Vec3> SwayTrajectory(int rate) {
  DynamicChain chain = StraightChain(6, 0.1, 0.01);
  chain.drag = 0.02;
  chain.wind.strength = 4.0;
  chain.wind.direction = Vec3(0.0, 0.0, 1.0);
  chain.wind.turbulence = 0.6;
  chain.wind.gust_frequency = 2.0;
  chain.wind.seed = 7;
  Simulation simulation(chain, StraightPose(chain, kRoot, kDown));
  EXPECT_TRUE(simulation.Step(0.0).ok());  // both start at rest at t = 0
  std::vector<Vec3> samples;
  const int per_sample = rate / 30;
  for (int step = 1; step <= rate; ++step) {
    const double time = static_cast<double>(step) / rate;
    simulation.MoveTo(kRoot + Vec3(0.15 * std::sin(2.0 * kPi * 0.7 * time), 0.0,
                                   0.045 * std::sin(2.0 * kPi * 0.91 * time)));
    EXPECT_TRUE(simulation.Step(1.0 / rate).ok());
    if (step % per_sample == 0) samples.push_back(simulation.tip());
  }
  return samples;
}

TEST(StepDynamicsJobTest, ThirtyAndHundredTwentyHertzCallersAgree) {
  const std::vector<Vec3> slow = SwayTrajectory(30);
  const std::vector<Vec3> fast = SwayTrajectory(120);
  ASSERT_EQ(slow.size(), 30u);
  ASSERT_EQ(fast.size(), 30u);
  double worst = 0.0;
  for (size_t i = 0; i < slow.size(); ++i) {
    worst = std::max(worst, glm::length(slow[i] - fast[i]));
  }
  EXPECT_LT(worst, 0.01);
  // The motion is not trivial: the tip travelled metres.
  double travel = 0.0;
  for (size_t i = 1; i < fast.size(); ++i) {
    travel += glm::length(fast[i] - fast[i - 1]);
  }
  EXPECT_GT(travel, 1.0);
}

// The largest twist, about its animated bone, of any joint's world-space
// rotation delta after 10,000 steps of circling the root in gusty wind with
// smoothed rotations.
double TwistAfterSwinging(bool remove_twist) {
  DynamicChain chain = StraightChain(6, 0.1);
  chain.drag = 0.01;
  chain.rotation_blend = 0.3;
  chain.remove_twist = remove_twist;
  chain.wind.strength = 6.0;
  chain.wind.direction = Vec3(1.0, 0.0, 0.5);
  chain.wind.turbulence = 1.0;
  chain.wind.gust_frequency = 1.5;
  chain.wind.seed = 99;
  Simulation simulation(chain, StraightPose(chain, kRoot, kDown));
  for (int step = 0; step < 10000; ++step) {
    const double time = step / 60.0;
    simulation.MoveTo(
        kRoot + 0.25 * Vec3(std::cos(3.0 * time), 0.0, std::sin(3.0 * time)));
    EXPECT_TRUE(simulation.Step(1.0 / 60.0).ok());
  }
  EXPECT_TRUE(AllFinite(simulation));
  double worst = 0.0;
  for (size_t i = 0; i + 1 < chain.joints.size(); ++i) {
    const Transform& animated = simulation.animated()[i];
    const Quat delta =
        simulation.rotations_world()[i] * glm::conjugate(animated.rotation);
    const Vec3 bone = glm::normalize(simulation.animated()[i + 1].translation -
                                     animated.translation);
    worst = std::max(worst, std::abs(TwistAngleAbout(delta, bone)));
  }
  return worst;
}

TEST(StepDynamicsJobTest, TwistStaysRemovedAfterTenThousandSteps) {
  EXPECT_LT(TwistAfterSwinging(/*remove_twist=*/true), 1e-3);
}

TEST(StepDynamicsJobTest, TwistAccumulatesWithoutRemoval) {
  // The control: the same motion winds the smoothed rotations up.
  EXPECT_GT(TwistAfterSwinging(/*remove_twist=*/false), 1e-3);
}

TEST(StepDynamicsJobTest, WindPushesTheChainDownwind) {
  DynamicChain chain = StraightChain(5, 0.1);
  chain.gravity = Vec3(0.0);
  chain.wind.strength = 3.0;
  chain.wind.direction = Vec3(0.0, 0.0, 2.0);  // need not be unit
  Simulation simulation(chain, StraightPose(chain, kRoot, kDown));
  for (int step = 0; step < 120; ++step) {
    ASSERT_TRUE(simulation.Step(1.0 / 60.0).ok());
  }
  EXPECT_GT(simulation.tip().z, 0.2);
}

TEST(StepDynamicsJobTest, HugeDeltaTimeIsClampedAndReported) {
  DynamicChain chain = StraightChain(4, 0.1);
  chain.max_substeps = 8;
  Simulation simulation(chain, StraightPose(chain, kRoot, kAlongX));
  ASSERT_TRUE(simulation.Step(1.0 / 60.0).ok());
  EXPECT_FALSE(simulation.report().clamped);
  EXPECT_EQ(simulation.report().substeps, 2);
  for (const double huge : {1.0, 1e6, 1e300}) {
    ASSERT_TRUE(simulation.Step(huge).ok());
    EXPECT_TRUE(simulation.report().clamped) << huge;
    EXPECT_EQ(simulation.report().substeps, 8) << huge;
    EXPECT_EQ(simulation.state().time_remainder, 0.0) << huge;
    EXPECT_TRUE(AllFinite(simulation));
    EXPECT_LT(simulation.MaxRelativeLengthError(), 1e-9);
  }
}

TEST(StepDynamicsJobTest, CarriesTheRemainderBetweenSteps) {
  DynamicChain chain = StraightChain(3, 0.1);
  chain.substep = 0.01;
  Simulation simulation(chain, StraightPose(chain, kRoot, kDown));
  ASSERT_TRUE(simulation.Step(0.004).ok());
  EXPECT_EQ(simulation.report().substeps, 0);
  EXPECT_NEAR(simulation.state().time_remainder, 0.004, 1e-15);
  ASSERT_TRUE(simulation.Step(0.004).ok());
  EXPECT_EQ(simulation.report().substeps, 0);
  ASSERT_TRUE(simulation.Step(0.004).ok());
  EXPECT_EQ(simulation.report().substeps, 1);
  EXPECT_NEAR(simulation.state().time_remainder, 0.002, 1e-15);
  EXPECT_NEAR(simulation.state().noise_time, 0.01, 1e-15);
}

TEST(StepDynamicsJobTest, StartsAtRestAndReportsWhy) {
  DynamicChain chain = StraightChain(4, 0.1);
  chain.gravity = Vec3(0.0);
  chain.teleport_distance = 0.5;
  Simulation simulation(chain, StraightPose(chain, kRoot, kAlongX));
  const std::vector<Transform> animated = simulation.animated();
  auto expect_at_animated_pose = [&](const Simulation& s) {
    for (size_t i = 0; i < animated.size(); ++i) {
      EXPECT_EQ(s.positions()[i], s.animated()[i].translation) << i;
      EXPECT_EQ(s.state().previous_positions[i], s.positions()[i]) << i;
      EXPECT_EQ(s.state().rotations[i], IdentityQuat()) << i;
    }
  };

  ASSERT_TRUE(simulation.Step(0.0).ok());
  EXPECT_EQ(simulation.report().reset, DynamicsReset::kEmptyState);
  expect_at_animated_pose(simulation);

  simulation.MoveTo(kRoot + Vec3(0.3, 0.0, 0.0));  // within the distance
  ASSERT_TRUE(simulation.Step(1.0 / 60.0).ok());
  EXPECT_EQ(simulation.report().reset, DynamicsReset::kNone);
  EXPECT_NE(simulation.tip(), simulation.animated().back().translation);

  simulation.MoveTo(kRoot + Vec3(5.0, 0.0, 0.0));  // a respawn
  ASSERT_TRUE(simulation.Step(0.0).ok());
  EXPECT_EQ(simulation.report().reset, DynamicsReset::kTeleport);
  expect_at_animated_pose(simulation);

  simulation.MoveTo(kRoot + Vec3(5.1, 0.0, 0.0));
  ASSERT_TRUE(simulation.Step(1.0 / 60.0).ok());
  ASSERT_TRUE(simulation.Step(0.0, /*reset=*/true).ok());
  EXPECT_EQ(simulation.report().reset, DynamicsReset::kRequested);
  expect_at_animated_pose(simulation);
}

TEST(StepDynamicsJobTest, InfiniteTeleportDistanceNeverResets) {
  DynamicChain chain = StraightChain(3, 0.1);
  chain.teleport_distance = std::numeric_limits<double>::infinity();
  Simulation simulation(chain, StraightPose(chain, kRoot, kDown));
  ASSERT_TRUE(simulation.Step(1.0 / 60.0).ok());
  simulation.MoveTo(kRoot + Vec3(100.0, 0.0, 0.0));
  ASSERT_TRUE(simulation.Step(1.0 / 60.0).ok());
  EXPECT_EQ(simulation.report().reset, DynamicsReset::kNone);
  EXPECT_LT(simulation.MaxRelativeLengthError(), 1e-9);
}

TEST(StepDynamicsJobTest, FullStiffnessFollowsTheAnimation) {
  DynamicChain chain = StraightChain(5, 0.1);
  chain.stiffness = 1.0;
  Simulation simulation(chain, StraightPose(chain, kRoot, kAlongX));
  for (int step = 0; step < 60; ++step) {
    ASSERT_TRUE(simulation.Step(1.0 / 120.0).ok());
  }
  for (size_t i = 0; i < chain.joints.size(); ++i) {
    EXPECT_LT(glm::length(simulation.positions()[i] -
                          simulation.animated()[i].translation),
              1e-12);
  }
}

TEST(StepDynamicsJobTest, StiffnessHoldsTheChainNearTheAnimation) {
  auto sag = [](double stiffness) {
    DynamicChain chain = StraightChain(5, 0.1);
    chain.stiffness = stiffness;
    Simulation simulation(chain, StraightPose(chain, kRoot, kAlongX));
    for (int step = 0; step < 300; ++step) {
      EXPECT_TRUE(simulation.Step(1.0 / 60.0).ok());
    }
    return kRoot.y - simulation.tip().y;
  };
  EXPECT_LT(sag(0.05), 0.5 * sag(0.0));
  EXPECT_LT(sag(0.2), sag(0.05));
}

TEST(StepDynamicsJobTest, SimulatesBranches) {
  // 0 -> 1 -> 2 -> {3 -> 4, 5 -> 6}: two strands from joint 2.
  DynamicChain chain = StraightChain(5, 0.1, 0.01);
  for (int parent : {2, 5}) {
    DynamicJoint joint;
    joint.parent = parent;
    joint.length = 0.08;
    joint.radius = 0.01;
    chain.joints.push_back(joint);
  }
  std::vector<Transform> pose = StraightPose(chain, kRoot, kAlongX);
  pose[5].translation = pose[2].translation + Vec3(0.0, 0.0, 0.08);
  pose[6].translation = pose[5].translation + Vec3(0.0, 0.0, 0.08);
  Simulation simulation(chain, pose);
  simulation.colliders().push_back(
      SphereCollider(kRoot + Vec3(0.15, -0.3, 0.0), 0.08));
  for (int step = 0; step < 600; ++step) {
    simulation.MoveTo(kRoot + Vec3(0.1 * std::sin(step * 0.05), 0.0, 0.0));
    ASSERT_TRUE(simulation.Step(1.0 / 60.0).ok());
    ASSERT_TRUE(AllFinite(simulation));
    ASSERT_LT(simulation.MaxRelativeLengthError(), 1e-9);
  }
  // Both strands hang below their branching joint.
  EXPECT_LT(simulation.positions()[4].y, simulation.positions()[2].y);
  EXPECT_LT(simulation.positions()[6].y, simulation.positions()[2].y);
}

}  // namespace
}  // namespace ik
