// GroundFeetJob from animated knees past straight (hyperextended: the
// humanoid's knee is straight at the bottom of its range, and animation
// often overshoots it). A knee can only bend forward, so a planted foot
// raised onto the ground must bend the leg forward in the plane the
// animation gives it, not turn the leg about its hip-ankle line to bend the
// knee elsewhere: checked by matrices on the answer, on seeded stances
// (hips turned within their limits, knees 0.01-0.28 rad past straight,
// feet raised 1-6 cm onto a level floor). The hip's turn about the
// animated hip-ankle line is what the raised ankle needs (the pole stays in
// the animated plane while the hip-ankle line tilts): a few degrees, at
// most 0.4 rad; no answer says branch_switch.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "grounding_fixtures.h"
#include "gtest/gtest.h"
#include "humanoid_rig.h"
#include "ik/ground/grounding.h"
#include "independent_checks.h"
#include "random_poses.h"

namespace ik {
namespace {

using ::ik::testing::RunGrounding;
using ::ik::testing::WorldPositions;
using ::ik::testing::WorldRotation;

TEST(GroundingHyperextendedTest, TheKneeBendsForwardInItsAnimatedPlane) {
  const Character character = *testing::HumanoidCharacter();
  const Rig& rig = character.rig;
  std::mt19937_64 engine(testing::kSeed);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  int legs = 0;
  int flagged = 0;
  std::vector<double> turns;
  for (int stance = 0; stance < 500; ++stance) {
    std::vector<Transform> pose(rig.rest_pose().begin(), rig.rest_pose().end());
    for (const Leg& leg : character.legs) {
      const JointDefinition& hip = rig.joint(leg.hip);
      pose[leg.hip].rotation =
          glm::slerp(hip.rest.rotation,
                     testing::RandomRotationWithinLimit(hip, engine), 0.3);
      // Past straight: the range's bottom (straight) less 0.01-0.28 rad.
      const JointDefinition& knee = rig.joint(leg.knee);
      const HingeLimit& hinge = knee.limit.hinge;
      pose[leg.knee].rotation =
          knee.rest.rotation *
          AngleAxis(hinge.range.min - (0.01 + 0.27 * unit(engine)), hinge.axis);
    }
    const std::vector<Vec3> animated = WorldPositions(rig, pose, Transform());
    // A level floor 1-6 cm above the lower animated sole: both feet are
    // raised onto it, the knees bend and the pelvis stays.
    double lowest_sole = 1e9;
    for (const Leg& leg : character.legs) {
      lowest_sole = std::min(
          lowest_sole, animated[leg.ankle].y - testing::kHumanoidAnkleHeight);
    }
    const GroundPlane floor =
        testing::Plane(Vec3(0.0, lowest_sole + 0.01 + 0.05 * unit(engine), 0.0),
                       Vec3(0.0, 1.0, 0.0));
    const GroundPlane planes[] = {floor};
    Ground ground;
    ground.planes = planes;
    const testing::GroundingRun run =
        RunGrounding(character, pose, Transform(), ground, {1.0, 1.0});
    ASSERT_TRUE(run.status.ok()) << run.status;
    const std::vector<Vec3> answer =
        WorldPositions(rig, run.locals, run.Lowered(Transform()));
    for (size_t l = 0; l < character.legs.size(); ++l) {
      const Leg& leg = character.legs[l];
      SCOPED_TRACE(::testing::Message() << "stance " << stance << " leg " << l);
      ASSERT_TRUE(run.feet[l].reached);
      EXPECT_LE(glm::length(answer[leg.ankle] - run.feet[l].goal), 1e-9);
      ++legs;
      flagged += run.feet[l].branch_switch;
      // The hip's turn about the animated hip -> ankle line (its twist
      // part): the leg turned about that line to bend its knee elsewhere.
      const Quat delta =
          WorldRotation(rig, run.locals, run.Lowered(Transform()), leg.hip) *
          glm::conjugate(WorldRotation(rig, pose, Transform(), leg.hip));
      const Vec3 line = glm::normalize(animated[leg.ankle] - animated[leg.hip]);
      const double turn = std::abs(std::remainder(
          2.0 * std::atan2(glm::dot(Vec3(delta.x, delta.y, delta.z), line),
                           delta.w),
          2.0 * kPi));
      turns.push_back(turn);
      EXPECT_LT(turn, 0.4);
    }
  }
  EXPECT_EQ(flagged, 0) << "of " << legs << " legs";
  std::sort(turns.begin(), turns.end());
  const double median = turns[turns.size() / 2];
  EXPECT_LT(median, 0.05);
  std::printf(
      "[ hyperextended ] %d legs, %d flagged; the hip's turn about the "
      "animated hip-ankle line: median %.3f, 90th percentile %.3f, largest "
      "%.3f rad\n",
      legs, flagged, median, turns[turns.size() * 9 / 10], turns.back());
}

}  // namespace
}  // namespace ik
