// server/convert/rig: rigs from the wire, and their content revision.
#include "server/convert/rig.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "server/registry.h"
#include "tests/server/test_rigs.h"

namespace ik::server {
namespace {

using ::ik::testing::ArmRig;

TEST(RigConvertTest, ParentByNameAndByIndexGiveTheSameRig) {
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

TEST(RigConvertTest, PrefixStartsEveryRigError) {
  v1::Rig rig = ArmRig();
  rig.mutable_joints(1)->set_parent("missing");
  absl::StatusOr<Rig> out = RigFromProto(rig, ServiceLimits(), "arm.json: ");
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(std::string(out.status().message()),
              ::testing::StartsWith("arm.json: joints[1].parent"));
}

TEST(RigConvertTest, RevisionDependsOnContentOnly) {
  absl::StatusOr<Rig> rig = RigFromProto(ArmRig(), ServiceLimits(), "");
  ASSERT_TRUE(rig.ok());
  const std::string revision = ContentRevision(NormalizedRig(ArmRig(), *rig));
  EXPECT_EQ(revision, ContentRevision(NormalizedRig(ArmRig(), *rig)));
  v1::Rig renamed = ArmRig();
  renamed.set_name("arm2");
  EXPECT_NE(revision, ContentRevision(renamed));
}

}  // namespace
}  // namespace ik::server
