#include "ik/two_bone.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "gtest/gtest.h"

namespace ik {
namespace {

constexpr double kExact = 1e-12;
constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

struct Limb {
  Vec3 root;
  Vec3 mid;
  Vec3 tip;
};

// Where the joints go when the corrections are post-multiplied into the
// local rotations: rebuilt from local transforms, independently of the
// solver's own bookkeeping.
Limb ApplyCorrections(const TwoBoneJob& job, const Quat& root_correction,
                      const Quat& mid_correction) {
  const Quat root_rotation = job.root_model.rotation;
  const Quat mid_rotation = job.mid_model.rotation;
  // Locals of mid and tip (unit scale).
  const Vec3 mid_local_translation =
      glm::conjugate(root_rotation) *
      (job.mid_model.translation - job.root_model.translation);
  const Quat mid_local_rotation = glm::conjugate(root_rotation) * mid_rotation;
  const Vec3 tip_local_translation =
      glm::conjugate(mid_rotation) *
      (job.tip_model.translation - job.mid_model.translation);
  // Corrected pose.
  const Quat new_root_rotation = root_rotation * root_correction;
  const Quat new_mid_rotation =
      new_root_rotation * (mid_local_rotation * mid_correction);
  Limb limb;
  limb.root = job.root_model.translation;
  limb.mid = limb.root + new_root_rotation * mid_local_translation;
  limb.tip = limb.mid + new_mid_rotation * tip_local_translation;
  return limb;
}

// A job with outputs wired to this fixture's members.
class TwoBoneJobTest : public ::testing::Test {
 protected:
  // Upper arm 0.3 along +X, forearm 0.25 bent 10 degrees towards +Z.
  void SetUp() override {
    job_.root_model.translation = Vec3(0.0, 1.4, 0.0);
    job_.mid_model.translation = Vec3(0.3, 1.4, 0.0);
    const double bend = 10.0 * kPi / 180.0;
    job_.tip_model.translation =
        job_.mid_model.translation +
        0.25 * Vec3(std::cos(bend), 0.0, std::sin(bend));
    job_.mid_model.rotation = AngleAxis(-bend, Vec3(0.0, 1.0, 0.0));
    job_.tip_model.rotation = job_.mid_model.rotation;
    Wire(job_);
  }

  void Wire(TwoBoneJob& job) {
    job.root_correction = &root_correction_;
    job.mid_correction = &mid_correction_;
    job.report = &report_;
  }

  Limb Solved() const {
    return ApplyCorrections(job_, root_correction_, mid_correction_);
  }

  void ExpectFiniteOutputs() const {
    EXPECT_TRUE(IsFinite(root_correction_));
    EXPECT_TRUE(IsFinite(mid_correction_));
    EXPECT_NEAR(Norm(root_correction_), 1.0, 1e-12);
    EXPECT_NEAR(Norm(mid_correction_), 1.0, 1e-12);
    EXPECT_TRUE(IsFinite(report_.tip_model));
    EXPECT_TRUE(IsFinite(report_.residual));
  }

  TwoBoneJob job_;
  Quat root_correction_ = IdentityQuat();
  Quat mid_correction_ = IdentityQuat();
  SolveReport report_;
};

void ExpectVecNear(const Vec3& actual, const Vec3& expected,
                   double tolerance = kExact) {
  EXPECT_NEAR(actual.x, expected.x, tolerance);
  EXPECT_NEAR(actual.y, expected.y, tolerance);
  EXPECT_NEAR(actual.z, expected.z, tolerance);
}

// Equal up to rounding (the pole-less solve normalises on a shorter path).
void ExpectSameQuat(const Quat& actual, const Quat& expected) {
  EXPECT_NEAR(actual.w, expected.w, 1e-15);
  EXPECT_NEAR(actual.x, expected.x, 1e-15);
  EXPECT_NEAR(actual.y, expected.y, 1e-15);
  EXPECT_NEAR(actual.z, expected.z, 1e-15);
}

double DistanceFromLine(const Vec3& point, const Vec3& origin,
                        const Vec3& through) {
  const Vec3 direction = glm::normalize(through - origin);
  const Vec3 offset = point - origin;
  return glm::length(offset - glm::dot(offset, direction) * direction);
}

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

TEST_F(TwoBoneJobTest, NoNanForDegenerateInputs) {
  const Vec3 root = job_.root_model.translation;
  const Vec3 mid = job_.mid_model.translation;
  const Vec3 tip = job_.tip_model.translation;
  struct Case {
    Vec3 tip;
    Vec3 target;
    std::optional<Vec3> pole;
  };
  const Vec3 straight_tip(0.55, 1.4, 0.0);
  const Vec3 folded_tip = mid + Vec3(-0.25, 0.0, 1e-15);
  const std::vector<Case> cases = {
      {tip, root, std::nullopt},
      {tip, root, root},
      {tip, root, mid},
      {tip, mid, std::nullopt},
      {tip, root + Vec3(1e-14, 0.0, 0.0), std::nullopt},
      {tip, root - Vec3(3.0, 0.0, 0.0), std::nullopt},  // straight behind
      {tip, Vec3(kMaxCoordinate), Vec3(-kMaxCoordinate)},
      {tip, Vec3(0.3, 1.2, 0.1), Vec3(0.3, 1.2, 0.1)},  // pole on target
      {straight_tip, root, std::nullopt},
      {straight_tip, root, Vec3(0.0, 2.0, 0.0)},
      {straight_tip, straight_tip, std::nullopt},
      {straight_tip, root + Vec3(0.55, 0.0, 0.0), Vec3(1.0, 1.4, 0.0)},
      {straight_tip, root - Vec3(0.55, 0.0, 0.0), std::nullopt},
      {straight_tip, root - Vec3(0.1, 0.0, 0.0), Vec3(0.0, 1.4, 5.0)},
      {folded_tip, root, std::nullopt},
      {folded_tip, Vec3(0.5, 1.0, 0.0), Vec3(0.0, 1.4, 1.0)},
      {mid + Vec3(-0.3, 0.0, 0.0), root, std::nullopt},  // tip on the root
      {mid + Vec3(-0.3, 0.0, 0.0), Vec3(0.0, 0.0, 0.0), Vec3(1, 1, 1)},
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE(::testing::Message() << "case " << i);
    job_.tip_model.translation = cases[i].tip;
    job_.target_model = cases[i].target;
    job_.pole_model = cases[i].pole;
    for (const std::optional<Vec3>& axis :
         {std::optional<Vec3>(), std::optional<Vec3>(Vec3(0.0, 1.0, 0.0)),
          std::optional<Vec3>(Vec3(1.0, 0.0, 0.0))}) {
      job_.mid_axis_model = axis;
      ASSERT_TRUE(job_.Run().ok());
      ExpectFiniteOutputs();
      const Limb limb = Solved();
      EXPECT_TRUE(IsFinite(limb.mid));
      EXPECT_TRUE(IsFinite(limb.tip));
      EXPECT_NEAR(glm::length(limb.tip - limb.mid),
                  glm::length(cases[i].tip - mid), 1e-9);
    }
  }
}

TEST_F(TwoBoneJobTest, TinyBonesStayFinite) {
  job_.root_model.translation = Vec3(0.0);
  job_.mid_model.translation = Vec3(2e-9, 0.0, 0.0);
  job_.tip_model.translation = Vec3(4e-9, 2e-9, 0.0);
  job_.target_model = Vec3(0.0, 1.0, 0.0);
  ASSERT_TRUE(job_.Run().ok());
  ExpectFiniteOutputs();
}

void ExpectInvalid(const TwoBoneJob& job, const std::string& field) {
  const absl::Status status = job.Run();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
  EXPECT_TRUE(absl::StartsWith(status.message(), field))
      << status.message() << " does not start with " << field;
}

TEST_F(TwoBoneJobTest, ValidatesOutputs) {
  TwoBoneJob job = job_;
  job.root_correction = nullptr;
  ExpectInvalid(job, "root_correction:");
  job = job_;
  job.mid_correction = nullptr;
  ExpectInvalid(job, "mid_correction:");
  job = job_;
  job.report = nullptr;
  ExpectInvalid(job, "report:");
}

TEST_F(TwoBoneJobTest, ValidatesInputs) {
  TwoBoneJob job = job_;
  job.target_model.y = kNan;
  ExpectInvalid(job, "target_model: not finite");
  job = job_;
  job.target_model.x = 2.0 * kMaxCoordinate;
  ExpectInvalid(job, "target_model: beyond");
  job = job_;
  job.pole_model = Vec3(0.0, kInf, 0.0);
  ExpectInvalid(job, "pole_model: not finite");
  job = job_;
  job.root_model.translation.z = kInf;
  ExpectInvalid(job, "root_model.translation: not finite");
  job = job_;
  job.mid_model.rotation = MakeQuat(0.0, 0.0, 0.0, 0.0);
  ExpectInvalid(job, "mid_model.rotation: not a unit quaternion (norm 0)");
  job = job_;
  job.root_model.rotation = MakeQuat(kNan, 0.0, 0.0, 1.0);
  ExpectInvalid(job, "root_model.rotation: not finite");
  job = job_;
  job.tip_model.translation = Vec3(kNan);
  ExpectInvalid(job, "tip_model.translation: not finite");
  job = job_;
  job.mid_axis_model = Vec3(0.0);
  ExpectInvalid(job, "mid_axis_model: zero length");
  job = job_;
  job.mid_axis_model = Vec3(kNan, 0.0, 1.0);
  ExpectInvalid(job, "mid_axis_model: not finite");
  job = job_;
  job.mid_axis_model = Vec3(0.0, 1.0, 0.0);
  job.mid_turn_range = AngleRange{1.0, 0.0};
  ExpectInvalid(job,
                "mid_turn_range: [1, 0] is not a finite range with min <= max");
  job.mid_turn_range = AngleRange{kNan, 0.0};
  ExpectInvalid(job, "mid_turn_range: [nan, 0] is not a finite range");
  job = job_;
  job.mid_turn_range = AngleRange{0.0, 1.0};
  ExpectInvalid(job, "mid_turn_range: set without mid_axis_model");
  job = job_;
  job.tolerance = -1.0;
  ExpectInvalid(job, "tolerance:");
  job = job_;
  job.tolerance = kNan;
  ExpectInvalid(job, "tolerance:");
}

TEST_F(TwoBoneJobTest, RejectsZeroLengthBones) {
  TwoBoneJob job = job_;
  job.mid_model.translation = job.root_model.translation;
  ExpectInvalid(job, "mid_model.translation: zero-length bone");
  job = job_;
  job.tip_model.translation = job.mid_model.translation;
  ExpectInvalid(job, "tip_model.translation: zero-length bone");
}

TEST_F(TwoBoneJobTest, ValidateDoesNotWriteOutputs) {
  TwoBoneJob job = job_;
  job.target_model = Vec3(kNan);
  root_correction_ = MakeQuat(1.0, 2.0, 3.0, 4.0);
  ASSERT_FALSE(job.Run().ok());
  EXPECT_EQ(root_correction_, MakeQuat(1.0, 2.0, 3.0, 4.0));
}

}  // namespace
}  // namespace ik
