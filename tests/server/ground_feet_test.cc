// GroundFeet through a real channel: the example humanoid on planes, a step,
// the bundled slope and stairs and inline heightfields; planted weights,
// stateless smoothing, determinism and rigid bones (the fixture checks every
// answer by forward kinematics). Errors: ground_feet_errors_test.cc.
#include <cmath>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "ground_feet_fixture.h"
#include "gtest/gtest.h"

namespace ik::server {
namespace {

using ::ik::testing::Vec;
using ::testing::HasSubstr;
using ::testing::StartsWith;

TEST_F(GroundFeetTest, GroundAtTheAnimatedSoleChangesNothing) {
  v1::GroundFeetRequest request = Request();
  *request.mutable_ground()->add_planes() = LevelPlane(sole_y_);
  const v1::GroundFeetResponse response = Ground(request);
  ASSERT_EQ(response.feet_size(), 2);
  EXPECT_NEAR(response.pelvis_drop(), 0.0, 1e-9);
  EXPECT_FALSE(response.pelvis_drop_clamped());
  const char* joints[] = {"left_hip",  "left_knee",  "left_ankle",
                          "right_hip", "right_knee", "right_ankle"};
  for (int j = 0; j < 6; ++j) {
    EXPECT_EQ(response.rotations(j).name(), joints[j]);
  }
  ExpectLegUntouched(response, 0);
  ExpectLegUntouched(response, 1);
  for (const v1::FootResult& foot : response.feet()) {
    EXPECT_TRUE(foot.ground_found()) << foot.leg();
    EXPECT_TRUE(foot.grounded()) << foot.leg();
    EXPECT_TRUE(foot.reached()) << foot.leg();
    EXPECT_LT(foot.moved(), 1e-6) << foot.leg();
    EXPECT_LT(foot.tilt(), 1e-6) << foot.leg();
    EXPECT_FALSE(foot.tilt_clamped()) << foot.leg();
    EXPECT_NEAR(foot.contact_point().y(), sole_y_, 1e-9) << foot.leg();
    EXPECT_NEAR(foot.contact_normal().y(), 1.0, 1e-12) << foot.leg();
  }
  EXPECT_EQ(response.terrain_revisions_size(), 0);
}

TEST_F(GroundFeetTest, NoGroundLeavesThePoseAsAnimated) {
  const v1::GroundFeetResponse response = Ground(Request());
  ASSERT_EQ(response.feet_size(), 2);
  EXPECT_EQ(response.pelvis_drop(), 0.0);
  ExpectLegUntouched(response, 0);
  ExpectLegUntouched(response, 1);
  for (const v1::FootResult& foot : response.feet()) {
    EXPECT_FALSE(foot.ground_found()) << foot.leg();
    EXPECT_FALSE(foot.grounded()) << foot.leg();
    EXPECT_TRUE(foot.reached()) << foot.leg();
    EXPECT_EQ(foot.tilt(), 0.0) << foot.leg();
  }
}

TEST_F(GroundFeetTest, StepUnderOneFootLiftsThatSoleOntoIt) {
  constexpr double kRise = 0.1;
  v1::GroundFeetRequest request = Request();
  // Level ground at the soles, and a step under the left foot (x = +0.09)
  // only, long enough for its toe.
  *request.mutable_ground()->add_planes() = LevelPlane(sole_y_);
  *request.mutable_ground()->add_planes() =
      LevelRectangle(sole_y_ + kRise, 0.0, 0.4, -0.3, 0.4);
  const v1::GroundFeetResponse response = Ground(request);
  ASSERT_EQ(response.feet_size(), 2);
  // Lifting a foot needs no drop.
  EXPECT_NEAR(response.pelvis_drop(), 0.0, 1e-9);
  EXPECT_FALSE(response.pelvis_drop_clamped());

  const std::vector<Transform> animated = World(request, nullptr);
  const std::vector<Transform> grounded = World(request, &response);
  const v1::FootResult& left = response.feet(0);
  EXPECT_TRUE(left.grounded());
  EXPECT_TRUE(left.reached());
  EXPECT_NEAR(left.contact_point().y(), sole_y_ + kRise, 1e-9);
  EXPECT_NEAR(left.goal().y(), sole_y_ + kRise + kAnkleHeight, 1e-9);
  EXPECT_NEAR(left.goal().x(), Ankle(animated, 0).x, 1e-12);
  EXPECT_NEAR(left.goal().z(), Ankle(animated, 0).z, 1e-12);
  EXPECT_NEAR(left.foot_offset().y(), kRise, 1e-9);
  // The sole is on the step, level (its toe is on the step too).
  EXPECT_NEAR(Ankle(grounded, 0).y - kAnkleHeight, sole_y_ + kRise, 1e-3);
  EXPECT_LT(left.tilt(), 1e-6);
  EXPECT_GT(SoleUp(grounded, 0).y, std::cos(1e-3));

  // The right foot stays as animated.
  const v1::FootResult& right = response.feet(1);
  EXPECT_TRUE(right.reached());
  EXPECT_NEAR(right.contact_point().y(), sole_y_, 1e-9);
  EXPECT_LT(right.moved(), 1e-6);
  ExpectLegUntouched(response, 1);
}

TEST_F(GroundFeetTest, LowerGroundUnderOneFootDropsThePelvisByItsDepth) {
  constexpr double kDepth = 0.1;
  v1::GroundFeetRequest request = Request();
  // Ground 10 cm lower everywhere but under the right foot (x = -0.09).
  *request.mutable_ground()->add_planes() = LevelPlane(sole_y_ - kDepth);
  *request.mutable_ground()->add_planes() =
      LevelRectangle(sole_y_, -0.4, 0.0, -0.3, 0.4);
  const v1::GroundFeetResponse response = Ground(request);
  ASSERT_EQ(response.feet_size(), 2);
  // The rest pose already stretches the legs as far as they may go, so
  // the pelvis comes down by the whole depth.
  EXPECT_NEAR(response.pelvis_drop(), kDepth, 1e-6);
  EXPECT_NEAR(response.pelvis_drop_target(), response.pelvis_drop(), 1e-12);
  EXPECT_FALSE(response.pelvis_drop_clamped());

  const std::vector<Transform> animated = World(request, nullptr);
  const std::vector<Transform> grounded = World(request, &response);
  const v1::FootResult& left = response.feet(0);
  EXPECT_TRUE(left.grounded());
  EXPECT_TRUE(left.reached());
  EXPECT_NEAR(left.contact_point().y(), sole_y_ - kDepth, 1e-9);
  EXPECT_NEAR(left.goal().y(), sole_y_ - kDepth + kAnkleHeight, 1e-9);
  EXPECT_NEAR(Ankle(grounded, 0).y - kAnkleHeight, sole_y_ - kDepth, 1e-3);
  // The right foot keeps its place in the world: its knee bends instead.
  const v1::FootResult& right = response.feet(1);
  EXPECT_TRUE(right.reached());
  EXPECT_NEAR(right.goal().y(), Ankle(animated, 1).y, 1e-9);
  EXPECT_LT(glm::length(Ankle(grounded, 1) - Ankle(animated, 1)), 1e-3);
  EXPECT_GT(SoleUp(grounded, 1).y, std::cos(1e-3));
}

TEST_F(GroundFeetTest, SlopeTiltsBothSolesOntoIt) {
  v1::GroundFeetRequest request = Request();
  request.mutable_ground()->add_terrains("slope");
  const v1::GroundFeetResponse response = Ground(request);
  ASSERT_EQ(response.feet_size(), 2);
  ASSERT_EQ(response.terrain_revisions_size(), 1);
  EXPECT_EQ(response.terrain_revisions(0), TerrainRevision("slope"));

  const Vec3 normal(0.0, std::cos(kSlopeAngle), -std::sin(kSlopeAngle));
  const std::vector<Transform> grounded = World(request, &response);
  for (int l = 0; l < 2; ++l) {
    const v1::FootResult& foot = response.feet(l);
    SCOPED_TRACE(foot.leg());
    EXPECT_TRUE(foot.ground_found());
    EXPECT_TRUE(foot.grounded());
    EXPECT_TRUE(foot.reached());
    // The bundled heights are rounded to the micrometre.
    EXPECT_LT(glm::length(FromProto(foot.contact_normal()) - normal), 1e-5);
    EXPECT_NEAR(foot.contact_point().y(),
                foot.contact_point().z() * std::tan(kSlopeAngle), 2e-6);
    // The ankle is the ankle height above the slope, along its normal...
    EXPECT_NEAR(glm::dot(Ankle(grounded, l), normal), kAnkleHeight, 1e-3);
    // ... and the foot is pitched up the slope, its sole on it.
    if (foot.tilt_clamped()) {
      EXPECT_GT(foot.tilt(), 0.0);
    } else {
      EXPECT_NEAR(foot.tilt(), kSlopeAngle, 0.01);
      EXPECT_GT(glm::dot(SoleUp(grounded, l), normal), std::cos(0.01));
    }
  }
}

TEST_F(GroundFeetTest, GroundOutOfReachClampsTheDrop) {
  constexpr double kDepth = 0.4;
  v1::GroundFeetRequest request = Request();
  *request.mutable_ground()->add_planes() = LevelPlane(sole_y_ - kDepth);
  const v1::GroundFeetResponse response = Ground(request);
  ASSERT_EQ(response.feet_size(), 2);
  EXPECT_NEAR(response.pelvis_drop(), kMaxPelvisDrop, 1e-12);
  EXPECT_NEAR(response.pelvis_drop_target(), kMaxPelvisDrop, 1e-12);
  EXPECT_TRUE(response.pelvis_drop_clamped());
  const std::vector<Transform> grounded = World(request, &response);
  for (int l = 0; l < 2; ++l) {
    const v1::FootResult& foot = response.feet(l);
    EXPECT_TRUE(foot.ground_found()) << foot.leg();
    EXPECT_TRUE(foot.grounded()) << foot.leg();
    EXPECT_FALSE(foot.reached()) << foot.leg();
    EXPECT_NEAR(foot.goal().y(), sole_y_ - kDepth + kAnkleHeight, 1e-9);
    // As close as the legs get: 10 cm short.
    EXPECT_NEAR(Ankle(grounded, l).y - foot.goal().y(), kDepth - kMaxPelvisDrop,
                1e-3)
        << foot.leg();
  }
}

TEST_F(GroundFeetTest, WeightsBlendTheFeetTowardsTheGround) {
  constexpr double kClearance = 0.05;
  v1::GroundFeetRequest request = Request();
  *request.mutable_ground()->add_planes() = LevelPlane(sole_y_ - kClearance);
  const double ankle_y = sole_y_ + kAnkleHeight;

  // 0: the left foot stays in the air as animated; 1: the right is planted.
  request.add_weights(0.0);
  request.add_weights(1.0);
  v1::GroundFeetResponse response = Ground(request);
  ASSERT_EQ(response.feet_size(), 2);
  EXPECT_TRUE(response.feet(0).ground_found());
  EXPECT_FALSE(response.feet(0).grounded());
  EXPECT_TRUE(response.feet(0).reached());
  EXPECT_NEAR(response.feet(0).goal().y(), ankle_y, 1e-12);
  EXPECT_LT(glm::length(FromProto(response.feet(0).foot_offset())), 1e-15);
  EXPECT_TRUE(response.feet(1).grounded());
  EXPECT_TRUE(response.feet(1).reached());
  EXPECT_NEAR(response.feet(1).goal().y(), ankle_y - kClearance, 1e-9);
  EXPECT_NEAR(response.pelvis_drop(), kClearance, 1e-6);

  // 0.5: halfway along the normal.
  request.set_weights(0, 0.5);
  request.set_weights(1, 0.5);
  response = Ground(request);
  ASSERT_EQ(response.feet_size(), 2);
  for (const v1::FootResult& foot : response.feet()) {
    EXPECT_TRUE(foot.grounded()) << foot.leg();
    EXPECT_TRUE(foot.reached()) << foot.leg();
    EXPECT_NEAR(foot.goal().y(), ankle_y - kClearance / 2, 1e-9) << foot.leg();
  }
  EXPECT_NEAR(response.pelvis_drop(), kClearance / 2, 1e-6);

  // No weights: 1 for every leg.
  request.set_weights(0, 1.0);
  request.set_weights(1, 1.0);
  const v1::GroundFeetResponse planted = Ground(request);
  request.clear_weights();
  EXPECT_EQ(DeterministicBytes(Ground(request)), DeterministicBytes(planted));
  for (const v1::FootResult& foot : planted.feet()) {
    EXPECT_NEAR(foot.goal().y(), ankle_y - kClearance, 1e-9) << foot.leg();
  }
}

TEST_F(GroundFeetTest, WeightZeroStillLiftsASunkFootOut) {
  constexpr double kSink = 0.05;
  v1::GroundFeetRequest request = Request();
  *request.mutable_ground()->add_planes() = LevelPlane(sole_y_ + kSink);
  request.add_weights(0.0);
  request.add_weights(0.0);
  const v1::GroundFeetResponse response = Ground(request);
  ASSERT_EQ(response.feet_size(), 2);
  EXPECT_NEAR(response.pelvis_drop(), 0.0, 1e-9);
  for (const v1::FootResult& foot : response.feet()) {
    EXPECT_TRUE(foot.grounded()) << foot.leg();
    EXPECT_TRUE(foot.reached()) << foot.leg();
    EXPECT_NEAR(foot.goal().y(), sole_y_ + kSink + kAnkleHeight, 1e-9)
        << foot.leg();
  }
}

TEST_F(GroundFeetTest, SmoothingMovesAtMostTheGivenSpeeds) {
  constexpr double kDepth = 0.2;
  constexpr double kStep = 0.05;  // seconds
  v1::GroundFeetRequest request = Request();
  *request.mutable_ground()->add_planes() = LevelPlane(sole_y_ - kDepth);
  v1::GroundSmoothing* smoothing = request.mutable_smoothing();
  smoothing->set_previous_pelvis_drop(0.0);
  *smoothing->add_previous_foot_offsets() = Vec(0, 0, 0);
  *smoothing->add_previous_foot_offsets() = Vec(0, 0, 0);
  smoothing->set_delta_time(kStep);
  smoothing->set_max_pelvis_speed(1.0);
  // Feet fast enough to reach their goals in one step.
  smoothing->set_max_foot_speed(100.0);

  v1::GroundFeetResponse response = Ground(request);
  ASSERT_EQ(response.feet_size(), 2);
  EXPECT_NEAR(response.pelvis_drop_target(), kDepth, 1e-6);
  EXPECT_NEAR(response.pelvis_drop(), 1.0 * kStep, 1e-12);
  for (const v1::FootResult& foot : response.feet()) {
    EXPECT_NEAR(foot.foot_offset().y(), -kDepth, 1e-9) << foot.leg();
    // The pelvis is still too high for the goal.
    EXPECT_FALSE(foot.reached()) << foot.leg();
  }

  // Sending the answer back moves on from it...
  for (int step = 2; step <= 4; ++step) {
    smoothing->set_previous_pelvis_drop(response.pelvis_drop());
    for (int l = 0; l < 2; ++l) {
      *smoothing->mutable_previous_foot_offsets(l) =
          response.feet(l).foot_offset();
    }
    response = Ground(request);
    ASSERT_EQ(response.feet_size(), 2);
    EXPECT_NEAR(response.pelvis_drop(), std::min(step * kStep, kDepth), 1e-6)
        << "step " << step;
  }
  // ... and settles on the target without overshooting it.
  EXPECT_NEAR(response.pelvis_drop(), kDepth, 1e-6);
  EXPECT_TRUE(response.feet(0).reached());
  EXPECT_TRUE(response.feet(1).reached());

  // Down again from further below: at most the same speed.
  smoothing->set_previous_pelvis_drop(0.3);
  response = Ground(request);
  EXPECT_NEAR(response.pelvis_drop(), 0.3 - kStep, 1e-12);

  // A slow foot: its offset grows by at most max_foot_speed * delta_time,
  // and the target drop follows the smoothed goals.
  smoothing->set_previous_pelvis_drop(0.0);
  smoothing->set_max_foot_speed(1.0);
  for (int l = 0; l < 2; ++l) {
    *smoothing->mutable_previous_foot_offsets(l) = Vec(0, 0, 0);
  }
  response = Ground(request);
  ASSERT_EQ(response.feet_size(), 2);
  for (const v1::FootResult& foot : response.feet()) {
    EXPECT_NEAR(glm::length(FromProto(foot.foot_offset())), 1.0 * kStep, 1e-12)
        << foot.leg();
    EXPECT_NEAR(foot.foot_offset().y(), -1.0 * kStep, 1e-12) << foot.leg();
  }
  EXPECT_LE(response.pelvis_drop(), 1.0 * kStep + 1e-12);
}

TEST_F(GroundFeetTest, StairsByNamePutTheSolesOnTheTreads) {
  const std::string stairs = TerrainRevision("stairs");
  struct Stance {
    const char* name;
    v1::Transform root;
    double left_tread;
    double right_tread;
  };
  Stance facing_up;
  facing_up.name = "facing up the stairs, both feet on the second step";
  *facing_up.root.mutable_translation() = Vec(0, 0, 0.45);
  facing_up.left_tread = 0.30;
  facing_up.right_tread = 0.30;
  Stance sideways;
  // Facing +X: the left foot (model +X) goes to z = 0.21, the right to
  // z = 0.39.
  sideways.name = "sideways, the feet on the first and second steps";
  *sideways.root.mutable_translation() = Vec(0, 0, 0.3);
  *sideways.root.mutable_rotation() = AboutY(kPi / 2);
  sideways.left_tread = 0.15;
  sideways.right_tread = 0.30;

  for (const Stance& stance : {facing_up, sideways}) {
    SCOPED_TRACE(stance.name);
    v1::GroundFeetRequest request = Request();
    *request.mutable_pose()->mutable_root() = stance.root;
    request.mutable_ground()->add_terrains("stairs");
    const v1::GroundFeetResponse response = Ground(request);
    ASSERT_EQ(response.feet_size(), 2);
    ASSERT_EQ(response.terrain_revisions_size(), 1);
    EXPECT_EQ(response.terrain_revisions(0), stairs);
    EXPECT_NEAR(response.pelvis_drop(), 0.0, 1e-9);
    const std::vector<Transform> grounded = World(request, &response);
    const double treads[] = {stance.left_tread, stance.right_tread};
    for (int l = 0; l < 2; ++l) {
      const v1::FootResult& foot = response.feet(l);
      SCOPED_TRACE(foot.leg());
      EXPECT_TRUE(foot.ground_found());
      EXPECT_TRUE(foot.grounded());
      EXPECT_TRUE(foot.reached());
      EXPECT_NEAR(foot.contact_point().y(), treads[l], 1e-6);
      EXPECT_NEAR(foot.contact_normal().y(), 1.0, 1e-12);
      EXPECT_NEAR(foot.goal().y(), treads[l] + kAnkleHeight, 1e-6);
      EXPECT_NEAR(Ankle(grounded, l).y - kAnkleHeight, treads[l], 1e-3);
      // Level treads: the toe ray does not turn the foot, and unless the
      // ankle's limit holds it (a knee raised this high bends the shin far
      // back) the sole lies flat on the tread.
      EXPECT_LT(foot.tilt(), 1e-6);
      if (!foot.tilt_clamped()) {
        EXPECT_GT(SoleUp(grounded, l).y, std::cos(1e-3));
      }
    }
  }
}

TEST_F(GroundFeetTest, SeededStancesOnTheStairsKeepTheLegsRigid) {
  // Ground() checks bone lengths, reached goals and finite tilts.
  std::mt19937 random(5);
  std::uniform_real_distribution<double> x(-0.6, 0.6);
  std::uniform_real_distribution<double> z(-0.6, 2.4);
  std::uniform_real_distribution<double> height(-0.1, 0.6);
  std::uniform_real_distribution<double> yaw(-kPi, kPi);
  for (int i = 0; i < 24; ++i) {
    v1::GroundFeetRequest request = Request();
    v1::Transform& root = *request.mutable_pose()->mutable_root();
    const double root_x = x(random), root_y = height(random);  // in order
    *root.mutable_translation() = Vec(root_x, root_y, z(random));
    *root.mutable_rotation() = AboutY(yaw(random));
    request.mutable_ground()->add_terrains("stairs");
    request.mutable_ground()->add_terrains("slope");
    SCOPED_TRACE(request.pose().root().ShortDebugString());
    const v1::GroundFeetResponse response = Ground(request);
    ASSERT_EQ(response.feet_size(), 2);
    ASSERT_EQ(response.terrain_revisions_size(), 2);
    for (const v1::FootResult& foot : response.feet()) {
      EXPECT_LE(foot.tilt(), 0.6 + 1e-12) << foot.leg();
    }
  }
}

TEST_F(GroundFeetTest, InlineHeightfieldAgreesWithTheSameTerrainByName) {
  const v1::Heightfield patch = BumpyPatch(sole_y_);
  v1::RegisterTerrainRequest registration;
  registration.mutable_terrain()->set_name("bumps");
  *registration.mutable_terrain()->mutable_heightfield() = patch;
  v1::RegisterTerrainResponse registered;
  ASSERT_TRUE(
      stub_->RegisterTerrain(Context().get(), registration, &registered).ok());

  // The same samples as a mesh, split along the same diagonals.
  v1::TriangleMesh& mesh = *registration.mutable_terrain()->mutable_mesh();
  for (int row = 0; row < patch.rows(); ++row) {
    for (int column = 0; column < patch.columns(); ++column) {
      mesh.add_vertices(patch.origin().x() + column * patch.spacing_x());
      mesh.add_vertices(patch.origin().y() +
                        patch.heights(row * patch.columns() + column));
      mesh.add_vertices(patch.origin().z() + row * patch.spacing_z());
    }
  }
  const auto sample = [&](int column, int row) {
    return static_cast<uint32_t>(row * patch.columns() + column);
  };
  for (int row = 0; row + 1 < patch.rows(); ++row) {
    for (int column = 0; column + 1 < patch.columns(); ++column) {
      for (uint32_t index :
           {sample(column, row), sample(column + 1, row),
            sample(column + 1, row + 1), sample(column, row),
            sample(column + 1, row + 1), sample(column, row + 1)}) {
        mesh.add_indices(index);
      }
    }
  }
  registration.mutable_terrain()->set_name("bumps_mesh");
  ASSERT_TRUE(
      stub_->RegisterTerrain(Context().get(), registration, &registered).ok());

  v1::GroundFeetRequest inline_request = Request();
  *inline_request.mutable_pose()->mutable_root()->mutable_rotation() =
      AboutY(0.2);
  *inline_request.mutable_ground()->add_heightfields() = patch;
  v1::GroundFeetRequest named_request = inline_request;
  named_request.mutable_ground()->clear_heightfields();
  named_request.mutable_ground()->add_terrains("bumps");
  v1::GroundFeetRequest mesh_request = named_request;
  mesh_request.mutable_ground()->set_terrains(0, "bumps_mesh");

  const v1::GroundFeetResponse inline_answer = Ground(inline_request);
  v1::GroundFeetResponse named_answer = Ground(named_request);
  v1::GroundFeetResponse mesh_answer = Ground(mesh_request);
  ASSERT_EQ(inline_answer.feet_size(), 2);
  for (const v1::FootResult& foot : inline_answer.feet()) {
    EXPECT_TRUE(foot.grounded()) << foot.leg();
    EXPECT_TRUE(foot.reached()) << foot.leg();
    EXPECT_GT(foot.tilt(), 0.0) << foot.leg();
  }
  EXPECT_EQ(inline_answer.terrain_revisions_size(), 0);
  ASSERT_EQ(named_answer.terrain_revisions_size(), 1);
  EXPECT_EQ(named_answer.terrain_revisions(0), TerrainRevision("bumps"));
  named_answer.clear_terrain_revisions();
  mesh_answer.clear_terrain_revisions();
  EXPECT_EQ(DeterministicBytes(named_answer),
            DeterministicBytes(inline_answer));
  EXPECT_EQ(DeterministicBytes(mesh_answer), DeterministicBytes(inline_answer));
}

TEST_F(GroundFeetTest, IdenticalRequestsGiveIdenticalBytes) {
  v1::GroundFeetRequest request = Request();
  *request.mutable_pose()->mutable_root()->mutable_translation() =
      Vec(0.1, 0.4, 0.3);
  *request.mutable_pose()->mutable_root()->mutable_rotation() = AboutY(1.0);
  v1::JointPose* knee = request.mutable_pose()->add_joints();
  knee->set_name("left_knee");
  *knee->mutable_local()->mutable_rotation() =
      ::ik::testing::Rotation(0.2588190451, 0, 0, 0.9659258263);
  request.mutable_ground()->add_terrains("stairs");
  *request.mutable_ground()->add_heightfields() = BumpyPatch(0.2);
  *request.mutable_ground()->add_planes() = LevelPlane(-0.1);
  request.add_weights(0.7);
  request.add_weights(1.0);
  const v1::GroundFeetResponse first = Ground(request);
  const v1::GroundFeetResponse second = Ground(request);
  EXPECT_EQ(DeterministicBytes(first), DeterministicBytes(second));
  request.set_weights(0, 0.6);
  EXPECT_NE(DeterministicBytes(Ground(request)), DeterministicBytes(first));
}

TEST_F(GroundFeetTest, ARigWithoutLegsIsAPreconditionFailure) {
  RegisterArm();
  v1::GroundFeetRequest request;
  request.set_rig("arm");
  *request.mutable_ground()->add_planes() = LevelPlane(0.0);
  v1::GroundFeetResponse response;
  grpc::Status status = GroundFeet(request, &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_THAT(status.error_message(), StartsWith("rig: 'arm' has no legs"));
}

TEST_F(GroundFeetTest, DeletedTerrainIsNotFound) {
  v1::DeleteTerrainRequest request;
  request.set_name("stairs");
  v1::DeleteTerrainResponse deleted;
  ASSERT_TRUE(stub_->DeleteTerrain(Context().get(), request, &deleted).ok());
  v1::GroundFeetRequest ground = Request();
  ground.mutable_ground()->add_terrains("stairs");
  v1::GroundFeetResponse response;
  grpc::Status status = GroundFeet(ground, &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_THAT(status.error_message(),
              StartsWith("ground.terrains[0]: terrain 'stairs'"));
}

}  // namespace
}  // namespace ik::server
