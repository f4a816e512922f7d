#include "ik/rig/rig.h"

#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "humanoid_rig.h"
#include "ik/base/validate.h"
#include "rig_fixtures.h"

namespace ik {
namespace {

using testing::ArmDefinition;
using testing::ExpectError;
using testing::ExpectInvalid;
using testing::kInf;
using testing::kNan;

TEST(RigTest, BuildsAValidArm) {
  absl::StatusOr<Rig> rig = Rig::Create(ArmDefinition());
  ASSERT_TRUE(rig.ok()) << rig.status();
  EXPECT_EQ(rig->name(), "arm");
  EXPECT_EQ(rig->joint_count(), 4);
  EXPECT_EQ(rig->parents().size(), 4u);
  EXPECT_EQ(rig->parents()[0], kNoParent);
  EXPECT_EQ(rig->parents()[3], 2);
  EXPECT_EQ(rig->FindJoint("wrist"), 2);
  EXPECT_EQ(rig->FindJoint("nope"), kNoParent);
  const Chain* chain = rig->FindChain("arm");
  ASSERT_NE(chain, nullptr);
  EXPECT_EQ(chain->joints, (std::vector<int>{0, 1, 2}));
  EXPECT_TRUE(chain->ancestors.empty());
  EXPECT_EQ(chain->solver, SolverKind::kAuto);
  EXPECT_EQ(chain->max_iterations, kDefaultMaxIterations);
  EXPECT_EQ(chain->tolerance, kDefaultTolerance);
  EXPECT_EQ(rig->FindChain("leg"), nullptr);
}

TEST(RigTest, BuildsTheHumanoid) {
  absl::StatusOr<Rig> rig = testing::HumanoidRig();
  ASSERT_TRUE(rig.ok()) << rig.status();
  EXPECT_EQ(rig->name(), "humanoid");
  EXPECT_EQ(rig->joint_count(), 28);  // 21 + the ponytail's 7
  for (const char* name : {"left_arm", "right_arm", "left_leg", "right_leg"}) {
    const Chain* chain = rig->FindChain(name);
    ASSERT_NE(chain, nullptr) << name;
    EXPECT_EQ(chain->joints.size(), 3u) << name;
  }
  const Chain* left_leg = rig->FindChain("left_leg");
  EXPECT_EQ(rig->joint(left_leg->joints[0]).name, "left_hip");
  EXPECT_EQ(rig->joint(left_leg->joints[2]).name, "left_ankle");
  // The ponytail: 6 simulated joints below ponytail_00, 0.07 m apart, with
  // the four colliders it names, in order.
  absl::StatusOr<Character> humanoid = testing::HumanoidCharacter();
  ASSERT_TRUE(humanoid.ok()) << humanoid.status();
  const DynamicChainBinding* ponytail = humanoid->FindDynamicChain("ponytail");
  ASSERT_NE(ponytail, nullptr);
  ASSERT_EQ(ponytail->joints.size(), 7u);
  EXPECT_EQ(rig->joint(ponytail->joints[0]).name, "ponytail_00");
  for (size_t k = 1; k < 7; ++k) {
    EXPECT_EQ(ponytail->chain.joints[k].parent, static_cast<int>(k) - 1);
    EXPECT_NEAR(ponytail->chain.joints[k].length, 0.07, 1e-15);
    EXPECT_EQ(ponytail->chain.joints[k].radius, k == 6 ? 0.03 : 0.02);
  }
  ASSERT_EQ(ponytail->colliders.size(), 4u);
  for (size_t c = 0; c < 4; ++c) {
    EXPECT_EQ(ponytail->colliders[c], static_cast<int>(c));
  }
  EXPECT_EQ(humanoid->colliders[2].name, "shoulders");
  EXPECT_EQ(rig->joint(humanoid->colliders[2].joint).name, "chest");
  EXPECT_EQ(left_leg->solver, SolverKind::kTwoBone);
  EXPECT_EQ(left_leg->ancestors, (std::vector<int>{rig->FindJoint("pelvis")}));
  const Chain* left_arm = rig->FindChain("left_arm");
  EXPECT_EQ(left_arm->ancestors,
            (std::vector<int>{rig->FindJoint("pelvis"), rig->FindJoint("spine"),
                              rig->FindJoint("chest"),
                              rig->FindJoint("left_clavicle")}));
  // Every name resolves to its own index.
  for (int i = 0; i < rig->joint_count(); ++i) {
    EXPECT_EQ(rig->FindJoint(rig->joint(i).name), i);
  }
}

TEST(RigTest, NormalisesNearlyUnitRotations) {
  RigDefinition def = ArmDefinition();
  def.joints[1].rest.rotation = MakeQuat(0.0, 0.0, 0.0, 1.0005);
  absl::StatusOr<Rig> rig = Rig::Create(std::move(def));
  ASSERT_TRUE(rig.ok()) << rig.status();
  EXPECT_DOUBLE_EQ(Norm(rig->rest_pose()[1].rotation), 1.0);
  EXPECT_DOUBLE_EQ(Norm(rig->joint(1).rest.rotation), 1.0);
}

TEST(RigTest, NormalisesLimitAxes) {
  RigDefinition def = ArmDefinition();
  def.joints[1].limit = testing::Hinge(Vec3(0.0, -3.0, 0.0), 0.0, 1.0);
  absl::StatusOr<Rig> rig = Rig::Create(std::move(def));
  ASSERT_TRUE(rig.ok()) << rig.status();
  EXPECT_EQ(rig->joint(1).limit.hinge.axis, Vec3(0.0, -1.0, 0.0));
}

TEST(RigTest, FillsBallSocketAxisFromTheFirstChild) {
  RigDefinition def = ArmDefinition();
  def.joints[0].limit = testing::BallSocket(1.0, std::nullopt, std::nullopt);
  def.joints[0].rest.scale = Vec3(2.0, 1.0, 1.0);
  absl::StatusOr<Rig> rig = Rig::Create(std::move(def));
  ASSERT_TRUE(rig.ok()) << rig.status();
  const Vec3 axis = rig->joint(0).limit.ball_socket.axis;
  EXPECT_NEAR(axis.x, 1.0, 1e-15);
  EXPECT_NEAR(axis.y, 0.0, 1e-15);
  EXPECT_NEAR(axis.z, 0.0, 1e-15);
}

TEST(RigTest, FillsTheBoneOfBallSocketLimits) {
  RigDefinition def = ArmDefinition();
  // An explicit cone axis: the bone still comes from the first child (a
  // quarter turn from the axis: within a cone of 1.6 rad).
  def.joints[0].limit =
      testing::BallSocket(1.6, std::nullopt, Vec3(0.0, -1.0, 0.0));
  def.joints[0].limit.ball_socket.twist_axis = Vec3(9.0, 9.0, 9.0);
  // No child: the cone's axis.
  def.joints[3].limit =
      testing::BallSocket(0.5, std::nullopt, Vec3(0.0, 0.0, 2.0));
  absl::StatusOr<Rig> rig = Rig::Create(std::move(def));
  ASSERT_TRUE(rig.ok()) << rig.status();
  EXPECT_EQ(rig->joint(0).limit.ball_socket.twist_axis, Vec3(1.0, 0.0, 0.0));
  EXPECT_EQ(rig->joint(3).limit.ball_socket.twist_axis, Vec3(0.0, 0.0, 1.0));
}

// Limits are relative to the rest pose, so the rest pose must be within
// every one: a cone whose axis is farther from the rest bone than its
// swing, or a twist or hinge range without 0, is refused with the limit's
// path and how far outside the rest pose is.
TEST(RigTest, RejectsARestPoseOutsideItsLimits) {
  RigDefinition cone = ArmDefinition();
  cone.joints[0].limit =
      testing::BallSocket(1.5, std::nullopt, Vec3(0.0, -1.0, 0.0));
  ExpectInvalid(std::move(cone),
                "joints[0].limit: joint 'shoulder': the rest bone points 1.571 "
                "rad from the cone's axis, beyond swing_max 1.5 (0.0708 rad "
                "outside)");
  RigDefinition twist = ArmDefinition();
  twist.joints[0].limit =
      testing::BallSocket(0.5, AngleRange{0.1, 0.4}, std::nullopt);
  ExpectInvalid(std::move(twist),
                "joints[0].limit: joint 'shoulder': the rest twist, 0, is "
                "outside the twist range [0.1, 0.4] (0.1 rad outside)");
  RigDefinition hinge = ArmDefinition();
  hinge.joints[1].limit = testing::Hinge(Vec3(0.0, 0.0, 1.0), -1.0, -0.25);
  ExpectInvalid(std::move(hinge),
                "joints[1].limit: joint 'elbow': the rest angle, 0, is outside "
                "the hinge range [-1, -0.25] (0.25 rad outside)");
  // On the edge of every range: within.
  RigDefinition edges = ArmDefinition();
  edges.joints[0].limit =
      testing::BallSocket(kPi / 2, AngleRange{0.0, 0.4}, Vec3(0.0, -1.0, 0.0));
  edges.joints[1].limit = testing::Hinge(Vec3(0.0, 0.0, 1.0), -1.0, 0.0);
  EXPECT_TRUE(Rig::Create(std::move(edges)).ok());
}

TEST(RigTest, RejectsEmptyRigName) {
  RigDefinition def = ArmDefinition();
  def.name = "";
  ExpectInvalid(std::move(def), "name: empty");
}

TEST(RigTest, RejectsOverlongRigName) {
  RigDefinition def = ArmDefinition();
  def.name = std::string(kMaxNameLength + 1, 'a');
  ExpectInvalid(std::move(def), "name: '" + std::string(kMaxNameLength, 'a') +
                                    "...' is not a valid name (129 characters");
}

TEST(RigTest, AcceptsRigNameOfMaximumLength) {
  RigDefinition def = ArmDefinition();
  def.name = std::string(kMaxNameLength, 'a');
  EXPECT_TRUE(Rig::Create(std::move(def)).ok());
}

TEST(RigTest, RejectsRigWithoutJoints) {
  RigDefinition def = ArmDefinition();
  def.joints.clear();
  def.chains.clear();
  ExpectInvalid(std::move(def), "joints: a rig needs at least one joint");
}

TEST(RigTest, RejectsTooManyJointsAsResourceExhausted) {
  RigDefinition def;
  def.name = "big";
  def.joints.resize(kMaxJoints + 1);
  ExpectError(std::move(def), absl::StatusCode::kResourceExhausted,
              "joints: 65537 joints, at most 65536");
}

TEST(RigTest, RejectsEmptyJointName) {
  RigDefinition def = ArmDefinition();
  def.joints[2].name = "";
  ExpectInvalid(std::move(def), "joints[2].name: empty");
}

TEST(RigTest, RejectsOverlongJointName) {
  RigDefinition def = ArmDefinition();
  def.joints[1].name = std::string(200, 'j');
  ExpectInvalid(std::move(def), "joints[1].name: '" + std::string(128, 'j') +
                                    "...' is not a valid name (200 characters");
}

TEST(RigTest, RejectsDuplicateJointNames) {
  RigDefinition def = ArmDefinition();
  def.joints[3].name = "elbow";
  ExpectInvalid(
      std::move(def),
      "joints[3].name: duplicate joint name 'elbow' (also joints[1])");
}

TEST(RigTest, RejectsParentThatComesLater) {
  RigDefinition def = ArmDefinition();
  def.joints[1].parent = 2;  // would make a cycle elbow -> wrist -> elbow
  ExpectInvalid(std::move(def), "joints[1].parent: parent index 2");
}

TEST(RigTest, RejectsSelfParent) {
  RigDefinition def = ArmDefinition();
  def.joints[2].parent = 2;
  ExpectInvalid(std::move(def), "joints[2].parent");
}

TEST(RigTest, RejectsNegativeParentOtherThanNoParent) {
  RigDefinition def = ArmDefinition();
  def.joints[1].parent = -7;
  ExpectInvalid(std::move(def), "joints[1].parent: parent index -7");
}

TEST(RigTest, RejectsNonFiniteTranslation) {
  RigDefinition def = ArmDefinition();
  def.joints[1].rest.translation.y = kNan;
  ExpectInvalid(std::move(def), "joints[1].rest.translation: not finite");
}

TEST(RigTest, RejectsZeroQuaternionWithFieldPath) {
  RigDefinition def = ArmDefinition();
  def.joints[3].rest.rotation = MakeQuat(0.0, 0.0, 0.0, 0.0);
  ExpectInvalid(std::move(def),
                "joints[3].rest.rotation: not a unit quaternion (norm 0)");
}

TEST(RigTest, RejectsQuaternionBeyondTheUnitTolerance) {
  RigDefinition def = ArmDefinition();
  def.joints[1].rest.rotation = MakeQuat(0.0, 0.0, 0.0, 1.002);
  ExpectInvalid(std::move(def),
                "joints[1].rest.rotation: not a unit quaternion (norm 1.002)");
}

TEST(RigTest, RejectsNonFiniteQuaternion) {
  RigDefinition def = ArmDefinition();
  def.joints[0].rest.rotation = MakeQuat(kInf, 0.0, 0.0, 1.0);
  ExpectInvalid(std::move(def), "joints[0].rest.rotation: not finite");
}

TEST(RigTest, RejectsZeroScale) {
  RigDefinition def = ArmDefinition();
  def.joints[2].rest.scale = Vec3(1.0, 0.0, 1.0);
  ExpectInvalid(std::move(def),
                "joints[2].rest.scale: must be finite and "
                "positive");
}

TEST(RigTest, RejectsNegativeScale) {
  RigDefinition def = ArmDefinition();
  def.joints[2].rest.scale = Vec3(-1.0);
  ExpectInvalid(std::move(def), "joints[2].rest.scale");
}

TEST(RigTest, RejectsInfiniteScale) {
  RigDefinition def = ArmDefinition();
  def.joints[0].rest.scale = Vec3(kInf, 1.0, 1.0);
  ExpectInvalid(std::move(def), "joints[0].rest.scale");
}

TEST(RigTest, RejectsZeroHingeAxis) {
  RigDefinition def = ArmDefinition();
  def.joints[1].limit = testing::Hinge(Vec3(0.0), 0.0, 1.0);
  ExpectInvalid(std::move(def), "joints[1].limit.hinge.axis: zero length");
}

TEST(RigTest, RejectsNonFiniteHingeAxis) {
  RigDefinition def = ArmDefinition();
  def.joints[1].limit = testing::Hinge(Vec3(kNan, 1.0, 0.0), 0.0, 1.0);
  ExpectInvalid(std::move(def), "joints[1].limit.hinge.axis: not finite");
}

TEST(RigTest, RejectsHingeRangeWithMinAboveMax) {
  RigDefinition def = ArmDefinition();
  def.joints[1].limit = testing::Hinge(Vec3(1.0, 0.0, 0.0), 1.0, 0.5);
  ExpectInvalid(std::move(def),
                "joints[1].limit.hinge.range: min 1 is greater than max 0.5");
}

TEST(RigTest, RejectsHingeRangeBeyondPi) {
  RigDefinition def = ArmDefinition();
  def.joints[1].limit = testing::Hinge(Vec3(1.0, 0.0, 0.0), -4.0, 1.0);
  ExpectInvalid(std::move(def),
                "joints[1].limit.hinge.range: [-4, 1] is not within [-pi, pi]");
}

TEST(RigTest, RejectsNonFiniteHingeRange) {
  RigDefinition def = ArmDefinition();
  def.joints[1].limit = testing::Hinge(Vec3(1.0, 0.0, 0.0), 0.0, kInf);
  ExpectInvalid(std::move(def), "joints[1].limit.hinge.range: not finite");
}

TEST(RigTest, RejectsZeroBallSocketAxis) {
  RigDefinition def = ArmDefinition();
  def.joints[0].limit = testing::BallSocket(1.0, std::nullopt, Vec3(0.0));
  ExpectInvalid(std::move(def),
                "joints[0].limit.ball_socket.axis: zero length");
}

TEST(RigTest, RejectsZeroConeAngle) {
  RigDefinition def = ArmDefinition();
  def.joints[0].limit =
      testing::BallSocket(0.0, std::nullopt, Vec3(1.0, 0.0, 0.0));
  ExpectInvalid(std::move(def),
                "joints[0].limit.ball_socket.swing_max: 0 is not in (0, pi]");
}

TEST(RigTest, RejectsConeAngleBeyondPi) {
  RigDefinition def = ArmDefinition();
  def.joints[0].limit =
      testing::BallSocket(3.5, std::nullopt, Vec3(1.0, 0.0, 0.0));
  ExpectInvalid(std::move(def), "joints[0].limit.ball_socket.swing_max");
}

TEST(RigTest, AcceptsConeAngleOfPi) {
  RigDefinition def = ArmDefinition();
  def.joints[0].limit =
      testing::BallSocket(kPi, std::nullopt, Vec3(1.0, 0.0, 0.0));
  EXPECT_TRUE(Rig::Create(std::move(def)).ok());
}

TEST(RigTest, RejectsBadTwistRange) {
  RigDefinition def = ArmDefinition();
  def.joints[0].limit =
      testing::BallSocket(1.0, AngleRange{0.5, -0.5}, Vec3(1.0, 0.0, 0.0));
  ExpectInvalid(std::move(def), "joints[0].limit.ball_socket.twist: min 0.5");
}

TEST(RigTest, RejectsAxisFromChildWithoutChild) {
  RigDefinition def = ArmDefinition();
  def.joints[3].limit = testing::BallSocket(1.0, std::nullopt, std::nullopt);
  ExpectInvalid(std::move(def),
                "joints[3].limit.ball_socket.axis: unset, and joint 'hand' has "
                "no child");
}

TEST(RigTest, RejectsAxisFromChildAtZeroDistance) {
  RigDefinition def = ArmDefinition();
  def.joints[2].limit = testing::BallSocket(1.0, std::nullopt, std::nullopt);
  def.joints[3].rest.translation = Vec3(0.0);
  ExpectInvalid(std::move(def),
                "joints[2].limit.ball_socket.axis: unset, and the first child "
                "'hand' sits on joint 'wrist'");
}

TEST(RigTest, RejectsUnknownLimitKind) {
  RigDefinition def = ArmDefinition();
  def.joints[1].limit.kind = static_cast<JointLimit::Kind>(7);
  ExpectInvalid(std::move(def), "joints[1].limit: unknown limit kind 7");
}

TEST(RigTest, ReportsTheFirstOffendingJoint) {
  RigDefinition def = ArmDefinition();
  def.joints[1].rest.translation.x = kNan;
  def.joints[3].rest.rotation = MakeQuat(0.0, 0.0, 0.0, 0.0);
  ExpectInvalid(std::move(def), "joints[1].rest.translation");
}

TEST(NormalizeRotationTest, NormalisesWithinTolerance) {
  absl::StatusOr<Quat> q =
      NormalizeRotation(MakeQuat(0.0, 0.0, 0.0, 0.9995), "rotation");
  ASSERT_TRUE(q.ok()) << q.status();
  EXPECT_EQ(q->w, 1.0);
}

TEST(NormalizeRotationTest, RejectsWithTheGivenPath) {
  absl::StatusOr<Quat> q = NormalizeRotation(MakeQuat(0.0, 0.0, 0.0, 0.0),
                                             "pose.joints[3].local.rotation");
  ASSERT_FALSE(q.ok());
  EXPECT_EQ(q.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(q.status().message(),
            "pose.joints[3].local.rotation: not a unit quaternion (norm 0)");
}

TEST(ValidateTransformTest, NamesEachField) {
  Transform bad_translation;
  bad_translation.translation.z = kInf;
  EXPECT_EQ(ValidateTransform(bad_translation, "root").status().message(),
            "root.translation: not finite");
  Transform bad_scale;
  bad_scale.scale = Vec3(1.0, 1.0, 0.0);
  EXPECT_TRUE(absl::StartsWith(
      ValidateTransform(bad_scale, "root").status().message(), "root.scale:"));
  Transform good;
  good.rotation = MakeQuat(0.0, 0.0, 0.0, 1.0001);
  absl::StatusOr<Transform> checked = ValidateTransform(good, "root");
  ASSERT_TRUE(checked.ok());
  EXPECT_EQ(checked->rotation, IdentityQuat());
}

}  // namespace
}  // namespace ik
