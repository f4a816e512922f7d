// PoseCheckJob on the example humanoid: seeded claimed poses, in and out of
// the limits, with broken rotations, moved bones and scales; each verdict
// checked against the test's own limit measure (independent_checks.h).
#include "ik/rig/pose_check.h"

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "draws.h"
#include "gtest/gtest.h"
#include "humanoid_rig.h"
#include "independent_checks.h"
#include "random_poses.h"

namespace ik::testing {
namespace {

using Kind = PoseViolation::Kind;

class PoseCheckTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<Rig> rig = HumanoidRig();
    ASSERT_TRUE(rig.ok()) << rig.status();
    rig_.emplace(*std::move(rig));
  }

  std::vector<PoseViolation> Check(const std::vector<Transform>& claimed,
                                   std::vector<Transform>& repaired) {
    std::vector<PoseViolation> violations;
    repaired.assign(claimed.size(), Transform());
    PoseCheckJob job;
    job.rig = &*rig_;
    job.claimed = claimed;
    job.violations = &violations;
    job.repaired = absl::MakeSpan(repaired);
    EXPECT_TRUE(job.Run().ok());
    return violations;
  }

  std::vector<Transform> InLimitPose(std::mt19937_64& engine) {
    std::vector<Transform> pose(rig_->rest_pose().begin(),
                                rig_->rest_pose().end());
    for (int j = 0; j < rig_->joint_count(); ++j) {
      pose[j].rotation = RandomRotationWithinLimit(rig_->joint(j), engine);
    }
    return pose;
  }

  std::optional<Rig> rig_;
};

TEST_F(PoseCheckTest, InLimitPosesPassAndComeBackAsTheyWere) {
  std::mt19937_64 engine(1401);
  for (int trial = 0; trial < 2000; ++trial) {
    const std::vector<Transform> claimed = InLimitPose(engine);
    std::vector<Transform> repaired;
    const std::vector<PoseViolation> violations = Check(claimed, repaired);
    for (const PoseViolation& v : violations) {
      ADD_FAILURE() << "trial " << trial << ": joint " << v.joint << " kind "
                    << static_cast<int>(v.kind) << " amount " << v.amount;
    }
    for (int j = 0; j < rig_->joint_count(); ++j) {
      EXPECT_LE(RotationAngle(claimed[j].rotation, repaired[j].rotation),
                1e-12);
      EXPECT_EQ(repaired[j].translation, rig_->rest_pose()[j].translation);
    }
  }
}

TEST_F(PoseCheckTest, OutOfLimitJointsAreReportedByHowFarAndHeldToTheirLimit) {
  std::mt19937_64 engine(1402);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::uniform_real_distribution<double> signed_unit(-1.0, 1.0);
  int reported = 0;
  for (int trial = 0; trial < 2000; ++trial) {
    std::vector<Transform> claimed = InLimitPose(engine);
    // Any rotation at all for a few joints.
    for (int k = 0; k < 4; ++k) {
      const int joint = static_cast<int>(unit(engine) * rig_->joint_count());
      claimed[joint].rotation = glm::normalize(DrawQuat(signed_unit, engine));
    }
    std::vector<Transform> repaired;
    const std::vector<PoseViolation> violations = Check(claimed, repaired);
    for (int j = 0; j < rig_->joint_count(); ++j) {
      const double outside = LimitViolation(*rig_, j, claimed[j].rotation);
      const PoseViolation* found = nullptr;
      for (const PoseViolation& v : violations) {
        if (v.joint == j && v.kind == Kind::kOutsideLimit) found = &v;
      }
      // The test's measure and the check agree on who is out (up to the
      // clamp's slack), and the amount is how far the repair turned it.
      if (outside > 1e-6) {
        ASSERT_NE(found, nullptr) << "trial " << trial << " joint " << j;
      }
      if (found != nullptr) {
        ++reported;
        EXPECT_NEAR(found->amount,
                    RotationAngle(claimed[j].rotation, repaired[j].rotation),
                    1e-9);
      } else {
        EXPECT_LE(RotationAngle(claimed[j].rotation, repaired[j].rotation),
                  1e-12);
      }
      EXPECT_LE(LimitViolation(*rig_, j, repaired[j].rotation), 1e-9)
          << "trial " << trial << " joint " << j;
    }
    // The repaired pose passes the check.
    std::vector<Transform> again;
    EXPECT_TRUE(Check(repaired, again).empty()) << "trial " << trial;
  }
  EXPECT_GT(reported, 2000);
}

TEST_F(PoseCheckTest, BrokenRotationsMovedBonesAndScalesAreNamed) {
  // A valid pose to break: the rest pose held to the limits (the example's
  // rest is not within every limit).
  const std::vector<Transform> rest(rig_->rest_pose().begin(),
                                    rig_->rest_pose().end());
  std::vector<Transform> claimed;
  Check(rest, claimed);
  std::vector<Transform> unused;
  ASSERT_TRUE(Check(claimed, unused).empty());
  const std::vector<Transform> valid = claimed;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  claimed[1].rotation = Quat(nan, 0.0, 0.0, 0.0);
  claimed[2].rotation = Quat(2.0, 0.0, 0.0, 0.0);  // norm 2: off by 1
  claimed[3].rotation = Quat(0.0, 0.0, 0.0, 0.0);
  claimed[4].translation += Vec3(0.0, 0.1, 0.0);  // a longer neck
  claimed[5].scale = Vec3(1.0, 1.5, 1.0);
  claimed[6].translation.x = std::numeric_limits<double>::infinity();
  std::vector<Transform> repaired;
  const std::vector<PoseViolation> violations = Check(claimed, repaired);
  for (const PoseViolation& v : violations) {
    SCOPED_TRACE(::testing::Message()
                 << "joint " << v.joint << " kind " << static_cast<int>(v.kind)
                 << " amount " << v.amount);
  }
  ASSERT_EQ(violations.size(), 6u) << [&] {
    std::string all;
    for (const PoseViolation& v : violations) {
      all += rig_->joint(v.joint).name + ":" +
             std::to_string(static_cast<int>(v.kind)) + ":" +
             std::to_string(v.amount) + " ";
    }
    return all;
  }();
  const auto expect = [&](size_t i, int joint, Kind kind, double amount) {
    EXPECT_EQ(violations[i].joint, joint) << i;
    EXPECT_EQ(violations[i].kind, kind) << i;
    EXPECT_NEAR(violations[i].amount, amount, 1e-12) << i;
  };
  expect(0, 1, Kind::kRotationNotFinite, 0.0);
  expect(1, 2, Kind::kRotationNotUnit, 1.0);
  expect(2, 3, Kind::kRotationNotUnit, 1.0);
  expect(3, 4, Kind::kTranslation, 0.1);
  expect(4, 5, Kind::kScale, 0.5);
  expect(5, 6, Kind::kTranslation, 0.0);
  for (int j = 0; j < rig_->joint_count(); ++j) {
    EXPECT_TRUE(IsFinite(repaired[j].rotation)) << j;
    EXPECT_NEAR(Norm(repaired[j].rotation), 1.0, 1e-15) << j;
    EXPECT_EQ(repaired[j].translation, rig_->rest_pose()[j].translation);
    EXPECT_EQ(repaired[j].scale, rig_->rest_pose()[j].scale);
  }
  // Not finite or zero: the rest rotation held to the limit, unreported.
  for (int j : {1, 3}) {
    EXPECT_EQ(repaired[j].rotation, valid[j].rotation) << j;
  }
  // Off unit: normalised (and within the limit, as the valid pose was).
  EXPECT_LE(RotationAngle(repaired[2].rotation, Quat(1.0, 0.0, 0.0, 0.0)),
            1e-12);
}

}  // namespace
}  // namespace ik::testing
