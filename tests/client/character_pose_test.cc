#include "character_pose.h"

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "inspector_test_rig.h"
#include "rig_model.h"

namespace ik::inspector {
namespace {

constexpr double kEpsilon = 1e-12;

v1::Quat Turn(double x, double y, double z, double angle) {
  v1::Quat q;
  q.set_x(x * std::sin(angle / 2));
  q.set_y(y * std::sin(angle / 2));
  q.set_z(z * std::sin(angle / 2));
  q.set_w(std::cos(angle / 2));
  return q;
}

void ExpectAt(const Transform& world, double x, double y, double z) {
  EXPECT_NEAR(world.translation.x, x, kEpsilon);
  EXPECT_NEAR(world.translation.y, y, kEpsilon);
  EXPECT_NEAR(world.translation.z, z, kEpsilon);
}

class CharacterPoseTest : public ::testing::Test {
 protected:
  CharacterPoseTest() : model_(*BuildRigModel(TestRig())) {}

  // Joint `name` of request_.pose set to `rotation` (and `translation`).
  v1::JointPose* Set(const std::string& name, const v1::Quat& rotation) {
    v1::JointPose* joint = request_.mutable_pose()->add_joints();
    joint->set_name(name);
    *joint->mutable_local()->mutable_rotation() = rotation;
    return joint;
  }

  RigModel model_;
  v1::TickCharacter request_;
};

TEST_F(CharacterPoseTest, IncomingPoseIsTheRequestsOverTheRestPose) {
  request_.mutable_pose()->mutable_root()->mutable_translation()->set_x(10);
  Set("shoulder", Turn(0, 0, 1, kPi / 2));  // +Y turns to -X
  const PosedCharacter pose = IncomingPose(request_, model_.rig);
  ExpectAt(pose.world[1], 10, 1, 0);
  ExpectAt(pose.world[2], 9, 1, 0);
  ExpectAt(pose.world[3], 8, 1, 0);
}

TEST_F(CharacterPoseTest, ClaimedRotationsAreReportedAsSentAndPlacedRepaired) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  v1::Quat broken = Turn(1, 0, 0, 1.0);
  broken.set_x(nan);
  Set("shoulder", broken);
  v1::Quat doubled;
  doubled.set_w(2.0);
  Set("elbow", doubled);
  const PosedCharacter pose = IncomingPose(request_, model_.rig);
  EXPECT_TRUE(std::isnan(pose.given[1].rotation.x));
  EXPECT_EQ(pose.given[2].rotation.w, 2.0);
  EXPECT_EQ(pose.locals[1].rotation, IdentityQuat());  // the rest rotation
  EXPECT_EQ(pose.locals[2].rotation, IdentityQuat());  // normalised
  ExpectAt(pose.world[3], 0, 3, 0);
}

TEST_F(CharacterPoseTest, CorrectedPoseIsTheAnswersOverTheIncoming) {
  v1::TickCharacterResult result;
  result.add_joints(2);
  const v1::Quat elbow = Turn(1, 0, 0, kPi / 2);  // +Y turns to +Z
  for (const double v : {elbow.x(), elbow.y(), elbow.z(), elbow.w()}) {
    result.add_rotations(v);
  }
  result.mutable_root()->mutable_translation()->set_z(5);
  const PosedCharacter incoming = IncomingPose(request_, model_.rig);
  const PosedCharacter corrected =
      CorrectedPose(request_, result, incoming, model_.rig);
  ExpectAt(corrected.world[2], 0, 2, 5);
  ExpectAt(corrected.world[3], 0, 2, 6);
  EXPECT_THAT(AnsweredJoints(result), ::testing::ElementsAre(2));
}

TEST_F(CharacterPoseTest, CheckedPoseKeepsTheRigsBones) {
  v1::JointPose* wrist = Set("wrist", Turn(0, 0, 1, 0));
  wrist->mutable_local()->mutable_translation()->set_y(3);
  const PosedCharacter incoming = IncomingPose(request_, model_.rig);
  ExpectAt(incoming.world[3], 0, 5, 0);
  request_.mutable_check();
  const PosedCharacter corrected =
      CorrectedPose(request_, v1::TickCharacterResult(), incoming, model_.rig);
  ExpectAt(corrected.world[3], 0, 3, 0);
}

TEST_F(CharacterPoseTest, ReadsACompactAnswer) {
  v1::TickCharacterResult result;
  v1::CompactPose& pose = *result.mutable_compact_pose();
  pose.add_joints(1);
  for (const float v : {0.0f, 0.0f, 1.0f, 0.0f}) pose.add_rotations(v);
  pose.mutable_root()->mutable_translation()->set_y(1);
  const PosedCharacter incoming = IncomingPose(request_, model_.rig);
  const PosedCharacter corrected =
      CorrectedPose(request_, result, incoming, model_.rig);
  ExpectAt(corrected.world[3], 0, 0, 0);  // half a turn about z: down
  EXPECT_THAT(AnsweredJoints(result), ::testing::ElementsAre(1));
}

TEST_F(CharacterPoseTest, SaysHowFarEachJointIsOutsideItsLimit) {
  Set("elbow", Turn(1, 0, 0, -0.5));  // the hinge allows [0, 2]
  JsonWriter json;
  WritePoseJson(IncomingPose(request_, model_.rig), model_.rig, json);
  const std::string text = json.Take();
  const size_t start = text.find("\"outside_limit\":[") + 17;
  const std::vector<std::string> angles =
      absl::StrSplit(text.substr(start, text.find(']', start) - start), ',');
  ASSERT_EQ(angles.size(), 6u);
  double elbow = 0.0;
  ASSERT_TRUE(absl::SimpleAtod(angles[2], &elbow));
  EXPECT_NEAR(elbow, 0.5, 1e-6);
  EXPECT_EQ(angles[1], "0");
}

}  // namespace
}  // namespace ik::inspector
