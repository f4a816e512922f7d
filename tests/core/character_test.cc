// Character::Create: the rig's forward axis, and the parts each module checks
// against the rig -- legs (ground/leg.cc), colliders
// (dynamics/attached_colliders.cc) and dynamic chains
// (dynamics/dynamic_chain_binding.cc). Every error path, with its status
// code and field path, and what a valid definition resolves to.
#include "ik/character/character.h"

#include <cstring>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "gtest/gtest.h"
#include "humanoid_rig.h"
#include "ik/rig/rig.h"
#include "random_poses.h"
#include "rig_fixtures.h"

namespace ik {
namespace {

using testing::ExpectError;
using testing::ExpectInvalid;
using testing::HumanoidDefinition;
using testing::kInf;
using testing::kNan;

constexpr absl::StatusCode kNotFound = absl::StatusCode::kNotFound;

// The humanoid (with its legs), edited by `edit`.
template <typename Edit>
CharacterDefinition Edited(Edit edit) {
  CharacterDefinition definition = HumanoidDefinition();
  edit(definition);
  return definition;
}

TEST(CharacterTest, ResolvesLegsForwardCollidersAndDynamicChains) {
  absl::StatusOr<Character> rig =
      Character::Create(Edited([](CharacterDefinition& d) {
        d.rig.forward = Vec3(0.0, 0.0, 2.0);
        d.legs[1].toe.clear();
        d.legs[1].settings.max_foot_tilt = 0.25;
      }));
  ASSERT_TRUE(rig.ok()) << rig.status();
  EXPECT_EQ(rig->rig.forward(), Vec3(0.0, 0.0, 1.0));
  ASSERT_EQ(rig->legs.size(), 2u);
  const Leg& left = rig->legs[0];
  EXPECT_EQ(left.name, "left_leg");
  EXPECT_EQ(left.hip, rig->rig.FindJoint("left_hip"));
  EXPECT_EQ(left.knee, rig->rig.FindJoint("left_knee"));
  EXPECT_EQ(left.ankle, rig->rig.FindJoint("left_ankle"));
  EXPECT_EQ(left.toe, rig->rig.FindJoint("left_toe"));
  EXPECT_EQ(left.settings.ankle_height, testing::kHumanoidAnkleHeight);
  EXPECT_EQ(left.settings.max_pelvis_drop, kDefaultMaxPelvisDrop);
  const Leg& right = rig->legs[1];
  EXPECT_EQ(right.toe, -1);
  EXPECT_EQ(right.settings.max_foot_tilt, 0.25);
  ASSERT_EQ(rig->colliders.size(), 4u);
  EXPECT_EQ(rig->colliders[0].joint, rig->rig.FindJoint("head"));
  EXPECT_EQ(rig->FindDynamicChain("tail"), nullptr);
}

// dynamics_joints: the dynamic chains' joints and their colliders' joints
// with every ancestor, nothing else, ascending (checked against sets built
// here by walking the parents); DynamicsWorld writes exactly those entries,
// with LocalToModelJob's bits, on seeded poses and roots.
TEST(CharacterTest, DynamicsWorldIsForwardKinematicsOfWhatDynamicsReads) {
  const absl::StatusOr<Character> character =
      Character::Create(HumanoidDefinition());
  ASSERT_TRUE(character.ok()) << character.status();
  const Rig& rig = character->rig;
  std::set<int> read;
  for (const DynamicChainBinding& chain : character->dynamic_chains) {
    read.insert(chain.joints.begin(), chain.joints.end());
    for (const int c : chain.colliders) {
      read.insert(character->colliders[c].joint);
    }
  }
  ASSERT_FALSE(read.empty());
  std::set<int> expected;
  for (const int joint : read) {
    for (int j = joint; j != kNoParent; j = rig.parents()[j]) {
      expected.insert(j);
    }
  }
  EXPECT_EQ(character->dynamics_joints,
            std::vector<int>(expected.begin(), expected.end()));
  EXPECT_LT(expected.size(), static_cast<size_t>(rig.joint_count()));

  std::mt19937_64 engine(1808);
  std::normal_distribution<double> normal;
  const auto rotation = [&] {
    return glm::normalize(
        Quat(normal(engine), normal(engine), normal(engine), normal(engine)));
  };
  std::vector<Transform> locals(rig.rest_pose().begin(), rig.rest_pose().end());
  for (int i = 0; i < 200; ++i) {
    for (Transform& local : locals) local.rotation = rotation();
    Transform root;
    root.rotation = rotation();
    root.translation = Vec3(normal(engine), normal(engine), normal(engine));
    const std::vector<Transform> models =
        testing::ModelTransforms(rig, locals, root);
    Transform stale;
    stale.translation = Vec3(7.0, 7.0, 7.0);
    std::vector<Transform> world(locals.size(), stale);
    character->DynamicsWorld(locals, root, absl::MakeSpan(world));
    for (int j = 0; j < rig.joint_count(); ++j) {
      const Transform& want = expected.count(j) != 0 ? models[j] : stale;
      EXPECT_EQ(std::memcmp(&world[j], &want, sizeof(Transform)), 0)
          << "joint " << j << ", pose " << i;
    }
  }

  CharacterDefinition still = HumanoidDefinition();
  still.dynamic_chains.clear();
  const absl::StatusOr<Character> without = Character::Create(still);
  ASSERT_TRUE(without.ok()) << without.status();
  EXPECT_TRUE(without->dynamics_joints.empty());
}

TEST(CharacterTest, AcceptsAToeBelowTheAnkleThroughOtherJoints) {
  absl::StatusOr<Character> rig =
      Character::Create(Edited([](CharacterDefinition& d) {
        JointDefinition tip;
        tip.name = "left_toe_tip";
        tip.parent = static_cast<int>(d.rig.joints.size()) - 1;  // ponytail_06
        for (size_t j = 0; j < d.rig.joints.size(); ++j) {
          if (d.rig.joints[j].name == "left_toe")
            tip.parent = static_cast<int>(j);
        }
        tip.rest.translation = Vec3(0.0, 0.0, 0.04);
        d.rig.joints.push_back(tip);
        d.legs[0].toe = "left_toe_tip";
      }));
  ASSERT_TRUE(rig.ok()) << rig.status();
  EXPECT_EQ(rig->legs[0].toe, rig->rig.FindJoint("left_toe_tip"));
}

TEST(CharacterTest, RejectsAForwardAxisThatIsZeroOrNotFinite) {
  for (const Vec3& forward :
       {Vec3(0.0), Vec3(kNan, 0.0, 1.0), Vec3(0.0, kInf, 0.0)}) {
    ExpectInvalid(
        Edited([&](CharacterDefinition& d) { d.rig.forward = forward; }),
        "forward: must be a finite, non-zero direction");
  }
}

TEST(CharacterTest, RejectsLegNamesThatAreEmptyTooLongOrRepeated) {
  ExpectInvalid(Edited([](CharacterDefinition& d) { d.legs[1].name.clear(); }),
                "legs[1].name: empty");
  ExpectInvalid(Edited([](CharacterDefinition& d) {
                  d.legs[0].name = std::string(129, 'l');
                }),
                "legs[0].name: '" + std::string(128, 'l') +
                    "...' is not a valid name (129 characters");
  ExpectInvalid(
      Edited([](CharacterDefinition& d) { d.legs[1].name = "left_leg"; }),
      "legs[1].name: duplicate name 'left_leg' (also legs[0])");
}

TEST(CharacterTest, RejectsLegJointsThatAreEmptyOrUnknown) {
  ExpectInvalid(Edited([](CharacterDefinition& d) { d.legs[0].hip.clear(); }),
                "legs[0].hip: empty");
  ExpectError(Edited([](CharacterDefinition& d) { d.legs[0].hip = "hip"; }),
              kNotFound, "legs[0].hip: unknown joint 'hip'");
  ExpectError(Edited([](CharacterDefinition& d) { d.legs[1].knee = "knee"; }),
              kNotFound, "legs[1].knee: unknown joint 'knee'");
  ExpectError(Edited([](CharacterDefinition& d) { d.legs[0].ankle = "ankle"; }),
              kNotFound, "legs[0].ankle: unknown joint 'ankle'");
  ExpectError(Edited([](CharacterDefinition& d) { d.legs[0].toe = "toe"; }),
              kNotFound, "legs[0].toe: unknown joint 'toe'");
  ExpectInvalid(Edited([](CharacterDefinition& d) { d.legs[0].knee.clear(); }),
                "legs[0].knee: empty");
  ExpectInvalid(Edited([](CharacterDefinition& d) { d.legs[0].ankle.clear(); }),
                "legs[0].ankle: empty");
}

TEST(CharacterTest, RejectsLegsThatAreNotHipKneeAnklePaths) {
  ExpectInvalid(
      Edited([](CharacterDefinition& d) { d.legs[0].knee = "left_ankle"; }),
      "legs[0].knee: joint 'left_ankle' is not a child of 'left_hip' (a leg "
      "is a hip -> knee -> ankle path)");
  ExpectInvalid(
      Edited([](CharacterDefinition& d) { d.legs[0].ankle = "left_toe"; }),
      "legs[0].ankle: joint 'left_toe' is not a child of 'left_knee'");
  ExpectInvalid(
      Edited([](CharacterDefinition& d) { d.legs[1].toe = "left_toe"; }),
      "legs[1].toe: joint 'left_toe' does not descend from ankle "
      "'right_ankle'");
  ExpectInvalid(
      Edited([](CharacterDefinition& d) { d.legs[1].toe = "right_ankle"; }),
      "legs[1].toe: joint 'right_ankle' does not descend from ankle "
      "'right_ankle'");
}

TEST(CharacterTest, RejectsLegsWithZeroLengthBones) {
  const auto at_rest_on_parent = [](const char* joint) {
    return Edited([joint](CharacterDefinition& d) {
      d.rig.chains.clear();  // the leg chains would fail first
      for (JointDefinition& definition : d.rig.joints) {
        if (definition.name == joint) definition.rest.translation = Vec3(0.0);
      }
    });
  };
  ExpectInvalid(at_rest_on_parent("left_knee"),
                "legs[0].knee: joint 'left_knee' sits on its parent "
                "(zero-length bone)");
  ExpectInvalid(at_rest_on_parent("right_ankle"),
                "legs[1].ankle: joint 'right_ankle' sits on its parent "
                "(zero-length bone)");
}

TEST(CharacterTest, RejectsLegSettingsOutOfRange) {
  struct Case {
    double LegSettings::*field;
    double value;
    const char* message;
  };
  const Case cases[] = {
      {&LegSettings::ankle_height, -0.01,
       "legs[0].ankle_height: -0.01 is not in [0, 100] m"},
      {&LegSettings::ankle_height, kNan,
       "legs[0].ankle_height: nan is not in [0, 100] m"},
      {&LegSettings::toe_forward, 0.0,
       "legs[0].toe_forward: 0 is not in (0, 100] m"},
      {&LegSettings::ray_above_hip, kInf,
       "legs[0].ray_above_hip: inf is not in [0, 100] m"},
      {&LegSettings::ray_below_ankle, 0.0,
       "legs[0].ray_below_ankle: 0 is not in (0, 100] m"},
      {&LegSettings::max_pelvis_drop, 101.0,
       "legs[0].max_pelvis_drop: 101 is not in [0, 100] m"},
      {&LegSettings::max_foot_tilt, 2.0,
       "legs[0].max_foot_tilt: 2 is not in [0, 1.5708] rad"},
      {&LegSettings::max_foot_tilt, -0.1,
       "legs[0].max_foot_tilt: -0.1 is not in [0, 1.5708] rad"},
  };
  for (const Case& c : cases) {
    ExpectInvalid(Edited([&](CharacterDefinition& d) {
                    d.legs[0].settings.*c.field = c.value;
                  }),
                  c.message);
  }
  // The ends of each range are allowed.
  EXPECT_TRUE(Character::Create(Edited([](CharacterDefinition& d) {
                LegSettings& s = d.legs[0].settings;
                s.ankle_height = 0.0;
                s.ray_above_hip = 0.0;
                s.max_pelvis_drop = kMaxLegDistance;
                s.max_foot_tilt = kPi / 2.0;
              })).ok());
}

TEST(CharacterTest, RejectsCollidersWithBadNamesJointsOrShapes) {
  ExpectInvalid(
      Edited([](CharacterDefinition& d) { d.colliders[2].name.clear(); }),
      "colliders[2].name: empty");
  ExpectInvalid(Edited([](CharacterDefinition& d) {
                  d.colliders[0].name = std::string(200, 'c');
                }),
                "colliders[0].name: '" + std::string(128, 'c') +
                    "...' is not a valid name (200 characters");
  ExpectInvalid(
      Edited([](CharacterDefinition& d) { d.colliders[3].name = "neck"; }),
      "colliders[3].name: duplicate name 'neck' (also colliders[1])");
  ExpectInvalid(
      Edited([](CharacterDefinition& d) { d.colliders[1].joint.clear(); }),
      "colliders[1].joint: empty");
  ExpectError(
      Edited([](CharacterDefinition& d) { d.colliders[1].joint = "tail"; }),
      kNotFound, "colliders[1].joint: unknown joint 'tail'");
  ExpectInvalid(Edited([](CharacterDefinition& d) {
                  d.colliders[0].shape.start.y = kNan;
                }),
                "colliders[0].sphere.center: not finite");
  ExpectInvalid(
      Edited([](CharacterDefinition& d) { d.colliders[1].shape.end.x = kInf; }),
      "colliders[1].capsule.end: not finite");
  ExpectInvalid(
      Edited(
          [](CharacterDefinition& d) { d.colliders[2].shape.radius = -1.0; }),
      "colliders[2].capsule.radius: must be within [0, 1e+06] m, got -1");
}

TEST(CharacterTest, RejectsDynamicChainsWithBadNamesOrRoots) {
  ExpectInvalid(
      Edited([](CharacterDefinition& d) { d.dynamic_chains[0].name.clear(); }),
      "dynamic_chains[0].name: empty");
  ExpectInvalid(Edited([](CharacterDefinition& d) {
                  d.dynamic_chains[0].name = std::string(129, 'd');
                }),
                "dynamic_chains[0].name: '" + std::string(128, 'd') +
                    "...' is not a valid name (129 characters");
  ExpectInvalid(Edited([](CharacterDefinition& d) {
                  d.dynamic_chains.push_back(d.dynamic_chains[0]);
                }),
                "dynamic_chains[1].name: duplicate name 'ponytail' (also "
                "dynamic_chains[0])");
  ExpectInvalid(
      Edited([](CharacterDefinition& d) { d.dynamic_chains[0].root.clear(); }),
      "dynamic_chains[0].root: empty");
  ExpectError(
      Edited([](CharacterDefinition& d) { d.dynamic_chains[0].root = "tail"; }),
      kNotFound, "dynamic_chains[0].root: unknown joint 'tail'");
  ExpectInvalid(Edited([](CharacterDefinition& d) {
                  d.dynamic_chains[0].root = "left_wrist";
                  d.dynamic_chains[0].joints.clear();
                }),
                "dynamic_chains[0].root: joint 'left_wrist' has no "
                "descendants to simulate");
  ExpectInvalid(Edited([](CharacterDefinition& d) {
                  for (JointDefinition& joint : d.rig.joints) {
                    if (joint.name == "ponytail_03") {
                      joint.rest.translation = Vec3(0.0);
                    }
                  }
                }),
                "dynamic_chains[0].root: joint 'ponytail_03' sits on its "
                "parent (zero-length bone)");
}

TEST(CharacterTest, RejectsDynamicChainsOfMoreThanTheMaximumJoints) {
  CharacterDefinition definition = HumanoidDefinition();
  int parent = static_cast<int>(definition.rig.joints.size()) - 1;
  for (int i = 0; i < kMaxDynamicJoints; ++i) {
    JointDefinition joint;
    joint.name = "strand_" + std::to_string(i);
    joint.parent = parent;
    joint.rest.translation = Vec3(0.0, 0.0, -0.01);
    parent = static_cast<int>(definition.rig.joints.size());
    definition.rig.joints.push_back(joint);
  }
  ExpectError(std::move(definition), absl::StatusCode::kResourceExhausted,
              "dynamic_chains[0].root: more than 256 joints below "
              "'ponytail_00'");
}

TEST(CharacterTest, RejectsDynamicChainParametersWithTheirPaths) {
  ExpectInvalid(
      Edited([](CharacterDefinition& d) { d.dynamic_chains[0].radius = -0.5; }),
      "dynamic_chains[0].radius: -0.5 is not in [0, 1000] m");
  ExpectInvalid(Edited([](CharacterDefinition& d) {
                  d.dynamic_chains[0].settings.drag = 2.0;
                }),
                "dynamic_chains[0].drag: must be within [0, 1], got 2");
  ExpectInvalid(Edited([](CharacterDefinition& d) {
                  d.dynamic_chains[0].settings.substep = 0.0;
                }),
                "dynamic_chains[0].substep: must be within");
  ExpectInvalid(Edited([](CharacterDefinition& d) {
                  d.dynamic_chains[0].settings.wind.turbulence = kNan;
                }),
                "dynamic_chains[0].wind.turbulence");
}

TEST(CharacterTest, RejectsDynamicJointSettingsWithTheirPaths) {
  ExpectInvalid(Edited([](CharacterDefinition& d) {
                  d.dynamic_chains[0].joints[0].joint.clear();
                }),
                "dynamic_chains[0].joints[0].joint: empty");
  ExpectError(Edited([](CharacterDefinition& d) {
                d.dynamic_chains[0].joints[0].joint = "tail";
              }),
              kNotFound, "dynamic_chains[0].joints[0].joint: unknown joint");
  ExpectInvalid(Edited([](CharacterDefinition& d) {
                  d.dynamic_chains[0].joints[0].joint = "head";
                }),
                "dynamic_chains[0].joints[0].joint: joint 'head' is not part "
                "of this dynamic chain");
  ExpectInvalid(
      Edited([](CharacterDefinition& d) {
        d.dynamic_chains[0].joints.push_back(d.dynamic_chains[0].joints[0]);
      }),
      "dynamic_chains[0].joints[1].joint: joint 'ponytail_06' is "
      "listed twice");
  ExpectInvalid(Edited([](CharacterDefinition& d) {
                  d.dynamic_chains[0].joints[0].radius = 1e4;
                }),
                "dynamic_chains[0].joints[0].radius: 10000 is not in [0, "
                "1000] m");
  ExpectInvalid(Edited([](CharacterDefinition& d) {
                  d.dynamic_chains[0].joints[0].overrides.drag = -1.0;
                }),
                "dynamic_chains[0].joints[0].drag: must be within "
                "[0, 1], got -1");
  ExpectInvalid(Edited([](CharacterDefinition& d) {
                  d.dynamic_chains[0].joints[0].overrides.wind_scale = kInf;
                }),
                "dynamic_chains[0].joints[0].wind_scale: must be "
                "within");
}

TEST(CharacterTest, RejectsDynamicChainCollidersUnknownOrRepeated) {
  ExpectError(Edited([](CharacterDefinition& d) {
                d.dynamic_chains[0].colliders[1] = "hat";
              }),
              kNotFound,
              "dynamic_chains[0].colliders[1]: unknown collider "
              "'hat'");
  ExpectInvalid(Edited([](CharacterDefinition& d) {
                  d.dynamic_chains[0].colliders[3] = "head";
                }),
                "dynamic_chains[0].colliders[3]: collider 'head' is listed "
                "twice");
}

}  // namespace
}  // namespace ik
