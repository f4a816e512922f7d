// IkService over a real loopback channel: the whole rig lifecycle, solving,
// determinism and every error path with its code and field path.
#include "rpc/ik_service.h"

#include <grpcpp/grpcpp.h>

#include <cmath>
#include <functional>
#include <limits>
#include <memory>
#include <ostream>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ik/v1/ik.grpc.pb.h"
#include "server.h"
#include "service_fixture.h"
#include "test_rigs.h"

namespace ik::server {
namespace {

using ::ik::testing::ArmRig;
using ::ik::testing::Rotation;
using ::ik::testing::Vec;
using ::testing::HasSubstr;

TEST_F(IkServiceTest, RegisterGetListSolveDelete) {
  v1::RegisterRigResponse registered;
  ASSERT_TRUE(Register(ArmRig(), false, &registered).ok());
  EXPECT_EQ(registered.name(), "arm");
  EXPECT_THAT(registered.revision(), ::testing::StartsWith("sha256:"));
  EXPECT_EQ(registered.revision().size(), 7u + 16u);
  EXPECT_TRUE(registered.created());
  EXPECT_FALSE(registered.replaced());

  v1::GetRigRequest get;
  get.set_name("arm");
  v1::GetRigResponse got;
  ASSERT_TRUE(stub_->GetRig(Context().get(), get, &got).ok());
  EXPECT_EQ(got.revision(), registered.revision());
  EXPECT_EQ(got.rig().joints_size(), 3);
  EXPECT_EQ(got.rig().joints(2).parent_index(), 1);

  v1::ListRigsResponse listed;
  ASSERT_TRUE(
      stub_->ListRigs(Context().get(), v1::ListRigsRequest(), &listed).ok());
  ASSERT_EQ(listed.rigs_size(), 1);
  EXPECT_EQ(listed.rigs(0).name(), "arm");
  EXPECT_EQ(listed.rigs(0).joint_count(), 3);
  EXPECT_THAT(listed.rigs(0).chains(), ::testing::ElementsAre("arm"));

  v1::SolveChainResponse solved;
  grpc::Status status = Solve(ArmRequest(), &solved);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(solved.revision(), registered.revision());
  ASSERT_EQ(solved.results_size(), 1);
  const v1::GoalResult& result = solved.results(0);
  EXPECT_EQ(result.chain(), "arm");
  EXPECT_TRUE(result.reached());
  EXPECT_LT(result.residual(), 1e-9);
  EXPECT_EQ(result.iterations(), 1);
  EXPECT_EQ(result.solver(), v1::SOLVER_TWO_BONE);
  EXPECT_NEAR(result.effector().x(), 0.1, 1e-9);
  EXPECT_NEAR(result.effector().y(), -0.35, 1e-9);
  EXPECT_NEAR(result.effector().z(), 0.15, 1e-9);
  ASSERT_EQ(result.rotations_size(), 2);
  EXPECT_EQ(result.rotations(0).name(), "shoulder");
  EXPECT_EQ(result.rotations(1).name(), "elbow");
  EXPECT_EQ(result.rotations(1).index(), 1);

  v1::DeleteRigRequest remove;
  remove.set_name("arm");
  v1::DeleteRigResponse removed;
  ASSERT_TRUE(stub_->DeleteRig(Context().get(), remove, &removed).ok());
  EXPECT_EQ(removed.revision(), registered.revision());
  status = stub_->GetRig(Context().get(), get, &got);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_THAT(status.error_message(), HasSubstr("rig 'arm'"));
}

TEST_F(IkServiceTest, RegisterIsIdempotentForTheSameContent) {
  v1::RegisterRigResponse first, second;
  ASSERT_TRUE(Register(ArmRig(), false, &first).ok());
  ASSERT_TRUE(Register(ArmRig(), false, &second).ok());
  EXPECT_EQ(first.revision(), second.revision());
  EXPECT_FALSE(second.created());
  EXPECT_FALSE(second.replaced());
}

TEST_F(IkServiceTest, StoredRigHasNormalisedRotations) {
  v1::Rig nearly_unit = ArmRig();
  v1::Quat* q =
      nearly_unit.mutable_joints(1)->mutable_rest()->mutable_rotation();
  q->set_x(q->x() * 1.0005);
  q->set_w(q->w() * 1.0005);
  v1::RegisterRigResponse first, second;
  ASSERT_TRUE(Register(nearly_unit, false, &first).ok());
  ASSERT_TRUE(Register(nearly_unit, false, &second).ok());
  EXPECT_EQ(first.revision(), second.revision());
  EXPECT_FALSE(second.created());

  v1::GetRigRequest get;
  get.set_name("arm");
  v1::GetRigResponse got;
  ASSERT_TRUE(stub_->GetRig(Context().get(), get, &got).ok());
  const v1::Quat& stored = got.rig().joints(1).rest().rotation();
  EXPECT_NEAR(std::sqrt(stored.x() * stored.x() + stored.w() * stored.w()), 1.0,
              1e-12);
  EXPECT_NEAR(stored.x(), -0.043619387365336, 1e-12);
}

TEST_F(IkServiceTest, DifferentContentNeedsReplace) {
  v1::RegisterRigResponse first;
  ASSERT_TRUE(Register(ArmRig(), false, &first).ok());
  v1::Rig longer = ArmRig();
  longer.mutable_joints(2)->mutable_rest()->mutable_translation()->set_y(-0.3);

  v1::RegisterRigResponse refused;
  grpc::Status status = Register(longer, false, &refused);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::ALREADY_EXISTS);
  EXPECT_THAT(status.error_message(), HasSubstr("rig.name"));
  EXPECT_THAT(status.error_message(), HasSubstr("replace"));

  v1::RegisterRigResponse replaced;
  ASSERT_TRUE(Register(longer, true, &replaced).ok());
  EXPECT_TRUE(replaced.replaced());
  EXPECT_NE(replaced.revision(), first.revision());
}

TEST_F(IkServiceTest, PinnedRevisionMustMatch) {
  RegisterArm();
  v1::SolveChainRequest request = ArmRequest();
  request.set_revision("sha256:0000000000000000");
  v1::SolveChainResponse response;
  grpc::Status status = Solve(request, &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_THAT(status.error_message(), HasSubstr("revision"));

  v1::DeleteRigRequest remove;
  remove.set_name("arm");
  remove.set_revision("sha256:0000000000000000");
  v1::DeleteRigResponse removed;
  status = stub_->DeleteRig(Context().get(), remove, &removed);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
}

TEST_F(IkServiceTest, UnreachableTargetIsNotAnError) {
  RegisterArm();
  v1::SolveChainRequest request = ArmRequest();
  *request.mutable_goals(0)->mutable_target() = Vec(0, -2.0, 0);
  v1::SolveChainResponse response;
  grpc::Status status = Solve(request, &response);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_FALSE(response.results(0).reached());
  // Fully extended towards the target: 2.0 - (0.3 + 0.25).
  EXPECT_NEAR(response.results(0).residual(), 1.45, 1e-9);
}

TEST_F(IkServiceTest, SameRequestGivesIdenticalBits) {
  RegisterArm();
  v1::SolveChainRequest request = ArmRequest();
  v1::JointPose* override = request.mutable_pose()->add_joints();
  override->set_name("shoulder");
  *override->mutable_local()->mutable_rotation() =
      Rotation(0.1, 0.2, -0.05, 0.973396);
  *request.mutable_pose()->mutable_root()->mutable_translation() = Vec(1, 0, 2);
  *request.mutable_goals(0)->mutable_target() = Vec(1.2, -0.3, 2.1);
  *request.mutable_goals(0)->mutable_pole() = Vec(1, 0, 3);
  v1::SolveChainResponse first, second;
  ASSERT_TRUE(Solve(request, &first).ok());
  ASSERT_TRUE(Solve(request, &second).ok());
  EXPECT_TRUE(first.results(0).reached());
  EXPECT_EQ(first.SerializeAsString(), second.SerializeAsString());
}

TEST_F(IkServiceTest, GoalsAreSolvedInOrderOnTheSamePose) {
  RegisterArm();
  v1::SolveChainRequest request = ArmRequest();
  v1::ChainGoal* second = request.add_goals();
  second->set_chain("arm");
  *second->mutable_target() = Vec(-0.1, -0.4, 0.1);
  v1::SolveChainResponse response;
  ASSERT_TRUE(Solve(request, &response).ok());
  ASSERT_EQ(response.results_size(), 2);
  EXPECT_TRUE(response.results(0).reached());
  EXPECT_TRUE(response.results(1).reached());
  EXPECT_NEAR(response.results(1).effector().x(), -0.1, 1e-9);
}

TEST_F(IkServiceTest, NearlyUnitPoseRotationIsNormalised) {
  RegisterArm();
  v1::SolveChainRequest request = ArmRequest();
  v1::JointPose* override = request.mutable_pose()->add_joints();
  override->set_index(0);
  *override->mutable_local()->mutable_rotation() = Rotation(0, 0, 0, 1.0009);
  v1::SolveChainResponse response;
  grpc::Status status = Solve(request, &response);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_TRUE(response.results(0).reached());
}

TEST_F(IkServiceTest, SnapshotsSurviveConcurrentReplaceAndDelete) {
  RegisterArm();
  v1::Rig longer = ArmRig();
  longer.mutable_joints(2)->mutable_rest()->mutable_translation()->set_y(-0.3);
  std::vector<std::thread> solvers;
  std::atomic<int> answered{0};
  for (int t = 0; t < 2; ++t) {
    solvers.emplace_back([&] {
      for (int i = 0; i < 100; ++i) {
        v1::SolveChainResponse response;
        grpc::Status status = Solve(ArmRequest(), &response);
        if (status.ok()) {
          EXPECT_TRUE(response.results(0).reached());
          ++answered;
        } else {
          EXPECT_EQ(status.error_code(), grpc::StatusCode::NOT_FOUND);
        }
      }
    });
  }
  for (int i = 0; i < 50; ++i) {
    v1::RegisterRigResponse response;
    ASSERT_TRUE(Register(i % 2 ? ArmRig() : longer, true, &response).ok());
    if (i % 10 == 0) {
      v1::DeleteRigRequest remove;
      remove.set_name("arm");
      v1::DeleteRigResponse removed;
      ASSERT_TRUE(stub_->DeleteRig(Context().get(), remove, &removed).ok());
    }
  }
  for (std::thread& solver : solvers) solver.join();
  EXPECT_GT(answered.load(), 0);
}

// Composes wire quaternions (Hamilton product a*b).
v1::Quat Multiply(const v1::Quat& a, const v1::Quat& b) {
  return Rotation(
      a.w() * b.x() + a.x() * b.w() + a.y() * b.z() - a.z() * b.y(),
      a.w() * b.y() - a.x() * b.z() + a.y() * b.w() + a.z() * b.x(),
      a.w() * b.z() + a.x() * b.y() - a.y() * b.x() + a.z() * b.w(),
      a.w() * b.w() - a.x() * b.x() - a.y() * b.y() - a.z() * b.z());
}

TEST_F(IkServiceTest, EverySolverReachesAReachableTarget) {
  RegisterArm();
  for (v1::Solver solver :
       {v1::SOLVER_UNSPECIFIED, v1::SOLVER_AUTO, v1::SOLVER_TWO_BONE,
        v1::SOLVER_FABRIK, v1::SOLVER_CCD}) {
    v1::SolveChainRequest request = ArmRequest();
    request.mutable_goals(0)->set_solver(solver);
    request.mutable_goals(0)->set_tolerance(1e-4);
    request.mutable_goals(0)->set_max_iterations(200);
    v1::SolveChainResponse response;
    grpc::Status status = Solve(request, &response);
    ASSERT_TRUE(status.ok()) << status.error_message();
    const v1::GoalResult& result = response.results(0);
    const v1::Solver expected =
        solver == v1::SOLVER_UNSPECIFIED || solver == v1::SOLVER_AUTO
            ? v1::SOLVER_TWO_BONE
            : solver;
    EXPECT_EQ(result.solver(), expected) << v1::Solver_Name(solver);
    EXPECT_TRUE(result.reached()) << v1::Solver_Name(solver);
    EXPECT_LE(result.residual(), 1e-4);
    EXPECT_EQ(result.stop_reason(), v1::STOP_REASON_REACHED);
    EXPECT_GE(result.iterations(), 1);
    EXPECT_LE(result.iterations(), 200);
  }
}

TEST_F(IkServiceTest, AdHocChainIsSolved) {
  RegisterArm();
  v1::SolveChainRequest request = ArmRequest();
  v1::ChainGoal* goal = request.mutable_goals(0);
  goal->mutable_ad_hoc_chain()->set_root("shoulder");
  goal->mutable_ad_hoc_chain()->set_tip("wrist");
  goal->set_solver(v1::SOLVER_CCD);
  goal->set_max_iterations(100);
  goal->set_tolerance(1e-4);
  v1::SolveChainResponse response;
  grpc::Status status = Solve(request, &response);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(response.results(0).chain(), "shoulder..wrist");
  EXPECT_TRUE(response.results(0).reached());
  EXPECT_EQ(response.results(0).solver(), v1::SOLVER_CCD);
}

TEST_F(IkServiceTest, OrientationGoalTurnsTheTip) {
  RegisterArm();
  // A quarter turn about +Y for the wrist, in world space.
  const v1::Quat wanted =
      Rotation(0, 0.70710678118654752, 0, 0.70710678118654752);
  v1::SolveChainRequest request = ArmRequest();
  *request.mutable_goals(0)->mutable_orientation() = wanted;
  v1::SolveChainResponse response;
  grpc::Status status = Solve(request, &response);
  ASSERT_TRUE(status.ok()) << status.error_message();
  const v1::GoalResult& result = response.results(0);
  EXPECT_TRUE(result.reached());
  ASSERT_EQ(result.rotations_size(), 3);
  EXPECT_EQ(result.rotations(2).name(), "wrist");
  // The shoulder is a root and the root transform is identity, so the
  // wrist's world rotation is the product of the three local rotations.
  const v1::Quat world = Multiply(
      Multiply(result.rotations(0).rotation(), result.rotations(1).rotation()),
      result.rotations(2).rotation());
  const double dot = world.x() * wanted.x() + world.y() * wanted.y() +
                     world.z() * wanted.z() + world.w() * wanted.w();
  EXPECT_NEAR(std::abs(dot), 1.0, 1e-9);

  // Weight 0 leaves the wrist's local rotation as it was (rest: identity).
  request.mutable_goals(0)->set_orientation_weight(0.0);
  ASSERT_TRUE(Solve(request, &response).ok());
  const v1::Quat& unturned = response.results(0).rotations(2).rotation();
  EXPECT_NEAR(std::abs(unturned.w()), 1.0, 1e-12);
}

TEST_F(IkServiceTest, UnreachableIterativeSolveSaysWhyItStopped) {
  RegisterArm();
  for (v1::Solver solver : {v1::SOLVER_FABRIK, v1::SOLVER_CCD}) {
    v1::SolveChainRequest request = ArmRequest();
    *request.mutable_goals(0)->mutable_target() = Vec(0, -2.0, 0);
    request.mutable_goals(0)->set_solver(solver);
    v1::SolveChainResponse response;
    ASSERT_TRUE(Solve(request, &response).ok());
    const v1::GoalResult& result = response.results(0);
    EXPECT_FALSE(result.reached());
    EXPECT_NEAR(result.residual(), 1.45, 1e-6) << v1::Solver_Name(solver);
    EXPECT_THAT(result.stop_reason(),
                ::testing::AnyOf(v1::STOP_REASON_NO_IMPROVEMENT,
                                 v1::STOP_REASON_ITERATION_CAP));
  }
}

TEST_F(IkServiceTest, LimitedJointsAreReported) {
  v1::Rig rig = ArmRig();
  // The elbow may only bend 0..30 degrees about X: a target needing more
  // bend is clamped and reported.
  v1::HingeLimit* hinge =
      rig.mutable_joints(1)->mutable_limit()->mutable_hinge();
  *hinge->mutable_axis() = Vec(-1, 0, 0);
  hinge->mutable_range()->set_min(-0.1);
  hinge->mutable_range()->set_max(0.5236);
  v1::RegisterRigResponse registered;
  ASSERT_TRUE(Register(rig, false, &registered).ok());
  v1::SolveChainRequest request = ArmRequest();
  *request.mutable_goals(0)->mutable_target() = Vec(0, -0.2, 0.1);
  v1::SolveChainResponse response;
  ASSERT_TRUE(Solve(request, &response).ok());
  EXPECT_FALSE(response.results(0).reached());
  EXPECT_THAT(response.results(0).limited_joints(),
              ::testing::Contains("elbow"));
}

TEST(IkServiceLimitsTest, RegistryLimitGivesResourceExhausted) {
  ServerOptions options;
  options.listen = "127.0.0.1:0";
  options.limits.max_rigs = 1;
  auto server = IkServer::Start(options);
  ASSERT_TRUE(server.ok());
  auto stub = v1::IkService::NewStub(
      grpc::CreateChannel(absl::StrCat("127.0.0.1:", (*server)->port()),
                          grpc::InsecureChannelCredentials()));
  v1::RegisterRigRequest request;
  *request.mutable_rig() = ArmRig();
  v1::RegisterRigResponse response;
  grpc::ClientContext first;
  ASSERT_TRUE(stub->RegisterRig(&first, request, &response).ok());
  request.mutable_rig()->set_name("arm2");
  grpc::ClientContext second;
  grpc::Status status = stub->RegisterRig(&second, request, &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_THAT(status.error_message(), HasSubstr("arm2"));
}

TEST_F(IkServiceTest, OversizedMessageIsRefusedAndServerKeepsServing) {
  v1::Rig huge = ArmRig();
  huge.set_name(std::string(5 * 1024 * 1024, 'x'));
  v1::RegisterRigResponse response;
  grpc::Status status = Register(huge, false, &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  RegisterArm();
}

}  // namespace
}  // namespace ik::server
