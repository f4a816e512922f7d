// SolveChain's swivel angle and torque solver through a real channel, on
// the example rigs, and the errors of their fields.
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ik/rig_json.h"
#include "service_fixture.h"

namespace ik::server {
namespace {

using ::ik::testing::Vec;
using ::testing::HasSubstr;

class SolveSwivelTest : public IkServiceTest {
 protected:
  void SetUp() override {
    IkServiceTest::SetUp();
    for (const char* name : {"humanoid", "tail"}) {
      absl::StatusOr<v1::Rig> rig =
          ReadRigFile(absl::StrCat(IK_EXAMPLES_DIR, "/rigs/", name, ".json"));
      ASSERT_TRUE(rig.ok()) << rig.status();
      v1::RegisterRigResponse response;
      ASSERT_TRUE(Register(*rig, false, &response).ok());
    }
  }
  static v1::SolveChainRequest ArmGoal(double swivel) {
    v1::SolveChainRequest request;
    request.set_rig("humanoid");
    v1::ChainGoal* goal = request.add_goals();
    goal->set_chain("left_arm");
    *goal->mutable_target() = Vec(0.45, 1.2, 0.15);
    goal->set_swivel(swivel);
    return request;
  }
};

TEST_F(SolveSwivelTest, SwivelTurnsTheElbowAndIgnoresTheIncomingPose) {
  v1::SolveChainResponse a, b, moved;
  ASSERT_TRUE(Solve(ArmGoal(0.0), &a).ok());
  ASSERT_TRUE(Solve(ArmGoal(1.0), &b).ok());
  EXPECT_TRUE(a.results(0).reached());
  EXPECT_TRUE(b.results(0).reached());
  EXPECT_GT(a.results(0).singularity_angle(), 0.0);
  EXPECT_NE(a.results(0).rotations(0).rotation().SerializeAsString(),
            b.results(0).rotations(0).rotation().SerializeAsString());
  // The same swivel from a different incoming pose: the same bits.
  v1::SolveChainRequest request = ArmGoal(1.0);
  v1::JointPose* joint = request.mutable_pose()->add_joints();
  joint->set_name("left_shoulder");
  *joint->mutable_local()->mutable_rotation() =
      ::ik::testing::Rotation(0.0, 0.0, 0.3826834, 0.9238795);
  ASSERT_TRUE(Solve(request, &moved).ok());
  EXPECT_EQ(moved.results(0).SerializeAsString(),
            b.results(0).SerializeAsString());
}

TEST_F(SolveSwivelTest, SwivelNearASingularDirectionIsFlagged) {
  // Straight down from the left shoulder: the arm's singular direction.
  v1::SolveChainRequest request = ArmGoal(0.0);
  *request.mutable_goals(0)->mutable_target() = Vec(0.2, 0.95, 0.0);
  v1::SolveChainResponse response;
  ASSERT_TRUE(Solve(request, &response).ok());
  EXPECT_TRUE(response.results(0).near_singularity());
  EXPECT_LT(response.results(0).singularity_angle(), 0.1745);
}

TEST_F(SolveSwivelTest, SwivelWithAPoleIsRejected) {
  v1::SolveChainRequest request = ArmGoal(0.0);
  *request.mutable_goals(0)->mutable_pole() = Vec(0.3, 1.2, -0.5);
  v1::SolveChainResponse response;
  grpc::Status status = Solve(request, &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(), HasSubstr("goals[0].swivel:"));
}

TEST_F(SolveSwivelTest, TorqueSolverReachesTheTail) {
  v1::SolveChainRequest request;
  request.set_rig("tail");
  v1::ChainGoal* goal = request.add_goals();
  goal->set_chain("tail");
  *goal->mutable_target() = Vec(0.25, 0.55, -0.95);
  goal->set_solver(v1::SOLVER_TORQUE);
  v1::SolveChainResponse response;
  ASSERT_TRUE(Solve(request, &response).ok());
  EXPECT_EQ(response.results(0).solver(), v1::SOLVER_TORQUE);
  EXPECT_TRUE(response.results(0).reached());
  EXPECT_LT(response.results(0).residual(), 1e-3);
}

TEST_F(SolveSwivelTest, BadChainSettingsAreRejectedAtRegistration) {
  absl::StatusOr<v1::Rig> rig =
      ReadRigFile(absl::StrCat(IK_EXAMPLES_DIR, "/rigs/tail.json"));
  ASSERT_TRUE(rig.ok());
  rig->set_name("tail_bad");
  v1::Chain* chain = rig->mutable_chains(0);
  v1::RegisterRigResponse response;
  chain->mutable_torque()->set_gain(0.0);
  grpc::Status status = Register(*rig, false, &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(), HasSubstr("rig.chains[0].torque.gain"));
  chain->mutable_torque()->clear_gain();
  chain->mutable_torque()->add_joints()->set_joint("hips");
  status = Register(*rig, false, &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(),
              HasSubstr("rig.chains[0].torque.joints[0].joint"));
  chain->mutable_torque()->clear_joints();
  chain->set_flip_warning_angle(3.0);
  status = Register(*rig, false, &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(),
              HasSubstr("rig.chains[0].flip_warning_angle"));
}

}  // namespace
}  // namespace ik::server
