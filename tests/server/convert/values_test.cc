// server/convert/values: wire <-> core for the shared value types.
#include "server/convert/values.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "server/convert/rig.h"
#include "tests/server/test_rigs.h"

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

}  // namespace
}  // namespace ik::server
