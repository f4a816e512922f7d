#include "ik/solvers/two_bone.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "two_bone_fixture.h"

namespace ik {
namespace {

using ::ik::testing::DistanceFromLine;
using ::ik::testing::ExpectSameQuat;
using ::ik::testing::ExpectVecNear;
using ::ik::testing::kExact;
using ::ik::testing::Limb;
using ::ik::testing::TwoBoneJobTest;

TEST_F(TwoBoneJobTest, ReachesReachableTargetsExactly) {
  for (const Vec3& target :
       {Vec3(0.3, 1.1, 0.2), Vec3(0.1, 1.4, 0.3), Vec3(-0.2, 1.6, 0.1),
        Vec3(0.5, 1.4, 0.0), Vec3(0.0, 1.0, -0.2), Vec3(0.06, 1.4, 0.0)}) {
    job_.target_model = target;
    ASSERT_TRUE(job_.Run().ok());
    const Limb limb = Solved();
    EXPECT_LT(glm::length(limb.tip - target), kExact) << "target " << target.x;
    EXPECT_TRUE(report_.reached);
    EXPECT_LT(report_.residual, kExact);
    EXPECT_EQ(report_.iterations, 1);
    ExpectVecNear(report_.tip_model, limb.tip);
    // Rigid bones.
    EXPECT_NEAR(glm::length(limb.mid - limb.root), 0.3, kExact);
    EXPECT_NEAR(glm::length(limb.tip - limb.mid), 0.25, kExact);
  }
}

TEST_F(TwoBoneJobTest, KeepsTheIncomingBendPlaneWithoutPole) {
  // The incoming limb bends in the XZ plane (normal Y); a target in that
  // plane keeps the middle joint in it.
  job_.target_model = Vec3(0.2, 1.4, 0.3);
  ASSERT_TRUE(job_.Run().ok());
  const Limb limb = Solved();
  EXPECT_NEAR(limb.mid.y, 1.4, kExact);
  EXPECT_LT(glm::length(limb.tip - job_.target_model), kExact);
}

TEST_F(TwoBoneJobTest, KeepsTheBendSide) {
  // The incoming pose bends the forearm towards +Z (about -Y): the elbow
  // must stay on that side rather than flip through straight.
  const Vec3 incoming_normal =
      glm::cross(job_.mid_model.translation - job_.root_model.translation,
                 job_.tip_model.translation - job_.mid_model.translation);
  ASSERT_LT(incoming_normal.y, 0.0);
  for (const Vec3& target :
       {Vec3(0.35, 1.4, 0.1), Vec3(0.5, 1.4, -0.1), Vec3(0.1, 1.4, -0.1)}) {
    job_.target_model = target;
    ASSERT_TRUE(job_.Run().ok());
    const Limb limb = Solved();
    EXPECT_LT(glm::length(limb.tip - target), kExact);
    const Vec3 bend_normal =
        glm::cross(limb.mid - limb.root, limb.tip - limb.mid);
    EXPECT_LT(bend_normal.y, 0.0) << "the limb bent the other way";
  }
}

TEST_F(TwoBoneJobTest, UnreachableTargetExtendsFullyTowardsIt) {
  job_.target_model = Vec3(2.0, 2.4, 1.0);
  ASSERT_TRUE(job_.Run().ok());
  const Limb limb = Solved();
  const Vec3 to_target = job_.target_model - job_.root_model.translation;
  const double distance = glm::length(to_target);
  const Vec3 expected_tip =
      job_.root_model.translation + 0.55 * to_target / distance;
  ExpectVecNear(limb.tip, expected_tip);
  EXPECT_LT(DistanceFromLine(limb.mid, limb.root, job_.target_model), 1e-9);
  EXPECT_FALSE(report_.reached);
  EXPECT_NEAR(report_.residual, distance - 0.55, kExact);
  ExpectFiniteOutputs();
}

TEST_F(TwoBoneJobTest, TargetAtExactFullReachIsReached) {
  job_.target_model = job_.root_model.translation + Vec3(0.0, 0.0, 0.55);
  ASSERT_TRUE(job_.Run().ok());
  EXPECT_LT(glm::length(Solved().tip - job_.target_model), 1e-9);
  EXPECT_TRUE(report_.reached);
}

TEST_F(TwoBoneJobTest, TargetOnTheRootFoldsAndKeepsDirection) {
  job_.target_model = job_.root_model.translation;
  ASSERT_TRUE(job_.Run().ok());
  ExpectFiniteOutputs();
  const Limb limb = Solved();
  // No swing: the upper bone keeps its direction.
  ExpectVecNear(root_correction_ * Vec3(1.0, 0.0, 0.0), Vec3(1.0, 0.0, 0.0));
  ExpectVecNear(limb.mid, job_.mid_model.translation);
  // Folded as far as the bones allow.
  EXPECT_NEAR(glm::length(limb.tip - limb.root), 0.05, 1e-9);
  EXPECT_NEAR(report_.residual, 0.05, 1e-9);
  EXPECT_FALSE(report_.reached);
}

TEST_F(TwoBoneJobTest, TargetInsideTheInnerShellFoldsTowardsIt) {
  job_.target_model = job_.root_model.translation + Vec3(0.0, 0.0, 0.01);
  ASSERT_TRUE(job_.Run().ok());
  ExpectFiniteOutputs();
  const Limb limb = Solved();
  EXPECT_NEAR(glm::length(limb.tip - limb.root), 0.05, 1e-9);
  EXPECT_NEAR(report_.residual, 0.04, 1e-9);
  // The tip lies on the ray from the root through the target.
  EXPECT_LT(DistanceFromLine(limb.tip, limb.root, job_.target_model), 1e-9);
  EXPECT_GT(glm::dot(limb.tip - limb.root,
                     job_.target_model - job_.root_model.translation),
            0.0);
}

TEST_F(TwoBoneJobTest, PoleControlsTheBendSide) {
  job_.target_model = Vec3(0.35, 1.4, 0.2);
  for (const Vec3& pole_direction :
       {Vec3(0.0, 1.0, 0.0), Vec3(0.0, -1.0, 0.0), Vec3(0.0, 0.0, -1.0)}) {
    const Vec3 pole = Vec3(0.2, 1.4, 0.1) + pole_direction;
    job_.pole_model = pole;
    ASSERT_TRUE(job_.Run().ok());
    const Limb limb = Solved();
    EXPECT_LT(glm::length(limb.tip - job_.target_model), kExact);
    // The middle joint lies in the root-target-pole plane, on the pole's
    // side of the root-target line.
    const Vec3 axis =
        glm::normalize(job_.target_model - job_.root_model.translation);
    const Vec3 mid_offset = limb.mid - limb.root;
    const Vec3 pole_offset = pole - limb.root;
    const Vec3 mid_across = mid_offset - glm::dot(mid_offset, axis) * axis;
    const Vec3 pole_across = pole_offset - glm::dot(pole_offset, axis) * axis;
    const Vec3 plane_normal = glm::normalize(glm::cross(axis, pole_across));
    EXPECT_NEAR(glm::dot(mid_offset, plane_normal), 0.0, kExact);
    EXPECT_GT(glm::dot(mid_across, pole_across), 0.0)
        << "pole direction " << pole_direction.y << ", " << pole_direction.z;
  }
}

TEST_F(TwoBoneJobTest, PoleOnTheRootTargetLineIsIgnored) {
  job_.target_model = Vec3(0.3, 1.2, 0.25);
  ASSERT_TRUE(job_.Run().ok());
  const Quat root_without_pole = root_correction_;
  const Quat mid_without_pole = mid_correction_;
  for (const double along : {2.0, 0.5, -1.0}) {
    job_.pole_model = job_.root_model.translation +
                      along * (job_.target_model - job_.root_model.translation);
    ASSERT_TRUE(job_.Run().ok());
    ExpectFiniteOutputs();
    EXPECT_LT(report_.residual, kExact);
    ExpectSameQuat(root_correction_, root_without_pole);
    ExpectSameQuat(mid_correction_, mid_without_pole);
  }
  // A pole on the root or on the target: no twist either.
  job_.pole_model = job_.root_model.translation;
  ASSERT_TRUE(job_.Run().ok());
  ExpectSameQuat(root_correction_, root_without_pole);
  job_.pole_model = job_.target_model;
  ASSERT_TRUE(job_.Run().ok());
  ExpectSameQuat(root_correction_, root_without_pole);
}

TEST_F(TwoBoneJobTest, StraightLimbBendsTowardsThePole) {
  job_.tip_model.translation = Vec3(0.55, 1.4, 0.0);
  job_.mid_model.rotation = IdentityQuat();
  job_.target_model = Vec3(0.4, 1.4, 0.0);
  job_.pole_model = Vec3(0.2, 1.4, -1.0);
  ASSERT_TRUE(job_.Run().ok());
  const Limb limb = Solved();
  EXPECT_LT(glm::length(limb.tip - job_.target_model), kExact);
  EXPECT_NEAR(limb.mid.y, 1.4, kExact);
  EXPECT_LT(limb.mid.z, -0.05);
}

TEST_F(TwoBoneJobTest, StraightLimbWithoutPoleStillReaches) {
  job_.tip_model.translation = Vec3(0.55, 1.4, 0.0);
  job_.mid_model.rotation = IdentityQuat();
  job_.target_model = Vec3(0.3, 1.2, 0.1);
  ASSERT_TRUE(job_.Run().ok());
  EXPECT_LT(glm::length(Solved().tip - job_.target_model), kExact);
  const Quat first = root_correction_;
  ASSERT_TRUE(job_.Run().ok());
  EXPECT_EQ(std::memcmp(&first, &root_correction_, sizeof(Quat)), 0);
}

TEST_F(TwoBoneJobTest, GivenBendAxisTurnsTheMiddleJointAboutIt) {
  // A hinge about +Y (model) at the elbow, with the elbow's model frame
  // turned so the local axis differs from the model one.
  job_.mid_axis_model = Vec3(0.0, -1.0, 0.0);
  job_.target_model = Vec3(0.25, 1.4, 0.3);
  ASSERT_TRUE(job_.Run().ok());
  EXPECT_LT(glm::length(Solved().tip - job_.target_model), kExact);
  // The mid correction is a rotation about the axis in the mid's local
  // frame.
  const Vec3 local_axis =
      glm::conjugate(job_.mid_model.rotation) * Vec3(0.0, -1.0, 0.0);
  const Vec3 correction_axis(mid_correction_.x, mid_correction_.y,
                             mid_correction_.z);
  EXPECT_GT(glm::length(correction_axis), 1e-3);
  EXPECT_NEAR(glm::length(glm::cross(correction_axis, local_axis)), 0.0,
              kExact);
}

TEST_F(TwoBoneJobTest, ClampsTheTurnIntoTheGivenRange) {
  // Folding the elbow to reach a target 0.1 m from the root needs a turn
  // of about 2.2 rad; the range allows 1.
  job_.mid_axis_model = Vec3(0.0, -1.0, 0.0);
  job_.mid_turn_range = AngleRange{-0.5, 1.0};
  job_.target_model = job_.root_model.translation + Vec3(0.06, 0.0, 0.08);
  bool clamped = false;
  job_.mid_turn_clamped = &clamped;
  ASSERT_TRUE(job_.Run().ok());
  EXPECT_TRUE(clamped);
  EXPECT_FALSE(report_.reached);
  // The mid turned by exactly 1 rad about the axis...
  EXPECT_NEAR(
      2.0 * std::atan2(glm::length(Vec3(mid_correction_.x, mid_correction_.y,
                                        mid_correction_.z)),
                       mid_correction_.w),
      1.0, kExact);
  // ...and the limb points at the target as far as that bend goes.
  const Limb limb = Solved();
  const Vec3 to_target = job_.target_model - limb.root;
  EXPECT_NEAR(
      glm::length(glm::cross(limb.tip - limb.root, glm::normalize(to_target))),
      0.0, kExact);
  EXPECT_GT(glm::dot(limb.tip - limb.root, to_target), 0.0);
  EXPECT_NEAR(report_.residual, glm::length(limb.tip - job_.target_model),
              kExact);
}

TEST_F(TwoBoneJobTest, ATurnWithinTheRangeIsExact) {
  job_.mid_axis_model = Vec3(0.0, -1.0, 0.0);
  job_.mid_turn_range = AngleRange{-0.5, 2.0};
  job_.target_model = Vec3(0.25, 1.4, 0.3);
  bool clamped = true;
  job_.mid_turn_clamped = &clamped;
  ASSERT_TRUE(job_.Run().ok());
  EXPECT_FALSE(clamped);
  EXPECT_TRUE(report_.reached);
  EXPECT_LT(glm::length(Solved().tip - job_.target_model), kExact);
}

TEST_F(TwoBoneJobTest, NonPerpendicularBendAxisReachesWhatItCan) {
  // A tilted hinge shrinks the reachable distances; the solve clamps.
  job_.mid_axis_model = glm::normalize(Vec3(0.3, 1.0, 0.2));
  for (const Vec3& target : {Vec3(0.2, 1.3, 0.3), Vec3(3.0, 0.0, 0.0),
                             job_.root_model.translation}) {
    job_.target_model = target;
    ASSERT_TRUE(job_.Run().ok());
    ExpectFiniteOutputs();
    const Limb limb = Solved();
    ExpectVecNear(report_.tip_model, limb.tip);
    EXPECT_NEAR(report_.residual, glm::length(limb.tip - target), kExact);
  }
}

TEST_F(TwoBoneJobTest, ArbitraryJointFramesGiveTheSameModelPose) {
  // The local corrections depend on the joints' frames, the model-space
  // result does not.
  job_.target_model = Vec3(0.2, 1.25, 0.25);
  job_.pole_model = Vec3(0.1, 2.0, 0.0);
  ASSERT_TRUE(job_.Run().ok());
  const Limb reference = Solved();
  job_.root_model.rotation =
      AngleAxis(2.0, glm::normalize(Vec3(1.0, -2.0, 0.3)));
  job_.mid_model.rotation =
      AngleAxis(-1.2, glm::normalize(Vec3(0.1, 0.4, -1.0)));
  ASSERT_TRUE(job_.Run().ok());
  const Limb turned = Solved();
  ExpectVecNear(turned.mid, reference.mid);
  ExpectVecNear(turned.tip, reference.tip);
}

TEST_F(TwoBoneJobTest, ContinuousAtTheEdgeOfReach) {
  // Just inside and just outside the reach, with a pole that asks for a
  // different bend plane than the incoming one: the root's rotation must not
  // jump.
  job_.pole_model = Vec3(0.2, 2.4, 0.0);
  const Vec3 direction = glm::normalize(Vec3(0.3, -0.5, 0.6));
  job_.target_model = job_.root_model.translation + (0.55 - 1e-7) * direction;
  ASSERT_TRUE(job_.Run().ok());
  const Quat inside = job_.root_model.rotation * root_correction_;
  job_.target_model = job_.root_model.translation + 0.6 * direction;
  ASSERT_TRUE(job_.Run().ok());
  const Quat outside = job_.root_model.rotation * root_correction_;
  // The same frame up to ~sqrt(1e-7) of bend.
  const double dot = std::abs(inside.w * outside.w + inside.x * outside.x +
                              inside.y * outside.y + inside.z * outside.z);
  EXPECT_GT(dot, 1.0 - 1e-6);
}

TEST_F(TwoBoneJobTest, ToleranceDecidesReached) {
  job_.target_model = Vec3(0.56, 1.4, 0.0);  // 1 cm beyond reach
  job_.tolerance = 0.02;
  ASSERT_TRUE(job_.Run().ok());
  EXPECT_TRUE(report_.reached);
  job_.tolerance = 0.005;
  ASSERT_TRUE(job_.Run().ok());
  EXPECT_FALSE(report_.reached);
  EXPECT_NEAR(report_.residual, 0.01, 1e-9);
}

TEST_F(TwoBoneJobTest, RepeatedSolvesAreBitIdentical) {
  job_.target_model = Vec3(0.123, 1.234, 0.345);
  job_.pole_model = Vec3(0.0, 0.0, 1.0);
  ASSERT_TRUE(job_.Run().ok());
  const Quat root = root_correction_;
  const Quat mid = mid_correction_;
  const SolveReport report = report_;
  ASSERT_TRUE(job_.Run().ok());
  EXPECT_EQ(std::memcmp(&root, &root_correction_, sizeof(Quat)), 0);
  EXPECT_EQ(std::memcmp(&mid, &mid_correction_, sizeof(Quat)), 0);
  EXPECT_EQ(std::memcmp(&report.tip_model, &report_.tip_model, sizeof(Vec3)),
            0);
  EXPECT_EQ(report.residual, report_.residual);
}

}  // namespace
}  // namespace ik
