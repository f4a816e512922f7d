// GroundFeetJob on legs that share joints: each leg solves on the pose the
// legs before it left, checked by matrices on the answer.
#include <random>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "grounding_fixtures.h"
#include "gtest/gtest.h"
#include "ik/character/character.h"
#include "ik/ground/grounding.h"
#include "independent_checks.h"

namespace ik {
namespace {

// Two legs on one hip joint (pelvis -> hip -> two knees): the second leg's
// solve turns the hip the first one already turned, so it must start from
// the hip as the first left it. Checked by matrices on the answer: the
// second ankle is on its goal, on seeded floors and stances.
TEST(GroundingSharedHipTest, TheLaterLegSolvesFromTheHipAsTheEarlierLeftIt) {
  CharacterDefinition definition;
  definition.rig.name = "two_legs_one_hip";
  const auto add = [&](const char* name, int parent, const Vec3& at) {
    JointDefinition joint;
    joint.name = name;
    joint.parent = parent;
    joint.rest.translation = at;
    definition.rig.joints.push_back(joint);
  };
  add("pelvis", kNoParent, Vec3(0.0, 0.95, 0.0));
  add("hip", 0, Vec3(0.0, -0.05, 0.0));
  add("left_knee", 1, Vec3(0.1, -0.42, 0.02));
  add("left_ankle", 2, Vec3(0.0, -0.41, -0.02));
  add("right_knee", 1, Vec3(-0.1, -0.42, 0.02));
  add("right_ankle", 4, Vec3(0.0, -0.41, -0.02));
  for (const std::string side : {"left", "right"}) {
    LegDefinition leg;
    leg.name = side + "_leg";
    leg.hip = "hip";
    leg.knee = side + "_knee";
    leg.ankle = side + "_ankle";
    leg.settings.ankle_height = 0.07;
    definition.legs.push_back(leg);
  }
  const absl::StatusOr<Character> character =
      Character::Create(std::move(definition));
  ASSERT_TRUE(character.ok()) << character.status();
  const Rig& rig = character->rig;
  std::mt19937_64 engine(1806);
  std::uniform_real_distribution<double> tilt(-0.15, 0.15);
  std::uniform_real_distribution<double> bend(-0.3, 0.3);
  std::uniform_real_distribution<double> height(-0.1, 0.1);
  int checked = 0;
  for (int i = 0; i < 200; ++i) {
    std::vector<Transform> pose(rig.rest_pose().begin(), rig.rest_pose().end());
    pose[1].rotation = AngleAxis(bend(engine), Vec3(1, 0, 0));
    pose[2].rotation = AngleAxis(bend(engine), Vec3(1, 0, 0));
    pose[4].rotation = AngleAxis(bend(engine), Vec3(1, 0, 0));
    const GroundPlane plane =
        testing::Plane(Vec3(0.0, height(engine), 0.0),
                       glm::normalize(Vec3(tilt(engine), 1.0, tilt(engine))));
    const GroundPlane planes[] = {plane};
    Ground ground;
    ground.planes = planes;
    const testing::GroundingRun run = testing::RunGrounding(
        *character, pose, Transform(), ground, {1.0, 1.0});
    ASSERT_TRUE(run.status.ok()) << run.status;
    if (!run.feet[1].reached) continue;
    ++checked;
    const std::vector<Vec3> world =
        testing::WorldPositions(rig, run.locals, run.Lowered(Transform()));
    EXPECT_LE(glm::length(world[5] - run.feet[1].goal), 1e-6) << "stance " << i;
  }
  EXPECT_GE(checked, 150);
}

}  // namespace
}  // namespace ik
