#include "rig_model.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "inspector_test_rig.h"

namespace ik::inspector {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(RigModelTest, ResolvesLegsCollidersAndDynamicChainsToJoints) {
  absl::StatusOr<RigModel> model = BuildRigModel(TestRig());
  ASSERT_TRUE(model.ok()) << model.status();
  EXPECT_EQ(model->revision, "sha256:test");
  EXPECT_EQ(model->rig.joint_count(), 6);
  ASSERT_EQ(model->legs.size(), 1u);
  EXPECT_THAT(model->legs[0].joints, ElementsAre(1, 2, 3));
  ASSERT_EQ(model->colliders.size(), 1u);
  EXPECT_EQ(model->colliders[0].joint, 2);
  EXPECT_EQ(model->colliders[0].start.y, 0.5);
  ASSERT_EQ(model->dynamic_chains.size(), 1u);
  // The root and both branches below it.
  EXPECT_THAT(model->dynamic_chains[0].joints, ElementsAre(3, 4, 5));
  EXPECT_THAT(model->dynamic_chains[0].colliders, ElementsAre(0));
}

TEST(RigModelTest, FindsAGoalsChainByNameOrRootAndTip) {
  absl::StatusOr<RigModel> model = BuildRigModel(TestRig());
  ASSERT_TRUE(model.ok()) << model.status();
  v1::ChainGoal goal;
  goal.set_chain("arm");
  EXPECT_THAT(GoalChainJoints(*model, goal), ElementsAre(1, 2, 3));
  goal.mutable_ad_hoc_chain()->set_root("base");
  goal.mutable_ad_hoc_chain()->set_tip("elbow");
  EXPECT_THAT(GoalChainJoints(*model, goal), ElementsAre(0, 1, 2));
  goal.set_chain("leg");
  EXPECT_TRUE(GoalChainJoints(*model, goal).empty());
}

TEST(RigModelTest, WritesTheLimitAsTheCoreHoldsIt) {
  absl::StatusOr<RigModel> model = BuildRigModel(TestRig());
  ASSERT_TRUE(model.ok()) << model.status();
  JsonWriter json;
  WriteRigJson(*model, json);
  const std::string text = json.Take();
  EXPECT_THAT(text,
              HasSubstr(R"({"name":"elbow","parent":1,"limit":{)"
                        R"("kind":"hinge","axis":[1,0,0],"range":[0,2])"));
  EXPECT_THAT(text, HasSubstr(R"("dynamic_chains":[{"name":"tail","joints":)"
                              R"([3,4,5],"colliders":[0]}])"));
}

TEST(RigModelTest, SaysWhichRigTheCoreRefused) {
  v1::RecordedRig recorded = TestRig();
  recorded.mutable_rig()->mutable_joints(1)->set_parent("nobody");
  absl::StatusOr<RigModel> model = BuildRigModel(recorded);
  EXPECT_FALSE(model.ok());
  EXPECT_THAT(model.status().message(),
              HasSubstr("rig 'arm' (sha256:test): joints[1]"));
}

}  // namespace
}  // namespace ik::inspector
