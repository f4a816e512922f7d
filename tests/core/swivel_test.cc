// The zero-plane map and its helpers (ik/solvers/swivel.h), and the chain's
// swivel settings as Rig::Create and MakeChain build and check them. Solves
// with a swivel: solve_chain_swivel_test.cc and swivel_property_test.cc.
#include "ik/solvers/swivel.h"

#include <cmath>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "humanoid_rig.h"
#include "ik/rig/rig.h"
#include "tail_rig.h"

namespace ik {
namespace {

constexpr double kEps = 1e-12;

// u0 = +X, b0 = -Z, so n0 = u0 x b0 = +Y: the preferred plane is
// horizontal and the poles point up and down.
ZeroPlaneMap HorizontalMap() {
  ZeroPlaneMap map;
  map.axis = Vec3(1.0, 0.0, 0.0);
  map.normal = Vec3(0.0, 1.0, 0.0);
  return map;
}

Vec3 Direction(double elevation, double azimuth) {
  // Azimuth about +Y from +X towards -Z; elevation towards +Y.
  return Vec3(std::cos(elevation) * std::cos(azimuth), std::sin(elevation),
              -std::cos(elevation) * std::sin(azimuth));
}

void ExpectNear(const Vec3& actual, const Vec3& expected, double tolerance) {
  EXPECT_LE(glm::length(actual - expected), tolerance)
      << "(" << actual.x << ", " << actual.y << ", " << actual.z << ") vs ("
      << expected.x << ", " << expected.y << ", " << expected.z << ")";
}

TEST(ZeroPlaneNormalTest, IsThePreferredNormalOnTheEquator) {
  const ZeroPlaneMap map = HorizontalMap();
  for (double azimuth = -3.0; azimuth <= 3.0; azimuth += 0.25) {
    ExpectNear(ZeroPlaneNormal(map, Direction(0.0, azimuth)), map.normal, kEps);
  }
}

TEST(ZeroPlaneNormalTest, CarriesTheNormalAlongTheMeridian) {
  // Along a meridian the normal is its northward tangent:
  // cos(lat) n0 - sin(lat) e, e the equator point below.
  const ZeroPlaneMap map = HorizontalMap();
  for (double azimuth = -3.0; azimuth <= 3.0; azimuth += 0.5) {
    const Vec3 equator = Direction(0.0, azimuth);
    for (double elevation = -1.5; elevation <= 1.5; elevation += 0.1) {
      const Vec3 ee_axis = Direction(elevation, azimuth);
      const Vec3 normal = ZeroPlaneNormal(map, ee_axis);
      ExpectNear(
          normal,
          std::cos(elevation) * map.normal - std::sin(elevation) * equator,
          1e-12);
      EXPECT_NEAR(glm::dot(normal, ee_axis), 0.0, kEps);
    }
  }
}

TEST(ZeroPlaneNormalTest, TakesTheLimitAlongTheMeridianOfTheAxisAtThePoles) {
  const ZeroPlaneMap map = HorizontalMap();
  ExpectNear(ZeroPlaneNormal(map, map.normal), -map.axis, 0.0);
  ExpectNear(ZeroPlaneNormal(map, -map.normal), map.axis, 0.0);
  // The limit along the meridian through u0 from just below the pole.
  ExpectNear(ZeroPlaneNormal(map, Direction(kPi / 2 - 1e-6, 0.0)), -map.axis,
             2e-6);
}

TEST(AngleToSingularityTest, MeasuresFromTheNearerPole) {
  const ZeroPlaneMap map = HorizontalMap();
  EXPECT_NEAR(AngleToSingularity(map, Direction(0.0, 1.0)), kPi / 2, kEps);
  EXPECT_NEAR(AngleToSingularity(map, Direction(1.2, 2.0)), kPi / 2 - 1.2,
              kEps);
  EXPECT_NEAR(AngleToSingularity(map, Direction(-1.2, 2.0)), kPi / 2 - 1.2,
              kEps);
  EXPECT_EQ(AngleToSingularity(map, map.normal), 0.0);
  EXPECT_NEAR(AngleToSingularity(map, Direction(kPi / 2 - 1e-9, 0.3)), 1e-9,
              1e-15);
}

TEST(SwivelBendDirectionTest, ZeroIsThePreferredBendAndTurnsRightHanded) {
  const ZeroPlaneMap map = HorizontalMap();
  ExpectNear(SwivelBendDirection(map, map.axis, 0.0), Vec3(0.0, 0.0, -1.0),
             kEps);
  for (const Vec3& ee_axis :
       {Direction(0.3, 0.2), Direction(-1.0, 2.5), Direction(1.4, -2.0)}) {
    const Vec3 zero = SwivelBendDirection(map, ee_axis, 0.0);
    for (double swivel = -7.0; swivel <= 7.0; swivel += 0.7) {
      const Vec3 bend = SwivelBendDirection(map, ee_axis, swivel);
      EXPECT_NEAR(glm::length(bend), 1.0, kEps);
      EXPECT_NEAR(glm::dot(bend, ee_axis), 0.0, kEps);
      ExpectNear(bend, AngleAxis(swivel, ee_axis) * zero, 1e-12);
    }
  }
}

TEST(FitBendDirectionTest, PointsAtTheMiddleJoint) {
  const std::vector<Vec3> positions = {Vec3(0.0), Vec3(0.2, 0.0, -0.1),
                                       Vec3(0.5, 0.0, 0.0)};
  const std::optional<Vec3> bend =
      FitBendDirection(positions, Vec3(1.0, 0.0, 0.0));
  ASSERT_TRUE(bend.has_value());
  ExpectNear(*bend, Vec3(0.0, 0.0, -1.0), kEps);
}

TEST(FitBendDirectionTest, FitsThePlaneClosestToSeveralJoints) {
  // Offsets (0, 0.1, 0.01) and (0, 0.2, -0.005), whose y z products
  // cancel: the closest plane through the X axis is the XY plane, on the +Y
  // side.
  const std::vector<Vec3> positions = {Vec3(0.0), Vec3(0.1, 0.1, 0.01),
                                       Vec3(0.3, 0.2, -0.005),
                                       Vec3(0.6, 0.0, 0.0)};
  const std::optional<Vec3> bend =
      FitBendDirection(positions, Vec3(1.0, 0.0, 0.0));
  ASSERT_TRUE(bend.has_value());
  ExpectNear(*bend, Vec3(0.0, 1.0, 0.0), kEps);
}

TEST(FitBendDirectionTest, TheFarthestJointPicksTheSideOfAZigZag) {
  const std::vector<Vec3> positions = {
      Vec3(0.0),           Vec3(0.1, 0.1, 0.0),  Vec3(0.2, -0.1, 0.0),
      Vec3(0.3, 0.2, 0.0), Vec3(0.4, -0.2, 0.0), Vec3(0.5, 0.0, 0.0)};
  const std::optional<Vec3> bend =
      FitBendDirection(positions, Vec3(1.0, 0.0, 0.0));
  ASSERT_TRUE(bend.has_value());
  ExpectNear(*bend, Vec3(0.0, 1.0, 0.0), kEps);
}

TEST(FitBendDirectionTest, StraightOrTooShortChainsHaveNone) {
  const Vec3 axis(1.0, 0.0, 0.0);
  EXPECT_FALSE(
      FitBendDirection(std::vector<Vec3>{Vec3(0.0), Vec3(0.2, 0.0, 0.0),
                                         Vec3(0.4, 0.0, 0.0)},
                       axis)
          .has_value());
  EXPECT_FALSE(
      FitBendDirection(std::vector<Vec3>{Vec3(0.0), Vec3(0.2, 1e-8, 0.0),
                                         Vec3(0.4, 0.0, 0.0)},
                       axis)
          .has_value());
  EXPECT_FALSE(
      FitBendDirection(std::vector<Vec3>{Vec3(0.0), Vec3(0.4, 0.0, 0.0)}, axis)
          .has_value());
  // Offsets spread alike in every direction across the axis: no plane.
  EXPECT_FALSE(FitBendDirection(
                   std::vector<Vec3>{Vec3(0.0), Vec3(0.1, 0.1, 0.0),
                                     Vec3(0.2, 0.0, 0.1), Vec3(0.3, -0.1, 0.0),
                                     Vec3(0.4, 0.0, -0.1), Vec3(0.5, 0.0, 0.0)},
                   axis)
                   .has_value());
}

TEST(MakeZeroPlaneMapTest, NormalIsTheAxisCrossTheBend) {
  const std::vector<Vec3> positions = {Vec3(1.0, 2.0, 3.0), Vec3(1.3, 2.0, 2.9),
                                       Vec3(1.5, 2.0, 3.0)};
  const std::optional<ZeroPlaneMap> map = MakeZeroPlaneMap(positions);
  ASSERT_TRUE(map.has_value());
  ExpectNear(map->axis, Vec3(1.0, 0.0, 0.0), kEps);
  ExpectNear(map->normal, Vec3(0.0, 1.0, 0.0), kEps);
  EXPECT_FALSE(
      MakeZeroPlaneMap(std::vector<Vec3>{Vec3(0.0), Vec3(0.2, 0.0, 0.0),
                                         Vec3(0.4, 0.0, 0.0)})
          .has_value());
  EXPECT_FALSE(MakeZeroPlaneMap(
                   std::vector<Vec3>{Vec3(0.0), Vec3(0.2, 0.1, 0.0), Vec3(0.0)})
                   .has_value());
}

TEST(MeasureSwivelTest, ReadsBackTheSwivelThatPlacedTheChain) {
  const ZeroPlaneMap map = HorizontalMap();
  const Vec3 start(0.5, -0.2, 0.1);
  for (const Vec3& ee_axis : {Direction(0.4, 1.0), Direction(-0.9, -2.0)}) {
    for (double swivel = -3.0; swivel <= 3.0; swivel += 0.5) {
      const Vec3 bend = SwivelBendDirection(map, ee_axis, swivel);
      const std::vector<Vec3> positions = {
          start, start + 0.2 * ee_axis + 0.1 * bend, start + 0.45 * ee_axis};
      const std::optional<double> measured = MeasureSwivel(map, positions);
      ASSERT_TRUE(measured.has_value());
      EXPECT_NEAR(*measured, swivel, 1e-12);
    }
  }
}

TEST(FrameRotationTest, TakesOneFrameOntoTheOther) {
  const Vec3 from_axis = glm::normalize(Vec3(1.0, 2.0, -0.5));
  const Vec3 from_bend = AnyPerpendicular(from_axis);
  const Vec3 to_axis = glm::normalize(Vec3(-0.3, 0.1, -1.0));
  const Vec3 to_bend = glm::normalize(glm::cross(to_axis, Vec3(0.0, 1.0, 0.0)));
  const Quat rotation = FrameRotation(from_axis, from_bend, to_axis, to_bend);
  EXPECT_NEAR(Norm(rotation), 1.0, kEps);
  ExpectNear(rotation * from_axis, to_axis, 1e-12);
  ExpectNear(rotation * from_bend, to_bend, 1e-12);
  // Opposite axes are no special case.
  const Quat half = FrameRotation(from_axis, from_bend, -from_axis, from_bend);
  ExpectNear(half * from_axis, -from_axis, 1e-12);
  ExpectNear(half * from_bend, from_bend, 1e-12);
}

class ChainSwivelSettingsTest : public ::testing::Test {
 protected:
  // The humanoid with chain `index`'s definition changed by `edit`.
  template <typename Edit>
  absl::Status CreateWith(int index, Edit edit) {
    RigDefinition definition = testing::HumanoidRigDefinition();
    edit(definition.chains[index]);
    return Rig::Create(std::move(definition)).status();
  }

  static void ExpectStatus(const absl::Status& status, absl::StatusCode code,
                           const std::string& message) {
    EXPECT_EQ(status.code(), code) << status;
    EXPECT_EQ(status.message(), message);
  }
};

TEST_F(ChainSwivelSettingsTest, ChainsGetTheirPreferredRotationsAndMap) {
  absl::StatusOr<Rig> rig = testing::HumanoidRig();
  ASSERT_TRUE(rig.ok()) << rig.status();
  for (const Chain& chain : rig->chains()) {
    EXPECT_EQ(chain.swivel_space, SwivelSpace::kStartParent);
    EXPECT_EQ(chain.flip_warning_angle, kDefaultFlipWarningAngle);
    ASSERT_EQ(chain.preferred_rotations.size(), chain.joints.size());
    for (size_t k = 0; k < chain.joints.size(); ++k) {
      EXPECT_EQ(chain.preferred_rotations[k],
                rig->joint(chain.joints[k]).rest.rotation);
    }
    ASSERT_TRUE(chain.zero_plane_map.has_value()) << chain.name;
  }
}

// Where the example humanoid's chains flip with the default map: +-n0 in
// the start joint's parent space (the clavicle for the shoulder-to-wrist
// arms, the chest for the clavicle-to-wrist arms, the pelvis for the legs;
// all at identity rest rotations, so model axes too). The README quotes
// these lines.
TEST_F(ChainSwivelSettingsTest, HumanoidSingularDirections) {
  absl::StatusOr<Rig> rig = testing::HumanoidRig();
  ASSERT_TRUE(rig.ok()) << rig.status();
  struct Expected {
    const char* chain;
    Vec3 pole;  // +n0
  };
  const Expected expected[] = {
      {"left_arm", Vec3(0.0, 1.0, 0.0)},
      {"right_arm", Vec3(0.0, -1.0, 0.0)},
      {"left_arm_clavicle", Vec3(0.0, 1.0, 0.0)},
      {"right_arm_clavicle", Vec3(0.0, -1.0, 0.0)},
      {"left_leg", Vec3(-1.0, 0.0, 0.0)},
      {"right_leg", Vec3(-1.0, 0.0, 0.0)},
  };
  for (const Expected& entry : expected) {
    const Chain* chain = rig->FindChain(entry.chain);
    ASSERT_NE(chain, nullptr);
    const ZeroPlaneMap& map = *chain->zero_plane_map;
    ExpectNear(map.normal, entry.pole, 1e-12);
    std::printf(
        "%-18s parent '%s': EE axis u0 (%+.4f, %+.4f, %+.4f), singular "
        "directions +-(%+.4f, %+.4f, %+.4f)\n",
        entry.chain, rig->joint(rig->parents()[chain->joints[0]]).name.c_str(),
        map.axis.x, map.axis.y, map.axis.z, map.normal.x, map.normal.y,
        map.normal.z);
  }
}

TEST_F(ChainSwivelSettingsTest, APreferredPoseMovesTheSingularDirections) {
  // The left arm hanging down with the forearm forward: the preferred plane
  // is sagittal, so the arm flips when it points straight out sideways
  // (+X) or across the chest (-X), not (as with the default preferred pose)
  // when it hangs down.
  RigDefinition definition = testing::HumanoidRigDefinition();
  definition.chains[0].preferred_pose = {
      {"left_shoulder", AngleAxis(-kPi / 2, Vec3(0.0, 0.0, 1.0))},
      {"left_elbow", AngleAxis(kPi / 2, Vec3(0.0, -1.0, 0.0))},
  };
  absl::StatusOr<Rig> rig = Rig::Create(std::move(definition));
  ASSERT_TRUE(rig.ok()) << rig.status();
  const Chain& chain = rig->chains()[0];
  ASSERT_TRUE(chain.zero_plane_map.has_value());
  ExpectNear(chain.zero_plane_map->normal, Vec3(1.0, 0.0, 0.0), 1e-12);
  ExpectNear(chain.zero_plane_map->axis, glm::normalize(Vec3(0.0, -0.29, 0.26)),
             1e-12);
  EXPECT_EQ(chain.preferred_rotations[0],
            AngleAxis(-kPi / 2, Vec3(0.0, 0.0, 1.0)));
  std::printf(
      "left_arm hanging, forearm forward: singular directions +-(%+.4f, "
      "%+.4f, %+.4f)\n",
      chain.zero_plane_map->normal.x, chain.zero_plane_map->normal.y,
      chain.zero_plane_map->normal.z);
}

TEST_F(ChainSwivelSettingsTest, WorldSpaceMapsUseModelAxes) {
  // A chest turned a quarter turn about Y in the rest pose: the start-parent
  // map is in chest axes, the world map in model axes.
  RigDefinition definition = testing::HumanoidRigDefinition();
  definition.chains[0].preferred_pose = {
      {"chest", AngleAxis(kPi / 2, Vec3(0.0, 1.0, 0.0))}};
  definition.chains[1].swivel_space = SwivelSpace::kWorld;
  definition.chains[1].preferred_pose = {
      {"chest", AngleAxis(kPi / 2, Vec3(0.0, 0.0, 1.0))}};
  absl::StatusOr<Rig> rig = Rig::Create(std::move(definition));
  ASSERT_TRUE(rig.ok()) << rig.status();
  absl::StatusOr<Rig> plain = testing::HumanoidRig();
  ASSERT_TRUE(plain.ok());
  // Start parent: the chest's turn does not show.
  ExpectNear(rig->chains()[0].zero_plane_map->axis,
             plain->chains()[0].zero_plane_map->axis, 1e-12);
  // World: the right arm (-X) turned to point down, its plane normal (-Y)
  // to +X.
  EXPECT_EQ(rig->chains()[1].swivel_space, SwivelSpace::kWorld);
  ExpectNear(rig->chains()[1].zero_plane_map->normal, Vec3(1.0, 0.0, 0.0),
             1e-12);
  EXPECT_LT(rig->chains()[1].zero_plane_map->axis.y, -0.99);
}

TEST_F(ChainSwivelSettingsTest, StraightChainsHaveNoMap) {
  absl::StatusOr<Rig> tail = testing::TailRig();
  ASSERT_TRUE(tail.ok()) << tail.status();
  EXPECT_FALSE(tail->chains()[0].zero_plane_map.has_value());
  EXPECT_EQ(tail->chains()[0].preferred_rotations.size(),
            tail->chains()[0].joints.size());
}

TEST_F(ChainSwivelSettingsTest, RejectsBadSettingsWithFieldPaths) {
  ExpectStatus(
      CreateWith(1, [](ChainDefinition& c) { c.flip_warning_angle = -0.1; }),
      absl::StatusCode::kInvalidArgument,
      "chains[1].flip_warning_angle: -0.1 is not within [0, pi/2]");
  ExpectStatus(
      CreateWith(1, [](ChainDefinition& c) { c.flip_warning_angle = 2.0; }),
      absl::StatusCode::kInvalidArgument,
      "chains[1].flip_warning_angle: 2 is not within [0, pi/2]");
  ExpectStatus(
      CreateWith(
          0, [](ChainDefinition& c) { c.flip_warning_angle = std::nan(""); }),
      absl::StatusCode::kInvalidArgument,
      "chains[0].flip_warning_angle: nan is not within [0, pi/2]");
  ExpectStatus(CreateWith(2,
                          [](ChainDefinition& c) {
                            c.swivel_space = static_cast<SwivelSpace>(7);
                          }),
               absl::StatusCode::kInvalidArgument,
               "chains[2].swivel_space: unknown swivel space 7");
  ExpectStatus(CreateWith(1,
                          [](ChainDefinition& c) {
                            c.preferred_pose = {{"x", IdentityQuat()}};
                          }),
               absl::StatusCode::kNotFound,
               "chains[1].preferred_pose[0].joint: unknown joint 'x'");
  ExpectStatus(CreateWith(0,
                          [](ChainDefinition& c) {
                            c.preferred_pose = {{"left_elbow", IdentityQuat()},
                                                {"left_knee", IdentityQuat()}};
                          }),
               absl::StatusCode::kInvalidArgument,
               "chains[0].preferred_pose[1].joint: 'left_knee' is neither a "
               "joint of the chain nor an ancestor of its root");
  ExpectStatus(CreateWith(0,
                          [](ChainDefinition& c) {
                            c.preferred_pose = {{"chest", IdentityQuat()},
                                                {"left_elbow", IdentityQuat()},
                                                {"chest", IdentityQuat()}};
                          }),
               absl::StatusCode::kInvalidArgument,
               "chains[0].preferred_pose[2].joint: 'chest' given twice (also "
               "preferred_pose[0])");
  ExpectStatus(
      CreateWith(
          0,
          [](ChainDefinition& c) {
            c.preferred_pose = {{"left_elbow", Quat(0.0, 0.0, 0.0, 0.0)}};
          }),
      absl::StatusCode::kInvalidArgument,
      "chains[0].preferred_pose[0].rotation: not a unit quaternion "
      "(norm 0)");
}

TEST_F(ChainSwivelSettingsTest, MakeChainChecksTheSameWithoutAPrefix) {
  absl::StatusOr<Rig> rig = testing::HumanoidRig();
  ASSERT_TRUE(rig.ok()) << rig.status();
  ChainDefinition definition;
  definition.name = "ad hoc";
  definition.root = "left_hip";
  definition.tip = "left_ankle";
  definition.preferred_pose = {{"left_toe", IdentityQuat()}};
  ExpectStatus(rig->MakeChain(definition).status(),
               absl::StatusCode::kInvalidArgument,
               "preferred_pose[0].joint: 'left_toe' is neither a joint of the "
               "chain nor an ancestor of its root");
  definition.preferred_pose.clear();
  definition.swivel_space = SwivelSpace::kWorld;
  definition.flip_warning_angle = 0.5;
  absl::StatusOr<Chain> chain = rig->MakeChain(definition);
  ASSERT_TRUE(chain.ok()) << chain.status();
  EXPECT_EQ(chain->swivel_space, SwivelSpace::kWorld);
  EXPECT_EQ(chain->flip_warning_angle, 0.5);
  ASSERT_TRUE(chain->zero_plane_map.has_value());
  ExpectNear(chain->zero_plane_map->normal, Vec3(-1.0, 0.0, 0.0), 1e-12);
}

}  // namespace
}  // namespace ik
