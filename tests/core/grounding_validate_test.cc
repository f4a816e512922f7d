// GroundFeetJob::Validate (and Run, which validates first): one block per
// invalid input or output, each checked for its status code and field
// path.
#include <algorithm>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "grounding_fixtures.h"
#include "gtest/gtest.h"
#include "humanoid_rig.h"
#include "ik/ground/grounding.h"
#include "rig_fixtures.h"
#include "terrain_shapes.h"

namespace ik {
namespace {

using ::ik::testing::ExpectError;

constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

class GroundFeetValidateTest : public ::testing::Test {
 protected:
  GroundFeetValidateTest()
      : character_(*testing::HumanoidCharacter()),
        rig_(character_.rig),
        pose_(rig_.rest_pose().begin(), rig_.rest_pose().end()),
        locals_(pose_) {
    smoothing_.previous_foot_offsets = offsets_;
  }

  GroundFeetJob Job() {
    GroundFeetJob job;
    job.rig = &rig_;
    job.legs = character_.legs;
    job.root = testing::YawedRoot(0.3, Vec3(1.0, 0.0, 2.0));
    job.locals = absl::MakeSpan(locals_);
    job.ground.planes = planes_;
    job.weights = weights_;
    job.feet = absl::MakeSpan(feet_);
    job.report = &report_;
    return job;
  }

  // Both Validate and Run name the problem.
  static void Expect(
      const GroundFeetJob& job, const std::string& message,
      absl::StatusCode code = absl::StatusCode::kInvalidArgument) {
    ExpectError(job.Validate(), code, message.c_str());
    ExpectError(job.Run(), code, message.c_str());
  }

  const Character character_;
  const Rig& rig_;
  const std::vector<Transform> pose_;
  std::vector<Transform> locals_;
  const GroundPlane planes_[1] = {testing::Plane(Vec3(0.0), Vec3(0, 1, 0))};
  std::vector<double> weights_ = {1.0, 0.5};
  std::vector<Vec3> offsets_ = {Vec3(0.0), Vec3(0.0)};
  GroundSmoothing smoothing_;
  std::vector<FootResult> feet_ = std::vector<FootResult>(2);
  GroundFeetReport report_;
};

TEST_F(GroundFeetValidateTest, AcceptsAValidJob) {
  EXPECT_TRUE(Job().Validate().ok());
  GroundFeetJob job = Job();
  job.smoothing = smoothing_;
  EXPECT_TRUE(job.Validate().ok());
  EXPECT_TRUE(job.Run().ok());
}

TEST_F(GroundFeetValidateTest, RejectsAMissingRigOrNoLegs) {
  GroundFeetJob job = Job();
  job.rig = nullptr;
  Expect(job, "rig: null");
  job = Job();
  job.legs = {};
  Expect(job, "legs: rig 'humanoid' has no legs",
         absl::StatusCode::kFailedPrecondition);
}

// A joint no leg reads (a finger, the head) is not the job's input: it
// passes through as it came, whatever it holds, and the legs are grounded
// as they would be without it.
TEST_F(GroundFeetValidateTest, JointsNoLegReadsPassThroughUnchecked) {
  std::vector<Transform> expected = pose_;
  std::vector<FootResult> expected_feet(feet_.size());
  GroundFeetReport expected_report;
  GroundFeetJob reference = Job();
  reference.locals = absl::MakeSpan(expected);
  reference.feet = absl::MakeSpan(expected_feet);
  reference.report = &expected_report;
  ASSERT_TRUE(reference.Run().ok());

  std::vector<bool> read(pose_.size(), false);
  for (const Leg& leg : character_.legs) {
    for (const int j : leg.ancestors) read[j] = true;
    for (const int j : {leg.hip, leg.knee, leg.ankle}) read[j] = true;
    for (int j = leg.toe; j != kNoParent && j != leg.ankle;
         j = rig_.parents()[j]) {
      read[j] = true;
    }
  }
  int unread = 0;
  for (size_t j = 0; j < pose_.size(); ++j) {
    if (read[j]) continue;
    ++unread;
    locals_[j].translation.x = kNan;
    locals_[j].rotation = Quat(0.0, 0.0, 0.0, 0.0);
  }
  ASSERT_GT(unread, 10);
  const std::vector<Transform> garbled = locals_;
  ASSERT_TRUE(Job().Run().ok());
  for (size_t j = 0; j < pose_.size(); ++j) {
    const Transform& want = read[j] ? expected[j] : garbled[j];
    EXPECT_EQ(std::memcmp(&locals_[j], &want, sizeof(Transform)), 0)
        << "joint " << j;
  }
  EXPECT_EQ(report_.root_offset, expected_report.root_offset);
}

TEST_F(GroundFeetValidateTest, RejectsLocalsAndRootWithTheirFieldPaths) {
  const std::string joints = std::to_string(rig_.joint_count());
  GroundFeetJob job = Job();
  job.locals = job.locals.subspan(1);
  Expect(job, "locals: " + std::to_string(rig_.joint_count() - 1) +
                  " transforms for rig 'humanoid' of " + joints + " joints");
  // The joints the legs read: the second leg's knee, the first leg's toe,
  // the legs' common ancestor.
  const Leg& first = character_.legs[0];
  const Leg& second = character_.legs[1];
  ASSERT_NE(first.toe, kNoParent);
  ASSERT_FALSE(first.ancestors.empty());
  const int knee = second.knee, toe = first.toe, top = first.ancestors[0];
  locals_[knee].rotation = Quat(0.0, 0.0, 0.0, 0.0);
  Expect(Job(), "locals[" + std::to_string(knee) +
                    "].rotation: not a unit quaternion (norm 0)");
  locals_[knee] = pose_[knee];
  locals_[toe].translation.x = kNan;
  Expect(Job(), "locals[" + std::to_string(toe) + "].translation: not finite");
  locals_[toe] = pose_[toe];
  locals_[top].scale.y = 0.0;
  Expect(Job(), "locals[" + std::to_string(top) +
                    "].scale: must be finite and positive");
  // Of two, the lower index is named.
  locals_[knee].scale.x = kInf;
  Expect(Job(), "locals[" + std::to_string(std::min(knee, top)) +
                    "].scale: " + "must be finite and positive");
  locals_[top] = pose_[top];
  locals_[knee] = pose_[knee];
  job = Job();
  job.root.rotation = Quat(2.0, 0.0, 0.0, 0.0);
  Expect(job, "root.rotation: not a unit quaternion (norm 2)");
  job = Job();
  job.root.scale.z = kInf;
  Expect(job, "root.scale: must be finite and positive");
}

TEST_F(GroundFeetValidateTest, RejectsANullTerrainAndWeightsOutOfRange) {
  const TriangleMesh* null_mesh[] = {nullptr};
  GroundFeetJob job = Job();
  job.ground.meshes = null_mesh;
  Expect(job, "ground.meshes[0]: null");
  job = Job();
  job.weights = absl::MakeConstSpan(weights_).subspan(1);
  Expect(job, "weights: 1 values for rig 'humanoid' of 2 legs");
  weights_[1] = 1.5;
  Expect(Job(), "weights[1]: 1.5 is not in [0, 1]");
  weights_[1] = 0.5;
  weights_[0] = -0.25;
  Expect(Job(), "weights[0]: -0.25 is not in [0, 1]");
  weights_[0] = kNan;
  Expect(Job(), "weights[0]: nan is not in [0, 1]");
}

TEST_F(GroundFeetValidateTest, RejectsSmoothingWithTheirFieldPaths) {
  GroundFeetJob job = Job();
  job.smoothing = smoothing_;
  job.smoothing->previous_pelvis_drop = -1.0;
  Expect(job, "smoothing.previous_pelvis_drop: must be finite and >= 0 m");
  job.smoothing = smoothing_;
  job.smoothing->previous_foot_offsets =
      absl::MakeConstSpan(offsets_).subspan(1);
  Expect(job,
         "smoothing.previous_foot_offsets: 1 offsets for rig 'humanoid' of 2 "
         "legs");
  offsets_[1].z = kInf;
  job.smoothing = smoothing_;
  Expect(job, "smoothing.previous_foot_offsets[1]: not finite or beyond");
  offsets_[1] = Vec3(0.0);
  job.smoothing->delta_time = kInf;
  Expect(job, "smoothing.delta_time: must be finite and >= 0 s, got inf");
  job.smoothing = smoothing_;
  job.smoothing->max_pelvis_speed = kNan;
  Expect(job, "smoothing.max_pelvis_speed: must be >= 0 m/s, got nan");
  job.smoothing = smoothing_;
  job.smoothing->max_foot_speed = -2.0;
  Expect(job, "smoothing.max_foot_speed: must be >= 0 m/s, got -2");
}

TEST_F(GroundFeetValidateTest, RejectsABadToleranceAndMissingOutputs) {
  GroundFeetJob job = Job();
  job.tolerance = -1e-3;
  Expect(job, "tolerance: must be finite and >= 0 m, got -0.001");
  job = Job();
  job.feet = job.feet.subspan(1);
  Expect(job, "feet: 1 results for rig 'humanoid' of 2 legs");
  job = Job();
  job.report = nullptr;
  Expect(job, "report: null output");
}

TEST_F(GroundFeetValidateTest, ReportsALegItCannotSolve) {
  // Valid input the leg solve cannot take: the knee on the hip.
  locals_[rig_.FindJoint("left_knee")].translation = Vec3(0.0);
  ASSERT_TRUE(Job().Validate().ok());
  ExpectError(Job().Run(), absl::StatusCode::kInvalidArgument,
              "locals: leg 'left_leg' cannot be solved in this pose: "
              "mid_model.translation: zero-length bone");
}

}  // namespace
}  // namespace ik
