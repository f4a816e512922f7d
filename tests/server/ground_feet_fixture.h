// The fixture of the GroundFeet service tests (ground_feet_test.cc,
// ground_feet_errors_test.cc): the example humanoid registered on a real
// server with the bundled terrains, request builders, and the checks every
// answer goes through (forward kinematics of the returned rotations, the
// test's own, from the rig's rest pose and the answer).
#ifndef IK_TESTS_SERVER_GROUND_FEET_FIXTURE_H_
#define IK_TESTS_SERVER_GROUND_FEET_FIXTURE_H_

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "convert/values.h"
#include "gmock/gmock.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "gtest/gtest.h"
#include "ik/base/math.h"
#include "ik/rig/forward_kinematics.h"
#include "ik/rig_json.h"
#include "service_fixture.h"

namespace ik::server {

// The humanoid's legs (examples/rigs/humanoid.json).
inline constexpr double kAnkleHeight = 0.07;
inline constexpr double kMaxPelvisDrop = 0.3;
// The bundled slope: rising 12 degrees along +Z, zero at z = 0.
inline const double kSlopeAngle = 12.0 * kPi / 180.0;

inline std::string DeterministicBytes(
    const google::protobuf::Message& message) {
  std::string bytes;
  {
    google::protobuf::io::StringOutputStream stream(&bytes);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    EXPECT_TRUE(message.SerializeToCodedStream(&coded));
  }
  return bytes;
}

// An infinite level plane at height `y`.
inline v1::Plane LevelPlane(double y) {
  v1::Plane plane;
  *plane.mutable_point() = ::ik::testing::Vec(0, y, 0);
  return plane;
}

// A level plane at height `y` over the rectangle only.
inline v1::Plane LevelRectangle(double y, double min_x, double max_x,
                                double min_z, double max_z) {
  v1::Plane plane = LevelPlane(y);
  v1::RectangleXZ* rectangle = plane.mutable_rectangle_xz();
  rectangle->set_min_x(min_x);
  rectangle->set_max_x(max_x);
  rectangle->set_min_z(min_z);
  rectangle->set_max_z(max_z);
  return plane;
}

// A bumpy 6 x 6 patch around the humanoid's feet (x in [-0.25, 0.25],
// z in [-0.2, 0.3]), 2 to 5 cm above `base_y`.
inline v1::Heightfield BumpyPatch(double base_y) {
  v1::Heightfield field;
  *field.mutable_origin() = ::ik::testing::Vec(-0.25, base_y, -0.2);
  field.set_spacing_x(0.1);
  field.set_spacing_z(0.1);
  field.set_columns(6);
  field.set_rows(6);
  for (int row = 0; row < 6; ++row) {
    for (int column = 0; column < 6; ++column) {
      field.add_heights(0.035 + 0.01 * std::sin(1.3 * column) +
                        0.005 * std::cos(0.7 * row + column));
    }
  }
  return field;
}

// A rotation of `angle` radians about +Y, in wire order.
inline v1::Quat AboutY(double angle) {
  return ::ik::testing::Rotation(0, std::sin(angle / 2), 0,
                                 std::cos(angle / 2));
}

// Whether two unit quaternions are the same rotation within `epsilon` per
// component (q and -q are the same rotation).
inline bool SameRotation(const Quat& a, const Quat& b, double epsilon) {
  const double sign = glm::dot(a, b) < 0.0 ? -1.0 : 1.0;
  return std::abs(a.w - sign * b.w) <= epsilon &&
         std::abs(a.x - sign * b.x) <= epsilon &&
         std::abs(a.y - sign * b.y) <= epsilon &&
         std::abs(a.z - sign * b.z) <= epsilon;
}

class GroundFeetTest : public IkServiceTest {
 protected:
  void SetUp() override {
    ServerOptions options;
    options.terrain_dir = std::string(IK_EXAMPLES_DIR) + "/terrains";
    StartServer(options);
    if (HasFatalFailure()) return;
    absl::StatusOr<v1::Rig> rig =
        ReadRigFile(std::string(IK_EXAMPLES_DIR) + "/rigs/humanoid.json");
    ASSERT_TRUE(rig.ok()) << rig.status();
    v1::RegisterRigResponse response;
    grpc::Status status = Register(*rig, false, &response);
    ASSERT_TRUE(status.ok()) << status.error_message();
    revision_ = response.revision();
    absl::StatusOr<std::shared_ptr<const RigEntry>> entry =
        server_->registry().Get({"humanoid", "name"});
    ASSERT_TRUE(entry.ok()) << entry.status();
    humanoid_ = *std::move(entry);
    ASSERT_EQ(humanoid_->character.legs.size(), 2u);
    // The rest pose at the origin: both soles at the same height, about
    // half a millimetre above y = 0.
    const std::vector<Transform> rest = World(Request(), nullptr);
    sole_y_ = Ankle(rest, 0).y - kAnkleHeight;
    ASSERT_NEAR(Ankle(rest, 1).y - kAnkleHeight, sole_y_, 1e-12);
    ASSERT_NEAR(sole_y_, 0.0005, 1e-3);
  }

  const Rig& humanoid() const { return humanoid_->rig(); }

  // The humanoid standing at the origin in its rest pose, on no ground.
  static v1::GroundFeetRequest Request() {
    v1::GroundFeetRequest request;
    request.set_rig("humanoid");
    return request;
  }

  grpc::Status GroundFeet(const v1::GroundFeetRequest& request,
                          v1::GroundFeetResponse* response) {
    return stub_->GroundFeet(Context().get(), request, response);
  }

  // Runs `request`, which must succeed, and checks what holds for every
  // answer: one result per leg, rigid legs, and reached feet whose ankles
  // (by forward kinematics of the answer) are within the tolerance of their
  // goals.
  v1::GroundFeetResponse Ground(const v1::GroundFeetRequest& request) {
    v1::GroundFeetResponse response;
    grpc::Status status = GroundFeet(request, &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
    if (!status.ok()) return response;
    EXPECT_EQ(response.revision(), revision_);
    EXPECT_EQ(response.rotations_size(), 6);
    EXPECT_EQ(response.feet_size(), 2);
    if (response.feet_size() != 2) return response;
    EXPECT_GE(response.pelvis_drop(), 0.0);
    EXPECT_LE(response.pelvis_drop(), kMaxPelvisDrop + 1e-12);
    EXPECT_EQ(response.root_offset().x(), 0.0);
    EXPECT_EQ(response.root_offset().y(), -response.pelvis_drop());
    EXPECT_EQ(response.root_offset().z(), 0.0);
    const std::vector<Transform> animated = World(request, nullptr);
    const std::vector<Transform> grounded = World(request, &response);
    const double tolerance =
        request.has_tolerance() ? request.tolerance() : 1e-3;
    for (int l = 0; l < 2; ++l) {
      const Leg& leg = humanoid_->character.legs[l];
      const v1::FootResult& foot = response.feet(l);
      EXPECT_EQ(foot.leg(), leg.name);
      // Bones keep their lengths.
      for (auto [parent, child] :
           {std::pair(leg.hip, leg.knee), std::pair(leg.knee, leg.ankle)}) {
        EXPECT_NEAR(glm::length(grounded[child].translation -
                                grounded[parent].translation),
                    glm::length(humanoid().rest_pose()[child].translation),
                    1e-9)
            << leg.name << " bone to " << humanoid().joint(child).name;
      }
      const Vec3 ankle = Ankle(grounded, l);
      const Vec3 goal = FromProto(foot.goal());
      EXPECT_NEAR(foot.moved(), glm::length(ankle - Ankle(animated, l)), 1e-9)
          << leg.name;
      EXPECT_LT(glm::length(goal - Ankle(animated, l) -
                            FromProto(foot.foot_offset())),
                1e-9)
          << leg.name;
      if (foot.reached()) {
        EXPECT_LE(glm::length(ankle - goal), tolerance) << leg.name;
      }
      EXPECT_GE(foot.tilt(), 0.0);
      EXPECT_TRUE(std::isfinite(foot.tilt()));
      if (foot.ground_found()) {
        EXPECT_NEAR(glm::length(FromProto(foot.contact_normal())), 1.0, 1e-12);
        EXPECT_GT(foot.contact_normal().y(), 0.0);
      } else {
        EXPECT_FALSE(foot.has_contact_point());
        EXPECT_FALSE(foot.grounded());
      }
    }
    return response;
  }

  // World transforms of every joint: of the request's animated pose when
  // `answer` is null, else of the grounded pose (the answer's rotations,
  // the root moved by its root_offset).
  std::vector<Transform> World(const v1::GroundFeetRequest& request,
                               const v1::GroundFeetResponse* answer) const {
    absl::StatusOr<DensePose> pose = PoseFromProto(request.pose(), humanoid());
    EXPECT_TRUE(pose.ok()) << pose.status();
    if (!pose.ok()) return {};
    if (answer != nullptr) {
      for (const v1::JointRotation& rotation : answer->rotations()) {
        EXPECT_EQ(humanoid().joint(rotation.index()).name, rotation.name());
        pose->locals[rotation.index()].rotation =
            FromProto(rotation.rotation());
      }
      pose->root.translation += FromProto(answer->root_offset());
    }
    std::vector<Transform> world(humanoid().joint_count());
    LocalToModelJob forward_kinematics;
    forward_kinematics.parents = humanoid().parents();
    forward_kinematics.locals = pose->locals;
    forward_kinematics.root = pose->root;
    forward_kinematics.models = absl::MakeSpan(world);
    EXPECT_TRUE(forward_kinematics.Run().ok());
    return world;
  }

  Vec3 Ankle(const std::vector<Transform>& world, int leg) const {
    return world[humanoid_->character.legs[leg].ankle].translation;
  }

  // The sole's up direction in the world: the ankle's rotation with its
  // rest rotation taken out (the rest pose holds the sole level).
  Vec3 SoleUp(const std::vector<Transform>& world, int leg) const {
    const Leg& l = humanoid_->character.legs[leg];
    return world[l.ankle].rotation * glm::inverse(l.ankle_rest_model) *
           Vec3(0.0, 1.0, 0.0);
  }

  // Whether the answer left leg `leg`'s rotations as the request's (rest)
  // pose had them.
  void ExpectLegUntouched(const v1::GroundFeetResponse& response,
                          int leg) const {
    for (int j = 3 * leg; j < 3 * leg + 3; ++j) {
      const v1::JointRotation& rotation = response.rotations(j);
      EXPECT_TRUE(
          SameRotation(FromProto(rotation.rotation()),
                       humanoid().rest_pose()[rotation.index()].rotation, 1e-6))
          << rotation.name();
    }
  }

  std::string TerrainRevision(const std::string& name) {
    v1::ListTerrainsResponse list;
    EXPECT_TRUE(
        stub_->ListTerrains(Context().get(), v1::ListTerrainsRequest(), &list)
            .ok());
    for (const v1::TerrainSummary& terrain : list.terrains()) {
      if (terrain.name() == name) return terrain.revision();
    }
    ADD_FAILURE() << "no terrain " << name;
    return "";
  }

  std::shared_ptr<const RigEntry> humanoid_;
  std::string revision_;
  // World height of the soles in the rest pose at the origin.
  double sole_y_ = 0.0;
};

}  // namespace ik::server

#endif  // IK_TESTS_SERVER_GROUND_FEET_FIXTURE_H_
