// server/convert/values: wire <-> core for the shared value types.
#include "convert/values.h"

#include <cmath>
#include <cstring>
#include <random>
#include <string>

#include "convert/rig.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test_rigs.h"

namespace ik::server {
namespace {

using ::ik::testing::ArmRig;
using ::ik::testing::Rotation;
using ::ik::testing::Vec;
using ::testing::HasSubstr;

TEST(ValuesConvertTest, QuaternionKeepsWireComponentOrder) {
  // Wire order is x, y, z, w; GLM's constructor is (w, x, y, z).
  const v1::Quat wire = Rotation(0.1, 0.2, 0.3, 0.9);
  const Quat core = FromProto(wire);
  EXPECT_EQ(core.x, 0.1);
  EXPECT_EQ(core.y, 0.2);
  EXPECT_EQ(core.z, 0.3);
  EXPECT_EQ(core.w, 0.9);
  const v1::Quat back = ToProto(core);
  EXPECT_EQ(back.SerializeAsString(), wire.SerializeAsString());
}

TEST(ValuesConvertTest, VectorRoundTrips) {
  const v1::Vec3 wire = Vec(-1.5, 2.25, 1e-9);
  EXPECT_EQ(ToProto(FromProto(wire)).SerializeAsString(),
            wire.SerializeAsString());
}

TEST(ValuesConvertTest, UnsetTransformFieldsKeepDefaults) {
  Transform defaults;
  defaults.translation = Vec3(0, -0.3, 0);
  defaults.scale = Vec3(2, 2, 2);
  v1::Transform only_rotation;
  *only_rotation.mutable_rotation() = Rotation(0, 0.6, 0, 0.8);
  absl::StatusOr<Transform> out =
      TransformFromProto(only_rotation, defaults, "t");
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(out->translation, defaults.translation);
  EXPECT_EQ(out->scale, defaults.scale);
  EXPECT_NEAR(out->rotation.y, 0.6, 1e-12);
}

TEST(ValuesConvertTest, NearlyUnitRotationIsNormalised) {
  v1::Transform transform;
  *transform.mutable_rotation() = Rotation(0, 0, 0, 1.0009);
  absl::StatusOr<Transform> out =
      TransformFromProto(transform, Transform(), "t");
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_DOUBLE_EQ(out->rotation.w, 1.0);
}

TEST(ValuesConvertTest, RotationBeyondToleranceIsRejectedWithPath) {
  v1::Transform transform;
  *transform.mutable_rotation() = Rotation(0, 0, 0, 1.002);
  absl::StatusOr<Transform> out =
      TransformFromProto(transform, Transform(), "pose.root");
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(out.status().message()),
              HasSubstr("pose.root.rotation: not a unit quaternion"));
}

TEST(ValuesConvertTest, PoseOverridesByNameAndIndex) {
  absl::StatusOr<Character> rig = RigFromProto(ArmRig(), ServiceLimits(), "");
  ASSERT_TRUE(rig.ok());
  v1::Pose pose;
  v1::JointPose* by_name = pose.add_joints();
  by_name->set_name("shoulder");
  *by_name->mutable_local()->mutable_rotation() = Rotation(0, 0, 0.6, 0.8);
  v1::JointPose* by_index = pose.add_joints();
  by_index->set_index(2);
  *by_index->mutable_local()->mutable_translation() = Vec(0, -0.2, 0);
  absl::StatusOr<DensePose> dense = PoseFromProto(pose, rig->rig);
  ASSERT_TRUE(dense.ok()) << dense.status();
  ASSERT_EQ(dense->locals.size(), 3u);
  EXPECT_NEAR(dense->locals[0].rotation.z, 0.6, 1e-12);
  // Unset translation keeps the rest value; unset rotation too.
  EXPECT_EQ(dense->locals[0].translation, rig->rig.rest_pose()[0].translation);
  EXPECT_EQ(dense->locals[2].translation, Vec3(0, -0.2, 0));
  EXPECT_EQ(dense->locals[1].rotation, rig->rig.rest_pose()[1].rotation);
}

// The packed form (Pose.rotations) reads each rotation exactly as a
// JointPose's: the same bits after the same normalisation, on seeded
// nearly-unit rotations (norms within the 1e-3 tolerance, so the division
// matters) for every joint.
TEST(ValuesConvertTest, PackedRotationsReadAsJointPosesToTheBit) {
  absl::StatusOr<Character> rig = RigFromProto(ArmRig(), ServiceLimits(), "");
  ASSERT_TRUE(rig.ok());
  const int joints = rig->rig.joint_count();
  std::mt19937_64 engine(14);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  for (int trial = 0; trial < 500; ++trial) {
    v1::Pose packed;
    v1::Pose sparse;
    for (int j = 0; j < joints; ++j) {
      Quat q(unit(engine), unit(engine), unit(engine), unit(engine));
      q = q / Norm(q) * (1.0 + 9e-4 * unit(engine));
      for (double value : {q.x, q.y, q.z, q.w}) packed.add_rotations(value);
      v1::JointPose& joint = *sparse.add_joints();
      joint.set_index(j);
      *joint.mutable_local()->mutable_rotation() = Rotation(q.x, q.y, q.z, q.w);
    }
    // A JointPose may still set a packed joint's translation.
    v1::JointPose& moved = *packed.add_joints();
    moved.set_index(1);
    *moved.mutable_local()->mutable_translation() = Vec(0, -0.25, 0);
    *sparse.mutable_joints(1)->mutable_local()->mutable_translation() =
        Vec(0, -0.25, 0);
    absl::StatusOr<DensePose> a = PoseFromProto(packed, rig->rig);
    absl::StatusOr<DensePose> b = PoseFromProto(sparse, rig->rig);
    ASSERT_TRUE(a.ok()) << a.status();
    ASSERT_TRUE(b.ok()) << b.status();
    for (int j = 0; j < joints; ++j) {
      EXPECT_EQ(std::memcmp(&a->locals[j], &b->locals[j], sizeof(Transform)), 0)
          << "trial " << trial << " joint " << j;
    }
  }
}

TEST(ValuesConvertTest, PackedRotationsErrorsNameTheirFirstNumber) {
  absl::StatusOr<Character> rig = RigFromProto(ArmRig(), ServiceLimits(), "");
  ASSERT_TRUE(rig.ok());
  const auto error = [&](const v1::Pose& pose) {
    absl::StatusOr<DensePose> out = PoseFromProto(pose, rig->rig);
    EXPECT_FALSE(out.ok());
    return out.ok() ? std::string() : std::string(out.status().message());
  };
  const auto identity = [](int joints) {
    v1::Pose pose;
    for (int j = 0; j < joints; ++j) {
      for (double value : {0.0, 0.0, 0.0, 1.0}) pose.add_rotations(value);
    }
    return pose;
  };
  v1::Pose pose = identity(2);
  pose.add_rotations(0.0);
  EXPECT_THAT(error(pose), HasSubstr("pose.rotations: 9 numbers"));
  EXPECT_THAT(error(identity(4)),
              HasSubstr("pose.rotations: 4 rotations for a rig of 3 joints"));
  pose = identity(3);
  pose.set_rotations(11, 1.01);
  EXPECT_THAT(error(pose), ::testing::StartsWith(
                               "pose.rotations[8]: joint 2 ('wrist'): not a "
                               "unit quaternion (norm 1.01)"));
  pose.set_rotations(9, std::nan(""));
  EXPECT_THAT(error(pose),
              ::testing::StartsWith("pose.rotations[8]: joint 2 ('wrist'): "
                                    "not finite"));
  pose = identity(2);
  v1::JointPose& both = *pose.add_joints();
  both.set_name("elbow");
  *both.mutable_local()->mutable_rotation() = Rotation(0, 0, 0, 1);
  EXPECT_THAT(error(pose),
              ::testing::StartsWith(
                  "pose.joints[0].local.rotation: joint 1 ('elbow') already "
                  "has its rotation from pose.rotations[4]"));
  // Past the packed joints, a JointPose sets the rotation.
  pose.mutable_joints(0)->set_name("wrist");
  EXPECT_TRUE(PoseFromProto(pose, rig->rig).ok());
  // Raw (for the pose check): taken as sent.
  pose = identity(3);
  pose.set_rotations(3, 2.0);
  DensePose raw;
  ASSERT_TRUE(PoseFromProto(pose, rig->rig, TransformCheck::kRaw, raw).ok());
  EXPECT_EQ(raw.locals[0].rotation.w, 2.0);
}

}  // namespace
}  // namespace ik::server
