#include "state/rig_registry.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "test_rigs.h"

namespace ik::server {
namespace {

using ::ik::testing::ArmRig;
using ::testing::HasSubstr;

std::shared_ptr<const RigEntry> Entry(const v1::Rig& rig) {
  auto entry = BuildRigEntry(rig, ServiceLimits(), "rig");
  EXPECT_TRUE(entry.ok()) << entry.status();
  return *entry;
}

v1::Rig Named(const std::string& name) {
  v1::Rig rig = ArmRig();
  rig.set_name(name);
  return rig;
}

TEST(RigRegistryTest, ListIsSortedByName) {
  RigRegistry registry(10);
  for (const char* name : {"zebra", "arm", "monkey"}) {
    ASSERT_TRUE(registry.Register(Entry(Named(name)), false).ok());
  }
  std::vector<std::string> names;
  for (const auto& entry : registry.List())
    names.push_back(entry->rig().name());
  EXPECT_THAT(names, ::testing::ElementsAre("arm", "monkey", "zebra"));
}

TEST(RigRegistryTest, SnapshotOutlivesReplacement) {
  RigRegistry registry(10);
  ASSERT_TRUE(registry.Register(Entry(ArmRig()), false).ok());
  auto before = registry.Get({"arm", "name"});
  ASSERT_TRUE(before.ok());
  v1::Rig changed = ArmRig();
  changed.mutable_joints(2)->mutable_rest()->mutable_translation()->set_y(-0.5);
  auto replaced = registry.Register(Entry(changed), true);
  ASSERT_TRUE(replaced.ok());
  EXPECT_TRUE(replaced->replaced);
  // The old snapshot is untouched and still usable.
  EXPECT_DOUBLE_EQ((*before)->rig().rest_pose()[2].translation.y, -0.25);
  auto after = registry.Get({"arm", "name"});
  ASSERT_TRUE(after.ok());
  EXPECT_DOUBLE_EQ((*after)->rig().rest_pose()[2].translation.y, -0.5);
  EXPECT_NE((*before)->revision, (*after)->revision);
}

TEST(RigRegistryTest, IdenticalContentIsANoOp) {
  RigRegistry registry(1);
  auto first = registry.Register(Entry(ArmRig()), false);
  ASSERT_TRUE(first.ok());
  EXPECT_TRUE(first->created);
  auto again = registry.Register(Entry(ArmRig()), false);
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(again->created);
  EXPECT_EQ(again->entry, first->entry);
  EXPECT_EQ(registry.size(), 1);
}

TEST(RigRegistryTest, LimitCountsNamesNotRegistrations) {
  RigRegistry registry(1);
  ASSERT_TRUE(registry.Register(Entry(ArmRig()), false).ok());
  v1::Rig changed = ArmRig();
  changed.mutable_joints(2)->mutable_rest()->mutable_translation()->set_y(-0.5);
  EXPECT_TRUE(registry.Register(Entry(changed), true).ok());
  auto refused = registry.Register(Entry(Named("other")), false);
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(registry.size(), 1);
}

TEST(RigRegistryTest, DeleteChecksRevision) {
  RigRegistry registry(10);
  auto registered = registry.Register(Entry(ArmRig()), false);
  ASSERT_TRUE(registered.ok());
  auto wrong = registry.Delete({"arm", "name", "sha256:ffffffffffffffff"});
  EXPECT_EQ(wrong.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(wrong.status().message()), HasSubstr("revision"));
  auto removed = registry.Delete({"arm", "name", registered->entry->revision});
  ASSERT_TRUE(removed.ok());
  EXPECT_EQ(*removed, registered->entry->revision);
  EXPECT_EQ(registry.Delete({"arm", "name"}).status().code(),
            absl::StatusCode::kNotFound);
}

TEST(RigRegistryTest, GetPinnedChecksRevision) {
  RigRegistry registry(10);
  auto registered = registry.Register(Entry(ArmRig()), false);
  ASSERT_TRUE(registered.ok());
  EXPECT_TRUE(registry.Get({"arm", "rig"}).ok());
  EXPECT_TRUE(registry.Get({"arm", "rig", registered->entry->revision}).ok());
  EXPECT_EQ(registry.Get({"arm", "rig", "sha256:0"}).status().code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(registry.Get({"leg", "rig"}).status().code(),
            absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace ik::server
