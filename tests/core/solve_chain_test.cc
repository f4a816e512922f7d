#include "ik/rig/solve_chain.h"

#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "humanoid_rig.h"
#include "ik/rig/forward_kinematics.h"
#include "solve_chain_runner.h"

namespace ik {
namespace {

constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

std::vector<Transform> ModelPose(const Rig& rig,
                                 absl::Span<const Transform> locals,
                                 const Transform& root = Transform()) {
  std::vector<Transform> models(rig.joint_count());
  LocalToModelJob fk;
  fk.parents = rig.parents();
  fk.locals = locals;
  fk.root = root;
  fk.models = absl::MakeSpan(models);
  EXPECT_TRUE(fk.Run().ok());
  return models;
}

class SolveChainJobTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<Rig> rig = testing::HumanoidRig();
    ASSERT_TRUE(rig.ok()) << rig.status();
    rig_.emplace(*std::move(rig));
    locals_.assign(rig_->rest_pose().begin(), rig_->rest_pose().end());
  }

  ChainGoal Goal(const char* chain, const Vec3& target) const {
    ChainGoal goal;
    goal.chain = rig_->FindChain(chain);
    EXPECT_NE(goal.chain, nullptr) << chain;
    goal.target_world = target;
    return goal;
  }

  Vec3 ModelPosition(const char* joint, const Transform& root = Transform()) {
    return ModelPose(*rig_, locals_, root)[rig_->FindJoint(joint)].translation;
  }

  void ExpectInvalid(const ChainGoal& goal, const std::string& prefix,
                     const Transform& root = Transform()) {
    const std::vector<Transform> before = locals_;
    testing::ChainSolveRunner solver(*rig_);
    absl::StatusOr<ChainSolveResult> result =
        solver.Solve(goal, root, absl::MakeSpan(locals_));
    ASSERT_FALSE(result.ok());
    EXPECT_EQ(result.status().code(), absl::StatusCode::kInvalidArgument)
        << result.status();
    EXPECT_TRUE(absl::StartsWith(result.status().message(), prefix))
        << result.status().message() << " does not start with " << prefix;
    EXPECT_EQ(std::memcmp(before.data(), locals_.data(),
                          before.size() * sizeof(Transform)),
              0)
        << "a failed solve changed the pose";
    // Validate() alone finds the same fault, unless it is one only the
    // chain's solver sees (a pose it refuses).
    if (absl::StrContains(prefix, "cannot be solved in this pose")) return;
    ChainSolveResult unused;
    SolveChainWorkspace workspace;
    SolveChainJob job;
    job.rig = &*rig_;
    job.goal = &goal;
    job.root = root;
    job.locals = absl::MakeSpan(locals_);
    job.workspace = &workspace;
    job.result = &unused;
    EXPECT_EQ(job.Validate(), result.status());
  }

  // The joint's local rotation relative to its rest rotation turns only
  // about the hinge axis.
  void ExpectOnHinge(const char* joint_name) {
    const int joint = rig_->FindJoint(joint_name);
    const JointDefinition& definition = rig_->joint(joint);
    ASSERT_EQ(definition.limit.kind, JointLimit::Kind::kHinge);
    const Quat relative =
        glm::conjugate(definition.rest.rotation) * locals_[joint].rotation;
    const Vec3 axis(relative.x, relative.y, relative.z);
    EXPECT_NEAR(glm::length(glm::cross(axis, definition.limit.hinge.axis)), 0.0,
                1e-12)
        << joint_name;
  }

  std::optional<Rig> rig_;
  std::vector<Transform> locals_;
};

TEST_F(SolveChainJobTest, ReachesATargetWithTheLeftArm) {
  testing::ChainSolveRunner solver(*rig_);
  const std::vector<Transform> before = locals_;
  const Vec3 target(0.45, 1.2, 0.15);
  absl::StatusOr<ChainSolveResult> result = solver.Solve(
      Goal("left_arm", target), Transform(), absl::MakeSpan(locals_));
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_TRUE(result->report.reached);
  EXPECT_LT(result->report.residual, 1e-12);
  EXPECT_EQ(result->report.iterations, 1);
  EXPECT_EQ(result->solver, SolverKind::kTwoBone);
  EXPECT_TRUE(result->limited_joints.empty());
  EXPECT_LT(glm::length(result->tip_world - target), 1e-12);
  EXPECT_LT(glm::length(ModelPosition("left_wrist") - target), 1e-12);
  EXPECT_EQ(result->report.tip_model, result->tip_world);
  // Only the shoulder's and the elbow's rotations changed.
  const int shoulder = rig_->FindJoint("left_shoulder");
  const int elbow = rig_->FindJoint("left_elbow");
  for (int i = 0; i < rig_->joint_count(); ++i) {
    EXPECT_EQ(locals_[i].translation, before[i].translation);
    EXPECT_EQ(locals_[i].scale, before[i].scale);
    if (i != shoulder && i != elbow) {
      EXPECT_EQ(locals_[i].rotation, before[i].rotation) << rig_->joint(i).name;
    }
  }
  EXPECT_NE(locals_[shoulder].rotation, before[shoulder].rotation);
  EXPECT_NEAR(Norm(locals_[shoulder].rotation), 1.0, 1e-15);
  ExpectOnHinge("left_elbow");
}

TEST_F(SolveChainJobTest, MapsWorldTargetsThroughTheRootTransform) {
  Transform root;
  root.translation = Vec3(10.0, 0.5, -3.0);
  root.rotation = AngleAxis(kPi / 2.0, Vec3(0.0, 1.0, 0.0));
  root.scale = Vec3(1.5);
  // A model-space point the right arm can reach, moved into the world.
  const Vec3 target_model(-0.4, 1.3, 0.2);
  const Vec3 target_world = TransformPoint(root, target_model);
  testing::ChainSolveRunner solver(*rig_);
  absl::StatusOr<ChainSolveResult> result = solver.Solve(
      Goal("right_arm", target_world), root, absl::MakeSpan(locals_));
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_TRUE(result->report.reached);
  EXPECT_LT(glm::length(result->tip_world - target_world), 1e-12);
  EXPECT_LT(glm::length(ModelPosition("right_wrist", root) - target_world),
            1e-12);
  EXPECT_LT(glm::length(result->report.tip_model - target_model), 1e-12);
}

TEST_F(SolveChainJobTest, UnreachableTargetReportsTheWorldResidual) {
  Transform root;
  root.scale = Vec3(2.0);
  const Vec3 shoulder_world = ModelPosition("left_shoulder", root);
  const Vec3 target = shoulder_world + Vec3(3.0, 0.0, 4.0);  // 5 m away
  testing::ChainSolveRunner solver(*rig_);
  absl::StatusOr<ChainSolveResult> result =
      solver.Solve(Goal("left_arm", target), root, absl::MakeSpan(locals_));
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_FALSE(result->report.reached);
  // Upper arm 0.29 + forearm 0.26, doubled by the root's scale.
  EXPECT_NEAR(result->report.residual, 5.0 - 2.0 * 0.55, 1e-12);
}

TEST_F(SolveChainJobTest, KneeBendsBackwardsWhenTheFootIsRaised) {
  const Vec3 hip = ModelPosition("left_hip");
  const Vec3 ankle = ModelPosition("left_ankle");
  const Vec3 target = ankle + Vec3(0.0, 0.3, 0.0);
  testing::ChainSolveRunner solver(*rig_);
  absl::StatusOr<ChainSolveResult> result = solver.Solve(
      Goal("left_leg", target), Transform(), absl::MakeSpan(locals_));
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_TRUE(result->report.reached);
  const Vec3 knee = ModelPosition("left_knee");
  EXPECT_GT(knee.z, hip.z + 0.1) << "the knee should come forward";
  EXPECT_NEAR(knee.x, hip.x, 1e-12) << "the knee stays in the sagittal plane";
  ExpectOnHinge("left_knee");
}

TEST_F(SolveChainJobTest, ElbowBendsForwardWhenTheHandComesIn) {
  const Vec3 shoulder = ModelPosition("left_shoulder");
  const Vec3 target = shoulder + Vec3(0.25, 0.0, 0.0);
  testing::ChainSolveRunner solver(*rig_);
  absl::StatusOr<ChainSolveResult> result = solver.Solve(
      Goal("left_arm", target), Transform(), absl::MakeSpan(locals_));
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_TRUE(result->report.reached);
  // The rest bend sends the forearm forward; folding keeps that side, so the
  // elbow goes back and the wrist comes in from the front.
  const Vec3 elbow = ModelPosition("left_elbow");
  EXPECT_LT(elbow.z, -0.1);
  EXPECT_NEAR(elbow.y, shoulder.y, 1e-12);
  ExpectOnHinge("left_elbow");
}

TEST_F(SolveChainJobTest, PoleTurnsTheElbowDown) {
  const Vec3 shoulder = ModelPosition("left_shoulder");
  ChainGoal goal = Goal("left_arm", shoulder + Vec3(0.3, 0.0, 0.2));
  goal.pole_world = shoulder + Vec3(0.2, -1.0, 0.0);
  testing::ChainSolveRunner solver(*rig_);
  absl::StatusOr<ChainSolveResult> result =
      solver.Solve(goal, Transform(), absl::MakeSpan(locals_));
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_TRUE(result->report.reached);
  EXPECT_LT(ModelPosition("left_elbow").y, shoulder.y - 0.1);
  ExpectOnHinge("left_elbow");
}

TEST_F(SolveChainJobTest, GoalsApplyInOrderWithoutDisturbingEachOther) {
  testing::ChainSolveRunner solver(*rig_);
  const Vec3 left_target(0.4, 1.1, 0.25);
  const Vec3 right_target(-0.35, 1.5, 0.35);
  ASSERT_TRUE(solver
                  .Solve(Goal("left_arm", left_target), Transform(),
                         absl::MakeSpan(locals_))
                  .ok());
  ASSERT_TRUE(solver
                  .Solve(Goal("right_arm", right_target), Transform(),
                         absl::MakeSpan(locals_))
                  .ok());
  EXPECT_LT(glm::length(ModelPosition("left_wrist") - left_target), 1e-12);
  EXPECT_LT(glm::length(ModelPosition("right_wrist") - right_target), 1e-12);
}

TEST_F(SolveChainJobTest, FollowsAnAnimatedParent) {
  // A bent spine and a turned clavicle move the shoulder; the solve uses the
  // posed chain, not the rest pose.
  locals_[rig_->FindJoint("spine")].rotation =
      AngleAxis(0.3, glm::normalize(Vec3(1.0, 0.2, 0.0)));
  locals_[rig_->FindJoint("left_clavicle")].rotation =
      AngleAxis(-0.2, Vec3(0.0, 0.0, 1.0));
  const Vec3 target = ModelPosition("left_shoulder") + Vec3(0.2, -0.3, 0.2);
  testing::ChainSolveRunner solver(*rig_);
  absl::StatusOr<ChainSolveResult> result = solver.Solve(
      Goal("left_arm", target), Transform(), absl::MakeSpan(locals_));
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_LT(glm::length(ModelPosition("left_wrist") - target), 1e-12);
}

TEST_F(SolveChainJobTest, RepeatedSolvesAreBitIdentical) {
  ChainGoal goal = Goal("right_leg", Vec3(-0.2, 0.3, 0.25));
  goal.pole_world = Vec3(-0.1, 0.5, 2.0);
  std::vector<Transform> first = locals_;
  std::vector<Transform> second = locals_;
  testing::ChainSolveRunner solver_a(*rig_);
  testing::ChainSolveRunner solver_b(*rig_);
  absl::StatusOr<ChainSolveResult> a =
      solver_a.Solve(goal, Transform(), absl::MakeSpan(first));
  absl::StatusOr<ChainSolveResult> b =
      solver_b.Solve(goal, Transform(), absl::MakeSpan(second));
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(std::memcmp(first.data(), second.data(),
                        first.size() * sizeof(Transform)),
            0);
  EXPECT_EQ(std::memcmp(&a->tip_world, &b->tip_world, sizeof(Vec3)), 0);
  EXPECT_EQ(a->report.residual, b->report.residual);
}

TEST_F(SolveChainJobTest, ToleranceOverrideDecidesReached) {
  const Vec3 shoulder = ModelPosition("left_shoulder");
  ChainGoal goal = Goal("left_arm", shoulder + Vec3(0.56, 0.0, 0.0));
  goal.tolerance = 0.02;
  testing::ChainSolveRunner solver(*rig_);
  absl::StatusOr<ChainSolveResult> result =
      solver.Solve(goal, Transform(), absl::MakeSpan(locals_));
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_TRUE(result->report.reached);
  EXPECT_NEAR(result->report.residual, 0.01, 1e-12);
}

TEST_F(SolveChainJobTest, RejectsAMissingChain) {
  ChainGoal goal;
  goal.target_world = Vec3(0.0, 1.0, 0.0);
  ExpectInvalid(goal, "chain: not set");
}

TEST_F(SolveChainJobTest, RejectsAChainThatIsNotOneOfTheRigs) {
  // Joints that are not each the parent of the next, or not joints at all.
  Chain chain;
  chain.name = "stray";
  chain.joints = {8, 3};
  ChainGoal goal = Goal("left_arm", Vec3(0.4, 1.2, 0.1));
  goal.chain = &chain;
  ExpectInvalid(goal, "chain: not a chain of rig 'humanoid'");
  chain.joints = {21, 22};
  ExpectInvalid(goal, "chain: not a chain of rig 'humanoid'");
  // A rig chain with its ancestors left out.
  chain = *rig_->FindChain("left_arm");
  chain.ancestors.clear();
  ExpectInvalid(goal, "chain: not a chain of rig 'humanoid'");
}

TEST_F(SolveChainJobTest, AcceptsTheSameChainOfAnIdenticalRig) {
  // Chains are checked by structure: one of an identical rig fits.
  absl::StatusOr<Rig> other = testing::HumanoidRig();
  ASSERT_TRUE(other.ok());
  ChainGoal goal = Goal("left_arm", Vec3(0.45, 1.2, 0.15));
  goal.chain = other->FindChain("left_arm");
  testing::ChainSolveRunner solver(*rig_);
  EXPECT_TRUE(solver.Solve(goal, Transform(), absl::MakeSpan(locals_)).ok());
}

TEST_F(SolveChainJobTest, RejectsAPoseOfTheWrongSize) {
  locals_.pop_back();
  ExpectInvalid(Goal("left_arm", Vec3(0.4, 1.2, 0.1)),
                "locals: 27 transforms for rig 'humanoid' of 28 joints");
}

TEST_F(SolveChainJobTest, RejectsNonFiniteTarget) {
  ExpectInvalid(Goal("left_arm", Vec3(0.4, kNan, 0.1)), "target: not finite");
}

TEST_F(SolveChainJobTest, RejectsFarAwayTarget) {
  ExpectInvalid(Goal("left_arm", Vec3(0.4, 1e300, 0.1)), "target: more than");
}

TEST_F(SolveChainJobTest, RejectsNonFinitePole) {
  ChainGoal goal = Goal("left_arm", Vec3(0.4, 1.2, 0.1));
  goal.pole_world = Vec3(kInf, 0.0, 0.0);
  ExpectInvalid(goal, "pole: not finite");
}

TEST_F(SolveChainJobTest, RejectsOverridesOutOfRange) {
  ChainGoal goal = Goal("left_arm", Vec3(0.4, 1.2, 0.1));
  goal.max_iterations = 0;
  ExpectInvalid(goal, "max_iterations: must be at least 1, got 0");
  goal = Goal("left_arm", Vec3(0.4, 1.2, 0.1));
  goal.tolerance = -1.0;
  ExpectInvalid(goal, "tolerance: must be finite and >= 0, got -1");
  goal = Goal("left_arm", Vec3(0.4, 1.2, 0.1));
  goal.tolerance = kNan;
  ExpectInvalid(goal, "tolerance:");
  goal = Goal("left_arm", Vec3(0.4, 1.2, 0.1));
  goal.solver = static_cast<SolverKind>(9);
  ExpectInvalid(goal, "solver: unknown solver 9");
}

TEST_F(SolveChainJobTest, RejectsABadRootTransform) {
  Transform root;
  root.scale = Vec3(1.0, 0.0, 1.0);
  ExpectInvalid(Goal("left_arm", Vec3(0.4, 1.2, 0.1)), "root.scale:", root);
  root = Transform();
  root.rotation = MakeQuat(0.0, 0.0, 0.0, 0.0);
  ExpectInvalid(Goal("left_arm", Vec3(0.4, 1.2, 0.1)),
                "root.rotation: not a unit quaternion (norm 0)", root);
}

TEST_F(SolveChainJobTest, RejectsAPoseThatCollapsesABone) {
  locals_[rig_->FindJoint("left_wrist")].translation = Vec3(0.0);
  ExpectInvalid(Goal("left_arm", Vec3(0.4, 1.2, 0.1)),
                "locals: chain 'left_arm' cannot be solved in this pose: "
                "tip_model.translation: zero-length bone");
}

// A spine of four joints plus a 3-joint and a 4-joint chain.
Rig SpineRig() {
  RigDefinition def;
  def.name = "spine";
  for (int i = 0; i < 4; ++i) {
    JointDefinition joint;
    joint.name = "s" + std::to_string(i);
    joint.parent = i - 1;
    joint.rest.translation = Vec3(0.0, i == 0 ? 1.0 : 0.2, 0.0);
    def.joints.push_back(joint);
  }
  ChainDefinition three;
  three.name = "upper";
  three.root = "s1";
  three.tip = "s3";
  ChainDefinition four;
  four.name = "all";
  four.root = "s0";
  four.tip = "s3";
  def.chains = {three, four};
  absl::StatusOr<Rig> rig = Rig::Create(def);
  EXPECT_TRUE(rig.ok()) << rig.status();
  return *std::move(rig);
}

TEST(SolveChainJobLengthTest, AutoSolvesALongerChainWithFabrik) {
  const Rig rig = SpineRig();
  std::vector<Transform> locals(rig.rest_pose().begin(), rig.rest_pose().end());
  ChainGoal goal;
  goal.chain = rig.FindChain("all");
  goal.target_world = Vec3(0.2, 1.4, 0.0);
  testing::ChainSolveRunner solver(rig);
  absl::StatusOr<ChainSolveResult> result =
      solver.Solve(goal, Transform(), absl::MakeSpan(locals));
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->solver, SolverKind::kFabrik);
  EXPECT_TRUE(result->report.reached);
  EXPECT_EQ(result->stop_reason, StopReason::kReached);
  EXPECT_LT(
      glm::length(ModelPose(rig, locals)[3].translation - goal.target_world),
      kDefaultTolerance);
}

TEST(SolveChainJobLengthTest, TwoBoneOverrideNeedsThreeJoints) {
  const Rig rig = SpineRig();
  std::vector<Transform> locals(rig.rest_pose().begin(), rig.rest_pose().end());
  ChainGoal goal;
  goal.chain = rig.FindChain("all");
  goal.target_world = Vec3(0.2, 1.4, 0.0);
  goal.solver = SolverKind::kTwoBone;
  testing::ChainSolveRunner solver(rig);
  absl::StatusOr<ChainSolveResult> result =
      solver.Solve(goal, Transform(), absl::MakeSpan(locals));
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StartsWith(result.status().message(),
                               "solver: the two-bone solver needs a chain of "
                               "exactly 3 joints; chain 'all' has 4"))
      << result.status();
}

TEST(SolveChainJobLengthTest, StraightThreeJointChainSolvesOnAnyParent) {
  // "upper" starts at s1, whose parent s0 is not in the chain; the chain is
  // straight at rest.
  const Rig rig = SpineRig();
  std::vector<Transform> locals(rig.rest_pose().begin(), rig.rest_pose().end());
  locals[0].rotation = AngleAxis(0.4, Vec3(0.0, 0.0, 1.0));
  ChainGoal goal;
  goal.chain = rig.FindChain("upper");
  goal.target_world = Vec3(0.1, 1.3, 0.2);
  testing::ChainSolveRunner solver(rig);
  absl::StatusOr<ChainSolveResult> result =
      solver.Solve(goal, Transform(), absl::MakeSpan(locals));
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_TRUE(result->report.reached);
  EXPECT_LT(
      glm::length(ModelPose(rig, locals)[3].translation - goal.target_world),
      1e-12);
}

TEST(ResolveSolverTest, AutoPicksTwoBoneForThreeJointsAndFabrikOtherwise) {
  Chain chain;
  chain.joints = {0, 1, 2};
  EXPECT_EQ(ResolveSolver(SolverKind::kAuto, chain), SolverKind::kTwoBone);
  EXPECT_EQ(ResolveSolver(SolverKind::kTwoBone, chain), SolverKind::kTwoBone);
  EXPECT_EQ(ResolveSolver(SolverKind::kCcd, chain), SolverKind::kCcd);
  chain.joints = {0, 1, 2, 3};
  EXPECT_EQ(ResolveSolver(SolverKind::kAuto, chain), SolverKind::kFabrik);
  EXPECT_EQ(ResolveSolver(SolverKind::kTwoBone, chain), SolverKind::kTwoBone);
  chain.joints = {0, 1};
  EXPECT_EQ(ResolveSolver(SolverKind::kAuto, chain), SolverKind::kFabrik);
  EXPECT_EQ(ResolveSolver(SolverKind::kCcd, chain), SolverKind::kCcd);
}

}  // namespace
}  // namespace ik
