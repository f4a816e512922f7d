// IkService's error table over a real loopback channel: every bad input
// gets its status code and a message that starts with the field path, and
// the server keeps serving (and holds no half-registered rig) afterwards.
#include <functional>
#include <limits>
#include <ostream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "service_fixture.h"
#include "test_rigs.h"

namespace ik::server {
namespace {

using ::ik::testing::ArmRig;
using ::ik::testing::Rotation;
using ::ik::testing::Vec;
using ::testing::HasSubstr;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
// One bad input: how to break a request, the code and the message expected.
struct ErrorCase {
  std::string name;
  std::function<void(v1::RegisterRigRequest&)> break_rig;
  std::function<void(v1::SolveChainRequest&)> break_solve;
  grpc::StatusCode code;
  std::string message;
};

// Keeps gtest from dumping the case's bytes in test names and failures.
void PrintTo(const ErrorCase& error, std::ostream* out) { *out << error.name; }

std::vector<ErrorCase> ErrorCases() {
  auto rig = [](std::string name, std::function<void(v1::Rig&)> edit,
                grpc::StatusCode code, std::string message) {
    return ErrorCase{
        std::move(name),
        [edit](v1::RegisterRigRequest& r) { edit(*r.mutable_rig()); }, nullptr,
        code, std::move(message)};
  };
  auto solve = [](std::string name,
                  std::function<void(v1::SolveChainRequest&)> edit,
                  grpc::StatusCode code, std::string message) {
    return ErrorCase{std::move(name), nullptr, std::move(edit), code,
                     std::move(message)};
  };
  using grpc::StatusCode;
  return {
      rig(
          "EmptyRigName", [](v1::Rig& r) { r.set_name(""); },
          StatusCode::INVALID_ARGUMENT, "rig.name"),
      rig(
          "ZeroQuaternion",
          [](v1::Rig& r) {
            *r.mutable_joints(1)->mutable_rest()->mutable_rotation() =
                Rotation(0, 0, 0, 0);
          },
          StatusCode::INVALID_ARGUMENT,
          "rig.joints[1].rest.rotation: not a unit quaternion (norm 0)"),
      rig(
          "NonUnitQuaternion",
          [](v1::Rig& r) {
            *r.mutable_joints(1)->mutable_rest()->mutable_rotation() =
                Rotation(0, 0, 0, 1.01);
          },
          StatusCode::INVALID_ARGUMENT,
          "rig.joints[1].rest.rotation: not a unit quaternion"),
      rig(
          "NonFiniteTranslation",
          [](v1::Rig& r) {
            r.mutable_joints(2)->mutable_rest()->mutable_translation()->set_x(
                kNaN);
          },
          StatusCode::INVALID_ARGUMENT, "rig.joints[2].rest.translation"),
      rig(
          "ZeroScale",
          [](v1::Rig& r) {
            *r.mutable_joints(2)->mutable_rest()->mutable_scale() =
                Vec(1, 0, 1);
          },
          StatusCode::INVALID_ARGUMENT, "rig.joints[2].rest.scale"),
      rig(
          "EmptyJointName",
          [](v1::Rig& r) { r.mutable_joints(2)->set_name(""); },
          StatusCode::INVALID_ARGUMENT, "rig.joints[2].name"),
      rig(
          "DuplicateJointName",
          [](v1::Rig& r) { r.mutable_joints(2)->set_name("elbow"); },
          StatusCode::INVALID_ARGUMENT, "rig.joints[2].name"),
      rig(
          "ForwardParentIndex",
          [](v1::Rig& r) { r.mutable_joints(1)->set_parent_index(2); },
          StatusCode::INVALID_ARGUMENT, "rig.joints[1].parent_index"),
      rig(
          "SelfParent",
          [](v1::Rig& r) { r.mutable_joints(1)->set_parent_index(1); },
          StatusCode::INVALID_ARGUMENT, "rig.joints[1].parent_index"),
      rig(
          "UnknownParentName",
          [](v1::Rig& r) { r.mutable_joints(1)->set_parent("nobody"); },
          StatusCode::NOT_FOUND, "rig.joints[1].parent"),
      rig(
          "UnknownChainTip",
          [](v1::Rig& r) { r.mutable_chains(0)->set_tip("hand"); },
          StatusCode::NOT_FOUND, "rig.chains[0].tip"),
      rig(
          "UnknownChainRoot",
          [](v1::Rig& r) { r.mutable_chains(0)->set_root(""); },
          StatusCode::INVALID_ARGUMENT, "rig.chains[0].root"),
      rig(
          "ChainAgainstParentLinks",
          [](v1::Rig& r) {
            r.mutable_chains(0)->set_root("wrist");
            r.mutable_chains(0)->set_tip("shoulder");
          },
          StatusCode::INVALID_ARGUMENT, "rig.chains[0]"),
      rig(
          "ZeroLengthBoneInChain",
          [](v1::Rig& r) {
            *r.mutable_joints(2)->mutable_rest()->mutable_translation() =
                Vec(0, 0, 0);
          },
          StatusCode::INVALID_ARGUMENT, "rig.chains[0]"),
      rig(
          "DuplicateChainName",
          [](v1::Rig& r) { *r.add_chains() = r.chains(0); },
          StatusCode::INVALID_ARGUMENT, "rig.chains[1].name"),
      rig(
          "NegativeTolerance",
          [](v1::Rig& r) { r.mutable_chains(0)->set_tolerance(-1); },
          StatusCode::INVALID_ARGUMENT, "rig.chains[0].tolerance"),
      rig(
          "UnknownSolver",
          [](v1::Rig& r) {
            r.mutable_chains(0)->set_solver(static_cast<v1::Solver>(99));
          },
          StatusCode::INVALID_ARGUMENT, "rig.chains[0].solver"),
      rig(
          "HingeWithoutAxis",
          [](v1::Rig& r) {
            r.mutable_joints(1)->mutable_limit()->mutable_hinge();
          },
          StatusCode::INVALID_ARGUMENT, "rig.joints[1].limit.hinge.axis"),
      rig(
          "HingeMinAboveMax",
          [](v1::Rig& r) {
            v1::HingeLimit* hinge =
                r.mutable_joints(1)->mutable_limit()->mutable_hinge();
            *hinge->mutable_axis() = Vec(1, 0, 0);
            hinge->mutable_range()->set_min(1);
            hinge->mutable_range()->set_max(0);
          },
          StatusCode::INVALID_ARGUMENT, "rig.joints[1].limit.hinge.range"),
      rig(
          "HingeZeroAxis",
          [](v1::Rig& r) {
            *r.mutable_joints(1)
                 ->mutable_limit()
                 ->mutable_hinge()
                 ->mutable_axis() = Vec(0, 0, 0);
          },
          StatusCode::INVALID_ARGUMENT, "rig.joints[1].limit.hinge.axis"),
      rig(
          "ConeAngleAbovePi",
          [](v1::Rig& r) {
            r.mutable_joints(0)
                ->mutable_limit()
                ->mutable_ball_socket()
                ->set_swing_max(4.0);
          },
          StatusCode::INVALID_ARGUMENT,
          "rig.joints[0].limit.ball_socket.swing_max"),
      rig(
          "ConeAngleZero",
          [](v1::Rig& r) {
            r.mutable_joints(0)
                ->mutable_limit()
                ->mutable_ball_socket()
                ->set_swing_max(0.0);
          },
          StatusCode::INVALID_ARGUMENT,
          "rig.joints[0].limit.ball_socket.swing_max"),
      rig(
          "TwistMinAboveMax",
          [](v1::Rig& r) {
            v1::BallSocketLimit* ball =
                r.mutable_joints(0)->mutable_limit()->mutable_ball_socket();
            ball->set_swing_max(1.0);
            ball->mutable_twist()->set_min(0.5);
            ball->mutable_twist()->set_max(-0.5);
          },
          StatusCode::INVALID_ARGUMENT,
          "rig.joints[0].limit.ball_socket.twist"),
      rig(
          "TooManyJoints",
          [](v1::Rig& r) {
            for (int i = 0; i < 600; ++i) {
              v1::Joint* joint = r.add_joints();
              joint->set_name(absl::StrCat("extra", i));
            }
          },
          StatusCode::RESOURCE_EXHAUSTED, "rig.joints"),
      solve(
          "EmptyRigNameInSolve",
          [](v1::SolveChainRequest& r) { r.set_rig(""); },
          StatusCode::INVALID_ARGUMENT, "rig: required"),
      solve(
          "UnknownRig", [](v1::SolveChainRequest& r) { r.set_rig("octopus"); },
          StatusCode::NOT_FOUND, "rig 'octopus'"),
      solve(
          "NoGoals", [](v1::SolveChainRequest& r) { r.clear_goals(); },
          StatusCode::INVALID_ARGUMENT, "goals"),
      solve(
          "TooManyGoals",
          [](v1::SolveChainRequest& r) {
            for (int i = 0; i < 64; ++i) *r.add_goals() = r.goals(0);
          },
          StatusCode::RESOURCE_EXHAUSTED, "goals"),
      solve(
          "UnknownChain",
          [](v1::SolveChainRequest& r) {
            r.mutable_goals(0)->set_chain("tentacle");
          },
          StatusCode::NOT_FOUND, "goals[0].chain"),
      solve(
          "MissingTarget",
          [](v1::SolveChainRequest& r) { r.mutable_goals(0)->clear_target(); },
          StatusCode::INVALID_ARGUMENT, "goals[0].target: required"),
      solve(
          "NonFiniteTarget",
          [](v1::SolveChainRequest& r) {
            r.mutable_goals(0)->mutable_target()->set_y(
                std::numeric_limits<double>::infinity());
          },
          StatusCode::INVALID_ARGUMENT, "goals[0].target"),
      solve(
          "NonFinitePole",
          [](v1::SolveChainRequest& r) {
            *r.mutable_goals(0)->mutable_pole() = Vec(kNaN, 0, 0);
          },
          StatusCode::INVALID_ARGUMENT, "goals[0].pole"),
      solve(
          "NegativeGoalTolerance",
          [](v1::SolveChainRequest& r) {
            r.mutable_goals(0)->set_tolerance(-0.1);
          },
          StatusCode::INVALID_ARGUMENT, "goals[0].tolerance"),
      solve(
          "UnknownPoseJoint",
          [](v1::SolveChainRequest& r) {
            r.mutable_pose()->add_joints()->set_name("tail");
          },
          StatusCode::NOT_FOUND, "pose.joints[0].name"),
      solve(
          "PoseIndexOutOfRange",
          [](v1::SolveChainRequest& r) {
            r.mutable_pose()->add_joints()->set_index(3);
          },
          StatusCode::INVALID_ARGUMENT, "pose.joints[0].index"),
      solve(
          "PoseJointWithoutReference",
          [](v1::SolveChainRequest& r) { r.mutable_pose()->add_joints(); },
          StatusCode::INVALID_ARGUMENT, "pose.joints[0]"),
      solve(
          "PoseJointTwice",
          [](v1::SolveChainRequest& r) {
            r.mutable_pose()->add_joints()->set_name("elbow");
            r.mutable_pose()->add_joints()->set_index(1);
          },
          StatusCode::INVALID_ARGUMENT, "pose.joints[1]"),
      solve(
          "ZeroPoseRotation",
          [](v1::SolveChainRequest& r) {
            v1::JointPose* joint = r.mutable_pose()->add_joints();
            joint->set_name("elbow");
            *joint->mutable_local()->mutable_rotation() = Rotation(0, 0, 0, 0);
          },
          StatusCode::INVALID_ARGUMENT,
          "pose.joints[0].local.rotation: not a unit quaternion (norm 0)"),
      solve(
          "NoChainReference",
          [](v1::SolveChainRequest& r) { r.mutable_goals(0)->clear_chain(); },
          StatusCode::INVALID_ARGUMENT, "goals[0].chain: required"),
      solve(
          "UnknownGoalSolver",
          [](v1::SolveChainRequest& r) {
            r.mutable_goals(0)->set_solver(static_cast<v1::Solver>(99));
          },
          StatusCode::INVALID_ARGUMENT, "goals[0].solver"),
      solve(
          "TwoBoneOnAShortChain",
          [](v1::SolveChainRequest& r) {
            r.mutable_goals(0)->mutable_ad_hoc_chain()->set_root("shoulder");
            r.mutable_goals(0)->mutable_ad_hoc_chain()->set_tip("elbow");
            r.mutable_goals(0)->set_solver(v1::SOLVER_TWO_BONE);
          },
          StatusCode::INVALID_ARGUMENT, "goals[0]"),
      solve(
          "AdHocChainUnknownTip",
          [](v1::SolveChainRequest& r) {
            r.mutable_goals(0)->mutable_ad_hoc_chain()->set_root("shoulder");
            r.mutable_goals(0)->mutable_ad_hoc_chain()->set_tip("hand");
          },
          StatusCode::NOT_FOUND, "goals[0].ad_hoc_chain.tip"),
      solve(
          "AdHocChainEmptyRoot",
          [](v1::SolveChainRequest& r) {
            r.mutable_goals(0)->mutable_ad_hoc_chain()->set_tip("wrist");
          },
          StatusCode::INVALID_ARGUMENT, "goals[0].ad_hoc_chain.root"),
      solve(
          "AdHocChainAgainstParentLinks",
          [](v1::SolveChainRequest& r) {
            r.mutable_goals(0)->mutable_ad_hoc_chain()->set_root("wrist");
            r.mutable_goals(0)->mutable_ad_hoc_chain()->set_tip("shoulder");
          },
          StatusCode::INVALID_ARGUMENT, "goals[0].ad_hoc_chain"),
      solve(
          "ZeroOrientation",
          [](v1::SolveChainRequest& r) {
            *r.mutable_goals(0)->mutable_orientation() = Rotation(0, 0, 0, 0);
          },
          StatusCode::INVALID_ARGUMENT,
          "goals[0].orientation: not a unit quaternion (norm 0)"),
      solve(
          "OrientationWeightOutOfRange",
          [](v1::SolveChainRequest& r) {
            *r.mutable_goals(0)->mutable_orientation() = Rotation(0, 0, 0, 1);
            r.mutable_goals(0)->set_orientation_weight(-0.5);
          },
          StatusCode::INVALID_ARGUMENT, "goals[0].orientation_weight"),
      solve(
          "OrientationWeightNaN",
          [](v1::SolveChainRequest& r) {
            *r.mutable_goals(0)->mutable_orientation() = Rotation(0, 0, 0, 1);
            r.mutable_goals(0)->set_orientation_weight(kNaN);
          },
          StatusCode::INVALID_ARGUMENT, "goals[0].orientation_weight"),
      solve(
          "NonFiniteRootTranslation",
          [](v1::SolveChainRequest& r) {
            *r.mutable_pose()->mutable_root()->mutable_translation() =
                Vec(0, kNaN, 0);
          },
          StatusCode::INVALID_ARGUMENT, "pose.root.translation"),
      solve(
          "NonUnitRootRotation",
          [](v1::SolveChainRequest& r) {
            *r.mutable_pose()->mutable_root()->mutable_rotation() =
                Rotation(0, 2, 0, 0);
          },
          StatusCode::INVALID_ARGUMENT, "pose.root.rotation"),
  };
}

class IkServiceErrorTest : public IkServiceTest,
                           public ::testing::WithParamInterface<ErrorCase> {};

TEST_P(IkServiceErrorTest, RejectsWithCodeAndFieldPath) {
  const ErrorCase& error = GetParam();
  grpc::Status status;
  if (error.break_rig) {
    v1::RegisterRigRequest request;
    *request.mutable_rig() = ArmRig();
    error.break_rig(request);
    v1::RegisterRigResponse response;
    status = stub_->RegisterRig(Context().get(), request, &response);
    // Nothing half-registered.
    v1::ListRigsResponse listed;
    ASSERT_TRUE(
        stub_->ListRigs(Context().get(), v1::ListRigsRequest(), &listed).ok());
    EXPECT_EQ(listed.rigs_size(), 0);
  } else {
    RegisterArm();
    v1::SolveChainRequest request = ArmRequest();
    error.break_solve(request);
    v1::SolveChainResponse response;
    status = Solve(request, &response);
  }
  EXPECT_EQ(status.error_code(), error.code) << status.error_message();
  EXPECT_THAT(status.error_message(), HasSubstr(error.message));
  // The server is still healthy and answers a good request.
  if (!error.break_rig) {
    v1::SolveChainResponse response;
    EXPECT_TRUE(Solve(ArmRequest(), &response).ok());
  } else {
    RegisterArm();
  }
}

INSTANTIATE_TEST_SUITE_P(AllErrors, IkServiceErrorTest,
                         ::testing::ValuesIn(ErrorCases()),
                         [](const ::testing::TestParamInfo<ErrorCase>& info) {
                           return info.param.name;
                         });

}  // namespace
}  // namespace ik::server
