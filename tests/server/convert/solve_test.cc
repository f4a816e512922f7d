// server/convert/solve: SolveChain goals from the wire.
#include "convert/solve.h"

#include <list>

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

TEST(SolveConvertTest, GoalUsesChainAndOverrides) {
  absl::StatusOr<Character> rig = RigFromProto(ArmRig(), ServiceLimits(), "");
  ASSERT_TRUE(rig.ok());
  v1::ChainGoal goal;
  goal.set_chain("arm");
  *goal.mutable_target() = Vec(0.1, 0.2, 0.3);
  goal.set_tolerance(0.01);
  goal.set_solver(v1::SOLVER_TWO_BONE);
  std::list<Chain> ad_hoc;
  absl::StatusOr<ChainGoal> out = GoalFromProto(goal, rig->rig, 3, ad_hoc);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(out->chain, rig->rig.FindChain("arm"));
  EXPECT_EQ(out->target_world, Vec3(0.1, 0.2, 0.3));
  EXPECT_FALSE(out->pole_world.has_value());
  EXPECT_EQ(out->tolerance, 0.01);
  EXPECT_EQ(out->solver, SolverKind::kTwoBone);
  EXPECT_FALSE(out->max_iterations.has_value());

  goal.set_chain("leg");
  out = GoalFromProto(goal, rig->rig, 3, ad_hoc);
  EXPECT_EQ(out.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(out.status().message()), HasSubstr("goals[3].chain"));
  EXPECT_TRUE(ad_hoc.empty());
}

TEST(SolveConvertTest, AdHocChainIsValidatedLikeARigChain) {
  absl::StatusOr<Character> rig = RigFromProto(ArmRig(), ServiceLimits(), "");
  ASSERT_TRUE(rig.ok());
  v1::ChainGoal goal;
  goal.mutable_ad_hoc_chain()->set_root("shoulder");
  goal.mutable_ad_hoc_chain()->set_tip("elbow");
  *goal.mutable_target() = Vec(0, -0.3, 0);
  std::list<Chain> ad_hoc;
  absl::StatusOr<ChainGoal> out = GoalFromProto(goal, rig->rig, 0, ad_hoc);
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(ad_hoc.size(), 1u);
  EXPECT_EQ(out->chain, &ad_hoc.front());
  EXPECT_EQ(out->chain->name, "shoulder..elbow");
  EXPECT_THAT(out->chain->joints, ::testing::ElementsAre(0, 1));

  goal.mutable_ad_hoc_chain()->set_tip("hand");
  out = GoalFromProto(goal, rig->rig, 2, ad_hoc);
  EXPECT_EQ(out.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(out.status().message()),
              HasSubstr("goals[2].ad_hoc_chain.tip"));
}

TEST(SolveConvertTest, OrientationIsNormalisedAndWeightChecked) {
  absl::StatusOr<Character> rig = RigFromProto(ArmRig(), ServiceLimits(), "");
  ASSERT_TRUE(rig.ok());
  v1::ChainGoal goal;
  goal.set_chain("arm");
  *goal.mutable_target() = Vec(0, -0.5, 0);
  std::list<Chain> ad_hoc;
  goal.set_orientation_weight(0.5);
  absl::StatusOr<ChainGoal> out = GoalFromProto(goal, rig->rig, 0, ad_hoc);
  EXPECT_THAT(std::string(out.status().message()),
              HasSubstr("goals[0].orientation_weight: set without"));

  *goal.mutable_orientation() = Rotation(0, 0, 0, 1.0004);
  out = GoalFromProto(goal, rig->rig, 0, ad_hoc);
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_TRUE(out->orientation_world.has_value());
  EXPECT_DOUBLE_EQ(out->orientation_world->w, 1.0);
  EXPECT_EQ(out->orientation_weight, 0.5);

  goal.clear_orientation_weight();
  out = GoalFromProto(goal, rig->rig, 0, ad_hoc);
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(out->orientation_weight, 1.0);

  // Values pass raw with the goal's path; the core checks their range.
  goal.set_orientation_weight(1.5);
  out = GoalFromProto(goal, rig->rig, 0, ad_hoc);
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(out->orientation_weight, 1.5);
  EXPECT_EQ(out->path, "goals[0]");
}

}  // namespace
}  // namespace ik::server
