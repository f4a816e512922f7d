// server/convert/rig: rigs from the wire, and their content revision.
#include "convert/rig.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ik/base/field_error.h"
#include "state/registry.h"
#include "test_rigs.h"

namespace ik::server {
namespace {

using ::ik::testing::ArmRig;

TEST(RigConvertTest, ParentByNameAndByIndexGiveTheSameRig) {
  absl::StatusOr<Character> by_mixed =
      RigFromProto(ArmRig(), ServiceLimits(), "");
  ASSERT_TRUE(by_mixed.ok()) << by_mixed.status();
  v1::Rig by_index_proto = ArmRig();
  by_index_proto.mutable_joints(1)->set_parent_index(0);
  absl::StatusOr<Character> by_index =
      RigFromProto(by_index_proto, ServiceLimits(), "");
  ASSERT_TRUE(by_index.ok());
  EXPECT_THAT(by_mixed->rig.parents(), ::testing::ElementsAre(-1, 0, 1));
  EXPECT_THAT(by_index->rig.parents(), ::testing::ElementsAre(-1, 0, 1));
}

TEST(RigConvertTest, PathStartsEveryRigErrorAndItsPayload) {
  v1::Rig rig = ArmRig();
  rig.mutable_joints(1)->set_parent("missing");
  absl::StatusOr<Character> out = RigFromProto(rig, ServiceLimits(), "rig");
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(std::string(out.status().message()),
              ::testing::StartsWith("rig.joints[1].parent: "));
  EXPECT_EQ(FieldPathOf(out.status()), "rig.joints[1].parent");

  // Errors the core finds are rooted the same way.
  rig = ArmRig();
  rig.mutable_chains(0)->set_tip("missing");
  out = RigFromProto(rig, ServiceLimits(), "rig");
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(FieldPathOf(out.status()), "rig.chains[0].tip");
  EXPECT_THAT(std::string(out.status().message()),
              ::testing::StartsWith("rig.chains[0].tip: unknown joint"));

  // Without a path (a rig file) the rig's own field names remain.
  out = RigFromProto(rig, ServiceLimits(), "");
  EXPECT_EQ(FieldPathOf(out.status()), "chains[0].tip");
}

TEST(RigConvertTest, RevisionDependsOnContentOnly) {
  absl::StatusOr<Character> rig = RigFromProto(ArmRig(), ServiceLimits(), "");
  ASSERT_TRUE(rig.ok());
  const std::string revision =
      ContentRevision(NormalizedRig(ArmRig(), rig->rig));
  EXPECT_EQ(revision, ContentRevision(NormalizedRig(ArmRig(), rig->rig)));
  v1::Rig renamed = ArmRig();
  renamed.set_name("arm2");
  EXPECT_NE(revision, ContentRevision(renamed));
}

}  // namespace
}  // namespace ik::server
