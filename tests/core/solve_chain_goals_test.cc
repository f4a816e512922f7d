// SolveChainJob (solve_chain.cc), continued: the iterative solvers
// behind it, ad hoc chains, per-request overrides, joint limits in the
// answer (two-bone included) and orientation goals. solve_chain_test.cc
// covers validation and the two-bone paths.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <optional>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "humanoid_rig.h"
#include "ik/base/joint_limits.h"
#include "ik/rig/forward_kinematics.h"
#include "ik/rig/solve_chain.h"
#include "random_poses.h"
#include "solve_chain_runner.h"

namespace ik {
namespace {

class SolveChainGoalsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<Rig> rig = testing::HumanoidRig();
    ASSERT_TRUE(rig.ok()) << rig.status();
    rig_.emplace(*std::move(rig));
    locals_.assign(rig_->rest_pose().begin(), rig_->rest_pose().end());
    arm_ = rig_->FindChain("left_arm_clavicle");
    ASSERT_NE(arm_, nullptr);
  }

  int Joint(const char* name) const { return rig_->FindJoint(name); }

  std::vector<Transform> Models(const Transform& root = Transform()) const {
    std::vector<Transform> models(locals_.size());
    LocalToModelJob fk;
    fk.parents = rig_->parents();
    fk.locals = locals_;
    fk.root = root;
    fk.models = absl::MakeSpan(models);
    EXPECT_TRUE(fk.Run().ok());
    return models;
  }

  // A target the clavicle arm reaches within its limits.
  Vec3 ReachableTarget(uint64_t seed) const {
    std::mt19937_64 engine(seed);
    return testing::ReachableTarget(*rig_, *arm_, engine);
  }

  ChainGoal Goal(const Chain* chain, const Vec3& target) const {
    ChainGoal goal;
    goal.chain = chain;
    goal.target_world = target;
    return goal;
  }

  absl::StatusOr<ChainSolveResult> Solve(const ChainGoal& goal,
                                         const Transform& root = Transform()) {
    return solver_->Solve(goal, root, absl::MakeSpan(locals_));
  }

  void ExpectWithinLimits(int joint) const {
    const LimitedRotation check = ApplyJointLimit(
        rig_->joint(joint).limit, rig_->joint(joint).rest.rotation,
        locals_[joint].rotation);
    EXPECT_FALSE(check.clamped) << rig_->joint(joint).name;
  }

  std::optional<Rig> rig_;
  std::vector<Transform> locals_;
  const Chain* arm_ = nullptr;
  std::optional<testing::ChainSolveRunner> solver_;
};

TEST_F(SolveChainGoalsTest, SolvesTheClavicleArmWithEachIterativeSolver) {
  const std::vector<Transform> rest = locals_;
  for (const SolverKind kind :
       {SolverKind::kAuto, SolverKind::kFabrik, SolverKind::kCcd}) {
    locals_ = rest;
    solver_.emplace(*rig_);
    ChainGoal goal = Goal(arm_, ReachableTarget(3));
    goal.solver = kind;
    absl::StatusOr<ChainSolveResult> result = Solve(goal);
    ASSERT_TRUE(result.ok()) << result.status();
    EXPECT_EQ(result->solver, kind == SolverKind::kCcd ? SolverKind::kCcd
                                                       : SolverKind::kFabrik);
    EXPECT_TRUE(result->report.reached);
    EXPECT_EQ(result->stop_reason, StopReason::kReached);
    EXPECT_LE(result->report.residual, arm_->tolerance);
    EXPECT_GE(result->report.iterations, 1);
    const Vec3 wrist = Models()[Joint("left_wrist")].translation;
    EXPECT_NEAR(glm::length(wrist - goal.target_world), result->report.residual,
                1e-12);
    EXPECT_EQ(result->tip_world, wrist);
    // Only the chain's joints before the tip turned.
    for (int i = 0; i < rig_->joint_count(); ++i) {
      const bool turned =
          std::find(arm_->joints.begin(), arm_->joints.end() - 1, i) !=
          arm_->joints.end() - 1;
      if (!turned) {
        EXPECT_EQ(locals_[i].rotation, rest[i].rotation) << i;
      }
      EXPECT_EQ(locals_[i].translation, rest[i].translation);
    }
    for (const int joint : arm_->joints) ExpectWithinLimits(joint);
  }
}

TEST_F(SolveChainGoalsTest, RequestOverridesTheChainsCapAndTolerance) {
  solver_.emplace(*rig_);
  ChainGoal goal = Goal(arm_, ReachableTarget(5));
  goal.max_iterations = 1;
  goal.tolerance = 0.0;
  absl::StatusOr<ChainSolveResult> result = Solve(goal);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->report.iterations, 1);
  EXPECT_EQ(result->stop_reason, StopReason::kIterationCap);
  EXPECT_FALSE(result->report.reached);

  // A tolerance the rest pose already meets: nothing to do.
  locals_.assign(rig_->rest_pose().begin(), rig_->rest_pose().end());
  goal.max_iterations.reset();
  goal.tolerance = 10.0;
  result = Solve(goal);
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result->report.iterations, 0);
  EXPECT_EQ(result->stop_reason, StopReason::kReached);
  EXPECT_TRUE(result->report.reached);
}

TEST_F(SolveChainGoalsTest, MeetsTheToleranceInWorldSpaceUnderAScaledRoot) {
  solver_.emplace(*rig_);
  Transform root;
  root.translation = Vec3(4.0, 0.0, 1.0);
  root.scale = Vec3(3.0);
  const ChainGoal goal = Goal(arm_, TransformPoint(root, ReachableTarget(11)));
  absl::StatusOr<ChainSolveResult> result = Solve(goal, root);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_TRUE(result->report.reached);
  EXPECT_LE(result->report.residual, arm_->tolerance);
  EXPECT_NEAR(glm::length(Models(root)[Joint("left_wrist")].translation -
                          goal.target_world),
              result->report.residual, 1e-12);
}

TEST_F(SolveChainGoalsTest, SolvesAnAdHocChain) {
  ChainDefinition definition;
  definition.name = "left_clavicle..left_elbow";
  definition.root = "left_clavicle";
  definition.tip = "left_elbow";
  absl::StatusOr<Chain> chain = rig_->MakeChain(definition);
  ASSERT_TRUE(chain.ok()) << chain.status();
  const Vec3 elbow = Models()[Joint("left_elbow")].translation;
  solver_.emplace(*rig_);
  // Two bones: AUTO is the two-bone solver; the elbow moves up a little.
  absl::StatusOr<ChainSolveResult> result =
      Solve(Goal(&*chain, elbow + Vec3(-0.02, 0.08, 0.03)));
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->solver, SolverKind::kTwoBone);
  EXPECT_TRUE(result->report.reached) << result->report.residual;
  ChainGoal goal = Goal(&*chain, elbow + Vec3(-0.02, 0.1, 0.0));
  goal.solver = SolverKind::kCcd;
  result = Solve(goal);
  ASSERT_TRUE(result.ok()) << result.status();
  // CCD runs first; where its sweeps stall on the hinge, the torque solver
  // (or FABRIK) from the same start gives the answer, which says so.
  EXPECT_TRUE(result->solver == SolverKind::kCcd ||
              result->solver == SolverKind::kTorque ||
              result->solver == SolverKind::kFabrik);
  EXPECT_TRUE(result->report.reached) << result->report.residual;
}

TEST_F(SolveChainGoalsTest, TwoBoneClampsTheElbowHingeAndReportsIt) {
  solver_.emplace(*rig_);
  const Vec3 shoulder = Models()[Joint("left_shoulder")].translation;
  // 5 cm from the shoulder: the forearm would have to fold past 2.53 rad.
  absl::StatusOr<ChainSolveResult> result =
      Solve(Goal(rig_->FindChain("left_arm"), shoulder + Vec3(0.0, 0.0, 0.05)));
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_FALSE(result->report.reached);
  EXPECT_EQ(result->stop_reason, StopReason::kOutOfReach);
  const int elbow = Joint("left_elbow");
  EXPECT_NE(std::find(result->limited_joints.begin(),
                      result->limited_joints.end(), elbow),
            result->limited_joints.end());
  const JointDefinition& definition = rig_->joint(elbow);
  const SwingTwist hinge = DecomposeSwingTwist(
      glm::conjugate(definition.rest.rotation) * locals_[elbow].rotation,
      definition.limit.hinge.axis);
  EXPECT_NEAR(hinge.twist_angle, definition.limit.hinge.range.max, 1e-9);
  EXPECT_NEAR(std::abs(hinge.swing.w), 1.0, 1e-15);
  ExpectWithinLimits(Joint("left_shoulder"));
}

TEST_F(SolveChainGoalsTest, ListsLimitedJointsAscendingFromTheChain) {
  solver_.emplace(*rig_);
  // Far behind the back: every joint ends on a limit.
  ChainGoal goal = Goal(arm_, Vec3(0.1, 1.3, -0.6));
  for (const SolverKind kind : {SolverKind::kFabrik, SolverKind::kCcd}) {
    locals_.assign(rig_->rest_pose().begin(), rig_->rest_pose().end());
    goal.solver = kind;
    absl::StatusOr<ChainSolveResult> result = Solve(goal);
    ASSERT_TRUE(result.ok()) << result.status();
    EXPECT_FALSE(result->report.reached);
    EXPECT_FALSE(result->limited_joints.empty());
    EXPECT_TRUE(std::is_sorted(result->limited_joints.begin(),
                               result->limited_joints.end()));
    for (const int joint : result->limited_joints) {
      EXPECT_NE(std::find(arm_->joints.begin(), arm_->joints.end(), joint),
                arm_->joints.end());
    }
    for (const int joint : arm_->joints) ExpectWithinLimits(joint);
  }
}

// Orientation goals: the tip's world rotation.
class OrientationGoalTest : public SolveChainGoalsTest {
 protected:
  // The wrist's world rotation after solving `goal`.
  Quat SolveAndGetWrist(const ChainGoal& goal,
                        ChainSolveResult* out = nullptr) {
    locals_.assign(rig_->rest_pose().begin(), rig_->rest_pose().end());
    solver_.emplace(*rig_);
    absl::StatusOr<ChainSolveResult> result = Solve(goal, root_);
    EXPECT_TRUE(result.ok()) << result.status();
    if (out != nullptr && result.ok()) *out = *result;
    return Models(root_)[Joint("left_wrist")].rotation;
  }

  Transform root_ = [] {
    Transform root;
    root.rotation = AngleAxis(0.7, Vec3(0.0, 1.0, 0.0));
    return root;
  }();
};

TEST_F(OrientationGoalTest, TurnsTheTipToTheGivenWorldRotation) {
  ChainGoal goal = Goal(arm_, TransformPoint(root_, ReachableTarget(21)));
  ChainSolveResult plain;
  const Quat solved = SolveAndGetWrist(goal, &plain);
  // 0.6 rad of swing and 0.3 of twist from the solved pose: within the
  // wrist's cone (1.2) and twist range (0.5).
  const Quat wanted = solved * AngleAxis(0.6, Vec3(0.0, 0.0, 1.0)) *
                      AngleAxis(0.3, Vec3(1.0, 0.0, 0.0));
  goal.orientation_world = wanted;
  ChainSolveResult result;
  const Quat wrist = SolveAndGetWrist(goal, &result);
  EXPECT_NEAR(std::abs(glm::dot(wrist, wanted)), 1.0, 1e-12);
  // The position solve is the same, and the wrist is not limited.
  EXPECT_EQ(result.report.residual, plain.report.residual);
  EXPECT_EQ(std::count(result.limited_joints.begin(),
                       result.limited_joints.end(), Joint("left_wrist")),
            0);
  ExpectWithinLimits(Joint("left_wrist"));
}

TEST_F(OrientationGoalTest, BlendsByTheWeight) {
  ChainGoal goal = Goal(arm_, TransformPoint(root_, ReachableTarget(22)));
  const Quat solved = SolveAndGetWrist(goal);
  const Quat wanted = solved * AngleAxis(0.8, Vec3(0.0, 1.0, 0.0));
  goal.orientation_world = wanted;
  goal.orientation_weight = 0.25;
  const Quat quarter = SolveAndGetWrist(goal);
  EXPECT_NEAR(
      std::abs(glm::dot(quarter, solved * AngleAxis(0.2, Vec3(0.0, 1.0, 0.0)))),
      1.0, 1e-12);
  goal.orientation_weight = 0.0;
  const Quat none = SolveAndGetWrist(goal);
  EXPECT_EQ(locals_[Joint("left_wrist")].rotation,
            rig_->rest_pose()[Joint("left_wrist")].rotation);
  // The same rotation to a few ulps (the blend's sines do not cancel
  // exactly).
  EXPECT_NEAR(std::abs(glm::dot(none, solved)), 1.0, 1e-14);
}

TEST_F(OrientationGoalTest, TheTipsLimitClampsIt) {
  ChainGoal goal = Goal(arm_, TransformPoint(root_, ReachableTarget(23)));
  const Quat solved = SolveAndGetWrist(goal);
  // 2 rad of twist about the forearm: the wrist allows 0.5.
  goal.orientation_world = solved * AngleAxis(2.0, Vec3(1.0, 0.0, 0.0));
  ChainSolveResult result;
  SolveAndGetWrist(goal, &result);
  EXPECT_NE(std::find(result.limited_joints.begin(),
                      result.limited_joints.end(), Joint("left_wrist")),
            result.limited_joints.end());
  ExpectWithinLimits(Joint("left_wrist"));
}

TEST_F(OrientationGoalTest, AppliesToTheTwoBoneSolverToo) {
  const Chain* arm = rig_->FindChain("left_arm");
  ChainGoal goal = Goal(arm, TransformPoint(root_, Vec3(0.45, 1.2, 0.15)));
  const Quat solved = SolveAndGetWrist(goal);
  const Quat wanted = solved * AngleAxis(-0.4, Vec3(0.0, 0.0, 1.0));
  goal.orientation_world = wanted;
  ChainSolveResult result;
  const Quat wrist = SolveAndGetWrist(goal, &result);
  EXPECT_EQ(result.solver, SolverKind::kTwoBone);
  EXPECT_NEAR(std::abs(glm::dot(wrist, wanted)), 1.0, 1e-12);
}

TEST_F(OrientationGoalTest, RejectsBadOrientations) {
  solver_.emplace(*rig_);
  ChainGoal goal = Goal(arm_, ReachableTarget(24));
  goal.orientation_world = Quat(0.0, 0.0, 0.0, 0.0);
  absl::StatusOr<ChainSolveResult> result = Solve(goal);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StartsWith(result.status().message(),
                               "orientation: not a unit quaternion (norm 0)"))
      << result.status();
  for (const double weight : {1.5, -0.1, std::nan("")}) {
    goal.orientation_world = IdentityQuat();
    goal.orientation_weight = weight;
    result = Solve(goal);
    ASSERT_FALSE(result.ok());
    EXPECT_EQ(result.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_TRUE(
        absl::StartsWith(result.status().message(), "orientation_weight: "))
        << result.status();
    EXPECT_TRUE(
        absl::StrContains(result.status().message(), "is not within [0, 1]"))
        << result.status();
  }
}

}  // namespace
}  // namespace ik
