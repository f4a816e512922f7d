// The two-bone job fixture and checks shared by the two-bone tests.
#ifndef IK_TESTS_CORE_TWO_BONE_FIXTURE_H_
#define IK_TESTS_CORE_TWO_BONE_FIXTURE_H_

#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "ik/solvers/two_bone.h"

namespace ik::testing {

inline constexpr double kExact = 1e-12;
inline constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
inline constexpr double kInf = std::numeric_limits<double>::infinity();

struct Limb {
  Vec3 root;
  Vec3 mid;
  Vec3 tip;
};

// Where the joints go when the corrections are post-multiplied into the
// local rotations: rebuilt from local transforms, independently of the
// solver's own bookkeeping.
inline Limb ApplyCorrections(const TwoBoneJob& job, const Quat& root_correction,
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

inline void ExpectVecNear(const Vec3& actual, const Vec3& expected,
                          double tolerance = kExact) {
  EXPECT_NEAR(actual.x, expected.x, tolerance);
  EXPECT_NEAR(actual.y, expected.y, tolerance);
  EXPECT_NEAR(actual.z, expected.z, tolerance);
}

// Equal up to rounding (the pole-less solve normalises on a shorter path).
inline void ExpectSameQuat(const Quat& actual, const Quat& expected) {
  EXPECT_NEAR(actual.w, expected.w, 1e-15);
  EXPECT_NEAR(actual.x, expected.x, 1e-15);
  EXPECT_NEAR(actual.y, expected.y, 1e-15);
  EXPECT_NEAR(actual.z, expected.z, 1e-15);
}

inline double DistanceFromLine(const Vec3& point, const Vec3& origin,
                               const Vec3& through) {
  const Vec3 direction = glm::normalize(through - origin);
  const Vec3 offset = point - origin;
  return glm::length(offset - glm::dot(offset, direction) * direction);
}

}  // namespace ik::testing

#endif  // IK_TESTS_CORE_TWO_BONE_FIXTURE_H_
