// GroundFeet's errors through a real channel: every request field that can be
// wrong gets its status code and field path, and the size limits are the
// server's options.

#include <cmath>
#include <string>

#include "gmock/gmock.h"
#include "ground_feet_fixture.h"
#include "gtest/gtest.h"

namespace ik::server {
namespace {

using ::ik::testing::Vec;
using ::testing::HasSubstr;
using ::testing::StartsWith;

using BadGround = BadRequest<v1::GroundFeetRequest>;

class GroundFeetErrorTest : public GroundFeetTest,
                            public ::testing::WithParamInterface<BadGround> {};

TEST_P(GroundFeetErrorTest, IsRejectedWithTheFieldPath) {
  v1::GroundFeetRequest request = Request();
  *request.mutable_ground()->add_planes() = LevelPlane(0.0);
  *request.mutable_ground()->add_heightfields() = BumpyPatch(0.0);
  request.add_weights(1.0);
  request.add_weights(1.0);
  v1::GroundSmoothing* smoothing = request.mutable_smoothing();
  *smoothing->add_previous_foot_offsets() = Vec(0, 0, 0);
  *smoothing->add_previous_foot_offsets() = Vec(0, 0, 0);
  smoothing->set_delta_time(1.0 / 60);
  v1::GroundFeetResponse response;
  ASSERT_TRUE(GroundFeet(request, &response).ok());
  GetParam().mutate(request);
  grpc::Status status = GroundFeet(request, &response);
  EXPECT_EQ(status.error_code(), GetParam().code) << status.error_message();
  EXPECT_THAT(status.error_message(), StartsWith(GetParam().message));
}

v1::Plane& FirstPlane(v1::GroundFeetRequest& request) {
  return *request.mutable_ground()->mutable_planes(0);
}
v1::Heightfield& FirstField(v1::GroundFeetRequest& request) {
  return *request.mutable_ground()->mutable_heightfields(0);
}

INSTANTIATE_TEST_SUITE_P(
    All, GroundFeetErrorTest,
    ::testing::Values(
        BadGround{"NoRig", [](auto& r) { r.clear_rig(); },
                  grpc::StatusCode::INVALID_ARGUMENT, "rig: required"},
        BadGround{"UnknownRig", [](auto& r) { r.set_rig("nobody"); },
                  grpc::StatusCode::NOT_FOUND,
                  "rig: rig 'nobody' is not registered"},
        BadGround{"WrongRevision", [](auto& r) { r.set_revision("sha256:0"); },
                  grpc::StatusCode::FAILED_PRECONDITION,
                  "revision: rig 'humanoid' is at revision sha256:"},
        BadGround{
            "PoseUnknownJoint",
            [](auto& r) { r.mutable_pose()->add_joints()->set_name("x"); },
            grpc::StatusCode::NOT_FOUND,
            "pose.joints[0].name: rig 'humanoid' has no joint 'x'"},
        BadGround{"PoseZeroRotation",
                  [](auto& r) {
                    v1::JointPose* joint = r.mutable_pose()->add_joints();
                    joint->set_name("left_knee");
                    *joint->mutable_local()->mutable_rotation() = v1::Quat();
                  },
                  grpc::StatusCode::INVALID_ARGUMENT,
                  "pose.joints[0].local.rotation"},
        BadGround{"PoseJointTwice",
                  [](auto& r) {
                    r.mutable_pose()->add_joints()->set_name("left_knee");
                    r.mutable_pose()->add_joints()->set_index(14);
                  },
                  grpc::StatusCode::INVALID_ARGUMENT, "pose.joints[1]:"},
        BadGround{
            "PoseRootNotFinite",
            [](auto& r) {
              r.mutable_pose()->mutable_root()->mutable_translation()->set_y(
                  NAN);
            },
            grpc::StatusCode::INVALID_ARGUMENT, "pose.root.translation"},
        BadGround{"PoseRootZeroScale",
                  [](auto& r) {
                    *r.mutable_pose()->mutable_root()->mutable_scale() =
                        Vec(1, 0, 1);
                  },
                  grpc::StatusCode::INVALID_ARGUMENT, "pose.root.scale"},
        BadGround{"PoseCollapsesALeg",
                  [](auto& r) {
                    // The knee on top of the hip.
                    v1::JointPose* joint = r.mutable_pose()->add_joints();
                    joint->set_name("left_knee");
                    *joint->mutable_local()->mutable_translation() =
                        Vec(0, 0, 0);
                  },
                  grpc::StatusCode::INVALID_ARGUMENT,
                  "pose: leg 'left_leg' cannot be solved in this pose"},
        BadGround{
            "PlaneZeroNormal",
            [](auto& r) { *FirstPlane(r).mutable_normal() = Vec(0, 0, 0); },
            grpc::StatusCode::INVALID_ARGUMENT, "ground.planes[0].normal"},
        BadGround{"PlaneNormalNotFinite",
                  [](auto& r) {
                    *FirstPlane(r).mutable_normal() = Vec(0, INFINITY, 0);
                  },
                  grpc::StatusCode::INVALID_ARGUMENT,
                  "ground.planes[0].normal"},
        BadGround{"PlaneRectangleInsideOut",
                  [](auto& r) {
                    FirstPlane(r) = LevelRectangle(0, 1.0, -1.0, -1.0, 1.0);
                  },
                  grpc::StatusCode::INVALID_ARGUMENT,
                  "ground.planes[0].rectangle_xz"},
        BadGround{
            "PlaneZeroRadius", [](auto& r) { FirstPlane(r).set_radius(0.0); },
            grpc::StatusCode::INVALID_ARGUMENT, "ground.planes[0].radius"},
        BadGround{"PlaneNegativeRadius",
                  [](auto& r) {
                    *r.mutable_ground()->add_planes() = LevelPlane(0.0);
                    r.mutable_ground()->mutable_planes(1)->set_radius(-1.0);
                  },
                  grpc::StatusCode::INVALID_ARGUMENT,
                  "ground.planes[1].radius"},
        BadGround{"HeightfieldZeroSpacing",
                  [](auto& r) { FirstField(r).set_spacing_x(0.0); },
                  grpc::StatusCode::INVALID_ARGUMENT,
                  "ground.heightfields[0].spacing_x"},
        BadGround{"HeightfieldOneColumn",
                  [](auto& r) { FirstField(r).set_columns(1); },
                  grpc::StatusCode::INVALID_ARGUMENT,
                  "ground.heightfields[0].columns"},
        BadGround{"HeightfieldHeightNotFinite",
                  [](auto& r) { FirstField(r).set_heights(3, NAN); },
                  grpc::StatusCode::INVALID_ARGUMENT,
                  "ground.heightfields[0].heights[3]: not finite"},
        BadGround{"HeightfieldCountMismatch",
                  [](auto& r) { FirstField(r).add_heights(0.0); },
                  grpc::StatusCode::INVALID_ARGUMENT,
                  "ground.heightfields[0].heights: 37 values, expected 36"},
        BadGround{"HeightfieldTooManySamples",
                  [](auto& r) {
                    // 90,000 samples: over the inline limit of 65,536.
                    FirstField(r).set_columns(300);
                    FirstField(r).set_rows(300);
                  },
                  grpc::StatusCode::RESOURCE_EXHAUSTED,
                  "ground.heightfields[0].heights: 90000 samples"},
        BadGround{"UnknownTerrain",
                  [](auto& r) {
                    r.mutable_ground()->add_terrains("stairs");
                    r.mutable_ground()->add_terrains("nowhere");
                  },
                  grpc::StatusCode::NOT_FOUND,
                  "ground.terrains[1]: terrain 'nowhere' is not registered"},
        BadGround{"EmptyTerrainName",
                  [](auto& r) { r.mutable_ground()->add_terrains(""); },
                  grpc::StatusCode::INVALID_ARGUMENT, "ground.terrains[0]:"},
        BadGround{"TooManyShapes",
                  [](auto& r) {
                    // 64 planes, the patch and a terrain: 66 of 64.
                    for (int i = 0; i < 63; ++i) {
                      *r.mutable_ground()->add_planes() = LevelPlane(-i);
                    }
                    r.mutable_ground()->add_terrains("slope");
                  },
                  grpc::StatusCode::RESOURCE_EXHAUSTED, "ground: 66 planes"},
        BadGround{"OneWeightForTwoLegs",
                  [](auto& r) { r.mutable_weights()->RemoveLast(); },
                  grpc::StatusCode::INVALID_ARGUMENT,
                  "weights: 1 values for rig 'humanoid' of 2 legs"},
        BadGround{"WeightAboveOne", [](auto& r) { r.set_weights(1, 1.5); },
                  grpc::StatusCode::INVALID_ARGUMENT,
                  "weights[1]: 1.5 is not in [0, 1]"},
        BadGround{"NegativeWeight", [](auto& r) { r.set_weights(1, -0.1); },
                  grpc::StatusCode::INVALID_ARGUMENT,
                  "weights[1]: -0.1 is not in [0, 1]"},
        BadGround{"WeightNotANumber", [](auto& r) { r.set_weights(1, NAN); },
                  grpc::StatusCode::INVALID_ARGUMENT, "weights[1]:"},
        BadGround{"NegativePreviousDrop",
                  [](auto& r) {
                    r.mutable_smoothing()->set_previous_pelvis_drop(-0.1);
                  },
                  grpc::StatusCode::INVALID_ARGUMENT,
                  "smoothing.previous_pelvis_drop:"},
        BadGround{"OneOffsetForTwoLegs",
                  [](auto& r) {
                    r.mutable_smoothing()
                        ->mutable_previous_foot_offsets()
                        ->RemoveLast();
                  },
                  grpc::StatusCode::INVALID_ARGUMENT,
                  "smoothing.previous_foot_offsets: 1 offsets for rig "
                  "'humanoid' of 2 legs"},
        BadGround{
            "OffsetNotFinite",
            [](auto& r) {
              r.mutable_smoothing()->mutable_previous_foot_offsets(1)->set_z(
                  NAN);
            },
            grpc::StatusCode::INVALID_ARGUMENT,
            "smoothing.previous_foot_offsets[1]:"},
        BadGround{"NegativeDeltaTime",
                  [](auto& r) { r.mutable_smoothing()->set_delta_time(-0.01); },
                  grpc::StatusCode::INVALID_ARGUMENT, "smoothing.delta_time:"},
        BadGround{
            "PelvisSpeedNotANumber",
            [](auto& r) { r.mutable_smoothing()->set_max_pelvis_speed(NAN); },
            grpc::StatusCode::INVALID_ARGUMENT, "smoothing.max_pelvis_speed:"},
        BadGround{
            "NegativeFootSpeed",
            [](auto& r) { r.mutable_smoothing()->set_max_foot_speed(-1); },
            grpc::StatusCode::INVALID_ARGUMENT, "smoothing.max_foot_speed:"},
        BadGround{"NegativeTolerance", [](auto& r) { r.set_tolerance(-1e-3); },
                  grpc::StatusCode::INVALID_ARGUMENT, "tolerance:"},
        BadGround{"ToleranceNotANumber", [](auto& r) { r.set_tolerance(NAN); },
                  grpc::StatusCode::INVALID_ARGUMENT, "tolerance:"}),
    BadRequestName());

TEST_F(GroundFeetTest, InlineSampleLimitIsTheServersOption) {
  ServerOptions options;
  options.limits.max_inline_heightfield_samples = 35;
  options.limits.max_ground_shapes = 2;
  StartServer(options);
  absl::StatusOr<v1::Rig> rig =
      ReadRigFile(std::string(IK_EXAMPLES_DIR) + "/rigs/humanoid.json");
  ASSERT_TRUE(rig.ok()) << rig.status();
  v1::RegisterRigResponse registered;
  ASSERT_TRUE(Register(*rig, false, &registered).ok());

  v1::GroundFeetRequest request = Request();
  *request.mutable_ground()->add_heightfields() = BumpyPatch(0.0);  // 36
  v1::GroundFeetResponse response;
  grpc::Status status = GroundFeet(request, &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_THAT(status.error_message(),
              StartsWith("ground.heightfields[0].heights: 36 samples"));
  EXPECT_THAT(status.error_message(), HasSubstr("limit of 35"));

  request.mutable_ground()->clear_heightfields();
  for (int i = 0; i < 3; ++i) {
    *request.mutable_ground()->add_planes() = LevelPlane(-i);
  }
  status = GroundFeet(request, &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_THAT(status.error_message(), StartsWith("ground: 3 planes"));
  request.mutable_ground()->mutable_planes()->RemoveLast();
  EXPECT_TRUE(GroundFeet(request, &response).ok());
}

}  // namespace
}  // namespace ik::server
