#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "server/convert/rig.h"
#include "server/convert/solve.h"
#include "server/convert/values.h"
#include "server/registry.h"
#include "tests/server/test_rigs.h"

namespace ik::server {
namespace {

using ::ik::testing::ArmRig;
using ::ik::testing::Rotation;
using ::ik::testing::Vec;
using ::testing::HasSubstr;

TEST(ConvertTest, QuaternionKeepsWireComponentOrder) {
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

TEST(ConvertTest, VectorRoundTrips) {
  const v1::Vec3 wire = Vec(-1.5, 2.25, 1e-9);
  EXPECT_EQ(ToProto(FromProto(wire)).SerializeAsString(),
            wire.SerializeAsString());
}

TEST(ConvertTest, UnsetTransformFieldsKeepDefaults) {
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

TEST(ConvertTest, NearlyUnitRotationIsNormalised) {
  v1::Transform transform;
  *transform.mutable_rotation() = Rotation(0, 0, 0, 1.0009);
  absl::StatusOr<Transform> out =
      TransformFromProto(transform, Transform(), "t");
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_DOUBLE_EQ(out->rotation.w, 1.0);
}

TEST(ConvertTest, RotationBeyondToleranceIsRejectedWithPath) {
  v1::Transform transform;
  *transform.mutable_rotation() = Rotation(0, 0, 0, 1.002);
  absl::StatusOr<Transform> out =
      TransformFromProto(transform, Transform(), "pose.root");
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(out.status().message()),
              HasSubstr("pose.root.rotation: not a unit quaternion"));
}

TEST(ConvertTest, ParentByNameAndByIndexGiveTheSameRig) {
  absl::StatusOr<Rig> by_mixed = RigFromProto(ArmRig(), ServiceLimits(), "");
  ASSERT_TRUE(by_mixed.ok()) << by_mixed.status();
  v1::Rig by_index_proto = ArmRig();
  by_index_proto.mutable_joints(1)->set_parent_index(0);
  absl::StatusOr<Rig> by_index =
      RigFromProto(by_index_proto, ServiceLimits(), "");
  ASSERT_TRUE(by_index.ok());
  EXPECT_THAT(by_mixed->parents(), ::testing::ElementsAre(-1, 0, 1));
  EXPECT_THAT(by_index->parents(), ::testing::ElementsAre(-1, 0, 1));
}

TEST(ConvertTest, PrefixStartsEveryRigError) {
  v1::Rig rig = ArmRig();
  rig.mutable_joints(1)->set_parent("missing");
  absl::StatusOr<Rig> out = RigFromProto(rig, ServiceLimits(), "arm.json: ");
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(std::string(out.status().message()),
              ::testing::StartsWith("arm.json: joints[1].parent"));
}

TEST(ConvertTest, RevisionDependsOnContentOnly) {
  absl::StatusOr<Rig> rig = RigFromProto(ArmRig(), ServiceLimits(), "");
  ASSERT_TRUE(rig.ok());
  const std::string revision = ContentRevision(NormalizedRig(ArmRig(), *rig));
  EXPECT_EQ(revision, ContentRevision(NormalizedRig(ArmRig(), *rig)));
  v1::Rig renamed = ArmRig();
  renamed.set_name("arm2");
  EXPECT_NE(revision, ContentRevision(renamed));
}

TEST(ConvertTest, PoseOverridesByNameAndIndex) {
  absl::StatusOr<Rig> rig = RigFromProto(ArmRig(), ServiceLimits(), "");
  ASSERT_TRUE(rig.ok());
  v1::Pose pose;
  v1::JointPose* by_name = pose.add_joints();
  by_name->set_name("shoulder");
  *by_name->mutable_local()->mutable_rotation() = Rotation(0, 0, 0.6, 0.8);
  v1::JointPose* by_index = pose.add_joints();
  by_index->set_index(2);
  *by_index->mutable_local()->mutable_translation() = Vec(0, -0.2, 0);
  absl::StatusOr<DensePose> dense = PoseFromProto(pose, *rig);
  ASSERT_TRUE(dense.ok()) << dense.status();
  ASSERT_EQ(dense->locals.size(), 3u);
  EXPECT_NEAR(dense->locals[0].rotation.z, 0.6, 1e-12);
  // Unset translation keeps the rest value; unset rotation too.
  EXPECT_EQ(dense->locals[0].translation, rig->rest_pose()[0].translation);
  EXPECT_EQ(dense->locals[2].translation, Vec3(0, -0.2, 0));
  EXPECT_EQ(dense->locals[1].rotation, rig->rest_pose()[1].rotation);
}

TEST(ConvertTest, GoalUsesChainAndOverrides) {
  absl::StatusOr<Rig> rig = RigFromProto(ArmRig(), ServiceLimits(), "");
  ASSERT_TRUE(rig.ok());
  v1::ChainGoal goal;
  goal.set_chain("arm");
  *goal.mutable_target() = Vec(0.1, 0.2, 0.3);
  goal.set_tolerance(0.01);
  goal.set_solver(v1::SOLVER_TWO_BONE);
  std::deque<Chain> ad_hoc;
  absl::StatusOr<ChainGoal> out = GoalFromProto(goal, *rig, 3, ad_hoc);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(out->chain, rig->FindChain("arm"));
  EXPECT_EQ(out->target_world, Vec3(0.1, 0.2, 0.3));
  EXPECT_FALSE(out->pole_world.has_value());
  EXPECT_EQ(out->tolerance, 0.01);
  EXPECT_EQ(out->solver, SolverKind::kTwoBone);
  EXPECT_FALSE(out->max_iterations.has_value());

  goal.set_chain("leg");
  out = GoalFromProto(goal, *rig, 3, ad_hoc);
  EXPECT_EQ(out.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(out.status().message()), HasSubstr("goals[3].chain"));
  EXPECT_TRUE(ad_hoc.empty());
}

TEST(ConvertTest, AdHocChainIsValidatedLikeARigChain) {
  absl::StatusOr<Rig> rig = RigFromProto(ArmRig(), ServiceLimits(), "");
  ASSERT_TRUE(rig.ok());
  v1::ChainGoal goal;
  goal.mutable_ad_hoc_chain()->set_root("shoulder");
  goal.mutable_ad_hoc_chain()->set_tip("elbow");
  *goal.mutable_target() = Vec(0, -0.3, 0);
  std::deque<Chain> ad_hoc;
  absl::StatusOr<ChainGoal> out = GoalFromProto(goal, *rig, 0, ad_hoc);
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(ad_hoc.size(), 1u);
  EXPECT_EQ(out->chain, &ad_hoc.front());
  EXPECT_EQ(out->chain->name, "shoulder..elbow");
  EXPECT_THAT(out->chain->joints, ::testing::ElementsAre(0, 1));

  goal.mutable_ad_hoc_chain()->set_tip("hand");
  out = GoalFromProto(goal, *rig, 2, ad_hoc);
  EXPECT_EQ(out.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(out.status().message()),
              HasSubstr("goals[2].ad_hoc_chain.tip"));
}

TEST(ConvertTest, OrientationIsNormalisedAndWeightChecked) {
  absl::StatusOr<Rig> rig = RigFromProto(ArmRig(), ServiceLimits(), "");
  ASSERT_TRUE(rig.ok());
  v1::ChainGoal goal;
  goal.set_chain("arm");
  *goal.mutable_target() = Vec(0, -0.5, 0);
  std::deque<Chain> ad_hoc;
  goal.set_orientation_weight(0.5);
  absl::StatusOr<ChainGoal> out = GoalFromProto(goal, *rig, 0, ad_hoc);
  EXPECT_THAT(std::string(out.status().message()),
              HasSubstr("goals[0].orientation_weight: set without"));

  *goal.mutable_orientation() = Rotation(0, 0, 0, 1.0004);
  out = GoalFromProto(goal, *rig, 0, ad_hoc);
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_TRUE(out->orientation_world.has_value());
  EXPECT_DOUBLE_EQ(out->orientation_world->w, 1.0);
  EXPECT_EQ(out->orientation_weight, 0.5);

  goal.clear_orientation_weight();
  out = GoalFromProto(goal, *rig, 0, ad_hoc);
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(out->orientation_weight, 1.0);

  goal.set_orientation_weight(1.5);
  out = GoalFromProto(goal, *rig, 0, ad_hoc);
  EXPECT_THAT(std::string(out.status().message()),
              HasSubstr("goals[0].orientation_weight: 1.5 is outside [0, 1]"));
}

}  // namespace
}  // namespace ik::server
