// The two-bone job on degenerate inputs and its validation errors.
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "ik/solvers/two_bone.h"
#include "two_bone_fixture.h"

namespace ik {
namespace {

using ::ik::testing::kInf;
using ::ik::testing::kNan;
using ::ik::testing::Limb;
using ::ik::testing::TwoBoneJobTest;

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
