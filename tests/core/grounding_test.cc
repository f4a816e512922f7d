// GroundFeetJob on the humanoid: flat ground, steps, slopes, ground beyond
// reach, the planted weight, smoothing, the toe ray's forward axis, the
// three kinds of ground and determinism (validation:
// grounding_validate_test.cc). Expected values are computed here from the
// geometry (world positions by matrices, drops by bisection), not by the
// pass's own formulas.
#include "ik/ground/grounding.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "grounding_fixtures.h"
#include "gtest/gtest.h"
#include "humanoid_rig.h"
#include "independent_checks.h"
#include "terrain_shapes.h"

namespace ik {
namespace {

using ::ik::testing::ExpectError;
using ::ik::testing::Floor;
using ::ik::testing::GroundingRun;
using ::ik::testing::HumanoidDefinition;
using ::ik::testing::kHumanoidAnkleHeight;
using ::ik::testing::Plane;
using ::ik::testing::RunGrounding;
using ::ik::testing::SoleUp;
using ::ik::testing::WorldPositions;
using ::ik::testing::YawedRoot;

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kClose = 1e-6;  // metres or radians
const Vec3 kUp(0, 1, 0);

// The smallest drop (by bisection) that brings `goal` within `reach` of
// `hip` lowered by it.
double SmallestDrop(const Vec3& hip, const Vec3& goal, double reach) {
  const auto fits = [&](double drop) {
    return glm::length(hip - drop * kUp - goal) <= reach;
  };
  if (fits(0.0)) return 0.0;
  double low = 0.0, high = 1.0;
  for (int i = 0; i < 200; ++i) {
    const double middle = 0.5 * (low + high);
    (fits(middle) ? high : low) = middle;
  }
  return high;
}

void ExpectNear(const Vec3& actual, const Vec3& expected, double tolerance,
                const std::string& what) {
  EXPECT_LE(glm::length(actual - expected), tolerance)
      << what << ": (" << actual.x << ", " << actual.y << ", " << actual.z
      << ") vs (" << expected.x << ", " << expected.y << ", " << expected.z
      << ")";
}

class GroundingTest : public ::testing::Test {
 protected:
  void SetUp() override { Build(HumanoidDefinition()); }

  void Build(CharacterDefinition definition) {
    absl::StatusOr<Character> created =
        Character::Create(std::move(definition));
    ASSERT_TRUE(created.ok()) << created.status();
    character_.emplace(*std::move(created));
    rig_ = &character_->rig;
    pose_.assign(rig_->rest_pose().begin(), rig_->rest_pose().end());
    for (const char* side : {"left", "right"}) {
      Joints joints;
      for (const auto& [field, name] :
           {std::pair{&joints.hip, "_hip"}, std::pair{&joints.knee, "_knee"},
            std::pair{&joints.ankle, "_ankle"},
            std::pair{&joints.toe, "_toe"}}) {
        *field = rig_->FindJoint(std::string(side) + name);
      }
      legs_.push_back(joints);
    }
    animated_ = WorldPositions(*rig_, pose_, root_);
    sole_height_ = animated_[legs_[0].ankle].y - kHumanoidAnkleHeight;
  }

  GroundingRun Run(const Ground& ground, std::vector<double> weights,
                   std::optional<GroundSmoothing> smoothing = std::nullopt) {
    GroundingRun run =
        RunGrounding(*character_, pose_, root_, ground, weights, smoothing);
    EXPECT_TRUE(run.status.ok()) << run.status;
    if (run.status.ok()) ExpectBonesKept(run);
    return run;
  }

  std::vector<Vec3> Answer(const GroundingRun& run) const {
    return WorldPositions(*rig_, run.locals, run.Lowered(root_));
  }

  void ExpectBonesKept(const GroundingRun& run) const {
    const std::vector<Vec3> answer = Answer(run);
    for (const Joints& leg : legs_) {
      const int pairs[][2] = {
          {leg.hip, leg.knee}, {leg.knee, leg.ankle}, {leg.ankle, leg.toe}};
      for (const auto& [from, to] : pairs) {
        EXPECT_NEAR(glm::length(answer[to] - answer[from]),
                    glm::length(animated_[to] - animated_[from]), 1e-12);
      }
    }
  }

  void ExpectLegAsAnimated(const GroundingRun& run, int l) const {
    const std::vector<Vec3> answer = Answer(run);
    const Joints& leg = legs_[l];
    for (const int joint : {leg.ankle, leg.toe}) {
      ExpectNear(answer[joint], animated_[joint], kClose, "animated joint");
    }
    EXPECT_GE(glm::dot(SoleUp(*rig_, run.locals, run.Lowered(root_), leg.ankle),
                       SoleUp(*rig_, pose_, root_, leg.ankle)),
              std::cos(kClose));
  }

  // The reach the pass allows: as far as the animation stretches the leg,
  // or to kLegReachMargin short of straight.
  double Reach(int l) const {
    const Joints& leg = legs_[l];
    const Vec3& hip = animated_[leg.hip];
    const Vec3& knee = animated_[leg.knee];
    const Vec3& ankle = animated_[leg.ankle];
    return std::max(glm::length(ankle - hip),
                    (glm::length(knee - hip) + glm::length(ankle - knee)) *
                        (1.0 - kLegReachMargin));
  }

  Vec3 Forward() const { return root_.rotation * Vec3(0, 0, 1); }

  struct Joints {
    int hip = -1, knee = -1, ankle = -1, toe = -1;
  };
  std::optional<Character> character_;
  const Rig* rig_ = nullptr;  // character_'s
  std::vector<Transform> pose_;
  Transform root_ = YawedRoot(0.6, Vec3(2.0, 0.3, -1.0));
  std::vector<Joints> legs_;
  std::vector<Vec3> animated_;
  double sole_height_ = 0.0;
};

TEST_F(GroundingTest, FlatGroundAtTheAnimatedHeightChangesNothing) {
  const GroundPlane planes[] = {Plane(Vec3(0, sole_height_, 0), kUp)};
  Ground ground;
  ground.planes = planes;
  for (const double weight : {0.0, 0.5, 1.0}) {
    const GroundingRun run = Run(ground, {weight, weight});
    EXPECT_LE(run.report.pelvis_drop, 1e-12);
    EXPECT_FALSE(run.report.pelvis_drop_clamped);
    for (size_t j = 0; j < pose_.size(); ++j) {
      EXPECT_GE(std::abs(glm::dot(run.locals[j].rotation, pose_[j].rotation)),
                1.0 - 1e-12)
          << "joint " << j << ", weight " << weight;
    }
    for (int l = 0; l < 2; ++l) {
      const FootResult& foot = run.feet[l];
      EXPECT_TRUE(foot.ground_found);
      EXPECT_TRUE(foot.reached);
      EXPECT_LE(foot.moved, kClose);
      EXPECT_LE(foot.tilt, kClose);
      EXPECT_FALSE(foot.tilt_clamped);
      ExpectNear(foot.contact_point,
                 animated_[legs_[l].ankle] - kHumanoidAnkleHeight * kUp, kClose,
                 "contact point");
      ExpectNear(foot.contact_normal, kUp, 1e-12, "contact normal");
    }
  }
}

TEST_F(GroundingTest, StepUnderOneFootPutsThatSoleOnItAndLeavesTheOther) {
  constexpr double kRise = 0.1;
  // A disc around the left foot (ankle and toe point); the floor at the
  // animated height elsewhere.
  GroundPlaneDefinition step;
  step.point = animated_[legs_[0].ankle] + 0.07 * Forward();
  step.point.y = sole_height_ + kRise;
  step.radius = 0.12;
  const GroundPlane planes[] = {*GroundPlane::Create(step),
                                Plane(Vec3(0, sole_height_, 0), kUp)};
  Ground ground;
  ground.planes = planes;
  for (const double weight : {0.0, 1.0}) {
    const GroundingRun run = Run(ground, {weight, weight});
    const std::vector<Vec3> answer = Answer(run);
    const Transform lowered = run.Lowered(root_);
    EXPECT_EQ(run.report.pelvis_drop, 0.0);  // a step up asks for none
    const int ankle = legs_[0].ankle;
    ExpectNear(answer[ankle], animated_[ankle] + kRise * kUp, kClose,
               "left ankle");
    const Vec3 sole_up = SoleUp(*rig_, run.locals, lowered, ankle);
    EXPECT_GE(glm::dot(sole_up, kUp), std::cos(kClose));
    EXPECT_NEAR((answer[ankle] - kHumanoidAnkleHeight * sole_up).y,
                sole_height_ + kRise, 1e-3);
    EXPECT_TRUE(run.feet[0].grounded);
    EXPECT_TRUE(run.feet[0].reached);
    EXPECT_NEAR(run.feet[0].moved, kRise, kClose);
    ExpectLegAsAnimated(run, 1);
    EXPECT_LE(run.feet[1].moved, kClose);
  }
}

TEST_F(GroundingTest, StepDownUnderOneFootLowersThePelvisJustEnough) {
  constexpr double kDepth = 0.06;
  GroundPlaneDefinition floor;
  floor.point = animated_[legs_[1].ankle] + 0.07 * Forward();
  floor.point.y = sole_height_;
  floor.radius = 0.12;
  const GroundPlane planes[] = {*GroundPlane::Create(floor),
                                Plane(Vec3(0, sole_height_ - kDepth, 0), kUp)};
  Ground ground;
  ground.planes = planes;
  const GroundingRun run = Run(ground, {1.0, 0.0});
  const std::vector<Vec3> answer = Answer(run);
  const int hip = legs_[0].hip, ankle = legs_[0].ankle;
  const Vec3 goal = animated_[ankle] - kDepth * kUp;
  // The animated leg is nearly straight: it may stretch no further.
  ASSERT_GT(glm::length(animated_[ankle] - animated_[hip]),
            0.83 * (1.0 - kLegReachMargin));
  const double drop = SmallestDrop(animated_[hip], goal, Reach(0));
  EXPECT_NEAR(run.report.pelvis_drop, drop, 1e-9);
  EXPECT_GT(drop, 0.9 * kDepth);
  EXPECT_FALSE(run.report.pelvis_drop_clamped);
  ExpectNear(run.report.root_offset, -drop * kUp, 1e-9, "root offset");
  ExpectNear(answer[ankle], goal, kClose, "left ankle");
  EXPECT_NEAR(glm::length(answer[ankle] - answer[hip]), Reach(0), 1e-9);
  EXPECT_TRUE(run.feet[0].reached);
  // The right foot stays where the animation put it; its leg bends.
  ExpectLegAsAnimated(run, 1);
  EXPECT_TRUE(run.feet[1].reached);
}

TEST_F(GroundingTest, SlopePutsBothSolesOnItTiltedToTheSlope) {
  constexpr double kSlope = 0.25;  // radians, rising ahead
  const Vec3 normal = std::cos(kSlope) * kUp - std::sin(kSlope) * Forward();
  const Vec3 point =
      0.5 * (animated_[legs_[0].ankle] + animated_[legs_[1].ankle]) -
      kHumanoidAnkleHeight * kUp;
  const GroundPlane planes[] = {Plane(point, normal)};
  Ground ground;
  ground.planes = planes;
  for (const double weight : {0.0, 1.0}) {
    const GroundingRun run = Run(ground, {weight, weight});
    const std::vector<Vec3> answer = Answer(run);
    const Transform lowered = run.Lowered(root_);
    for (int l = 0; l < 2; ++l) {
      const int ankle = legs_[l].ankle;
      EXPECT_GE(glm::dot(SoleUp(*rig_, run.locals, lowered, ankle), normal),
                std::cos(kClose));
      EXPECT_NEAR(glm::dot(answer[ankle] - point, normal), kHumanoidAnkleHeight,
                  kClose);
      // The toe joint keeps its height above the sole (0.07 - 0.05).
      EXPECT_NEAR(glm::dot(answer[legs_[l].toe] - point, normal), 0.02, kClose);
      EXPECT_NEAR(run.feet[l].tilt, kSlope, kClose);
      EXPECT_FALSE(run.feet[l].tilt_clamped);
      EXPECT_TRUE(run.feet[l].grounded);
      EXPECT_TRUE(run.feet[l].reached);
      EXPECT_NEAR(glm::dot(run.feet[l].contact_point - point, normal), 0.0,
                  1e-9);
      ExpectNear(run.feet[l].contact_normal, normal, 1e-12, "normal");
    }
  }
}

TEST_F(GroundingTest, SteepSlopeTiltsTheFeetToTheClamp) {
  CharacterDefinition definition = HumanoidDefinition();
  for (LegDefinition& leg : definition.legs) leg.settings.max_foot_tilt = 0.3;
  Build(std::move(definition));
  constexpr double kSlope = 0.5;
  const Vec3 normal = std::cos(kSlope) * kUp - std::sin(kSlope) * Forward();
  const GroundPlane planes[] = {
      Plane(0.5 * (animated_[legs_[0].ankle] + animated_[legs_[1].ankle]) -
                kHumanoidAnkleHeight * kUp,
            normal)};
  Ground ground;
  ground.planes = planes;
  const GroundingRun run = Run(ground, {1.0, 1.0});
  for (int l = 0; l < 2; ++l) {
    EXPECT_NEAR(run.feet[l].tilt, 0.3, 1e-12);
    EXPECT_TRUE(run.feet[l].tilt_clamped);
    const Vec3 sole_up =
        SoleUp(*rig_, run.locals, run.Lowered(root_), legs_[l].ankle);
    // Turned 0.3 from up, towards the slope's normal.
    EXPECT_NEAR(std::acos(std::min(1.0, glm::dot(sole_up, kUp))), 0.3, kClose);
    EXPECT_NEAR(glm::dot(sole_up, glm::cross(kUp, normal)), 0.0, kClose);
    EXPECT_GT(glm::dot(sole_up, normal), glm::dot(kUp, normal));
  }
}

TEST_F(GroundingTest, GroundBeyondReachClampsTheDropAndReportsUnreached) {
  const GroundPlane planes[] = {Plane(Vec3(0, sole_height_ - 0.4, 0), kUp)};
  Ground ground;
  ground.planes = planes;
  const GroundingRun run = Run(ground, {1.0, 1.0});
  EXPECT_EQ(run.report.pelvis_drop, kDefaultMaxPelvisDrop);
  EXPECT_EQ(run.report.pelvis_drop_target, kDefaultMaxPelvisDrop);
  EXPECT_TRUE(run.report.pelvis_drop_clamped);
  const std::vector<Vec3> answer = Answer(run);
  for (int l = 0; l < 2; ++l) {
    const FootResult& foot = run.feet[l];
    const int hip = legs_[l].hip, ankle = legs_[l].ankle;
    EXPECT_TRUE(foot.grounded);
    EXPECT_FALSE(foot.reached);
    ExpectNear(foot.goal, animated_[ankle] - 0.4 * kUp, 1e-9, "goal");
    // Straight (the knee's hinge allows all but 1.3e-5 rad of it), aimed at
    // the goal.
    EXPECT_NEAR(glm::length(answer[ankle] - answer[hip]), 0.83, 1e-9);
    EXPECT_LE(
        glm::length(glm::cross(glm::normalize(answer[ankle] - answer[hip]),
                               glm::normalize(foot.goal - answer[hip]))),
        kClose);
  }
}

TEST_F(GroundingTest, PlantedWeightBlendsTheAnimatedAndPlantedGoals) {
  constexpr double kGap = 0.1;  // the ground this far below the soles
  const GroundPlane planes[] = {Plane(Vec3(0, sole_height_ - kGap, 0), kUp)};
  Ground ground;
  ground.planes = planes;
  for (const double weight : {0.0, 0.5, 1.0}) {
    const GroundingRun run = Run(ground, {weight, weight});
    const std::vector<Vec3> answer = Answer(run);
    double drop = 0.0;
    for (int l = 0; l < 2; ++l) {
      const int ankle = legs_[l].ankle;
      const Vec3 goal = animated_[ankle] - weight * kGap * kUp;
      ExpectNear(answer[ankle], goal, kClose, "ankle");
      EXPECT_EQ(run.feet[l].grounded, weight > 0.0);
      EXPECT_TRUE(run.feet[l].reached);
      EXPECT_LE(run.feet[l].tilt, kClose);
      drop =
          std::max(drop, SmallestDrop(animated_[legs_[l].hip], goal, Reach(l)));
    }
    EXPECT_NEAR(run.report.pelvis_drop, drop, 1e-9) << "weight " << weight;
    if (weight == 0.0) {
      for (int l = 0; l < 2; ++l) ExpectLegAsAnimated(run, l);
    }
  }
  // One foot planted, one in the air: the free foot stays where it was.
  const GroundingRun run = Run(ground, {1.0, 0.0});
  ExpectNear(Answer(run)[legs_[0].ankle],
             animated_[legs_[0].ankle] - kGap * kUp, kClose, "planted");
  EXPECT_GT(run.report.pelvis_drop, 0.09);
  ExpectLegAsAnimated(run, 1);
}

TEST_F(GroundingTest, SmoothingMovesTheDropAndOffsetsAtMostTheirSpeeds) {
  const GroundPlane planes[] = {Plane(Vec3(0, sole_height_ - 0.1, 0), kUp)};
  Ground ground;
  ground.planes = planes;
  const GroundingRun target = Run(ground, {1.0, 1.0});
  const std::vector<Vec3> previous_offsets = {Vec3(0.0), Vec3(0.0)};
  GroundSmoothing smoothing;
  smoothing.previous_foot_offsets = previous_offsets;
  smoothing.delta_time = 0.02;
  smoothing.max_pelvis_speed = 1.0;
  smoothing.max_foot_speed = 2.0;
  const GroundingRun slow = Run(ground, {1.0, 1.0}, smoothing);
  EXPECT_NEAR(slow.report.pelvis_drop, 0.02, 1e-15);
  for (int l = 0; l < 2; ++l) {
    ExpectNear(slow.feet[l].foot_offset, Vec3(0.0, -0.04, 0.0), 1e-15,
               "offset");
    ExpectNear(slow.feet[l].goal, animated_[legs_[l].ankle] - 0.04 * kUp, 1e-15,
               "goal");
    // The drop the smoothed goals ask for, which the pelvis moves towards.
    EXPECT_NEAR(
        slow.report.pelvis_drop_target,
        SmallestDrop(animated_[legs_[l].hip], slow.feet[l].goal, Reach(l)),
        1e-9);
  }
  // Time enough, or no limit: the unsmoothed answer, bit for bit.
  smoothing.delta_time = 1.0;
  const GroundingRun caught_up = Run(ground, {1.0, 1.0}, smoothing);
  smoothing.delta_time = 0.0;
  smoothing.max_pelvis_speed = kInf;
  smoothing.max_foot_speed = kInf;
  const GroundingRun unlimited = Run(ground, {1.0, 1.0}, smoothing);
  for (const GroundingRun* run : {&caught_up, &unlimited}) {
    EXPECT_EQ(run->report.pelvis_drop, target.report.pelvis_drop);
    for (size_t j = 0; j < pose_.size(); ++j) {
      EXPECT_EQ(run->locals[j].rotation, target.locals[j].rotation);
    }
  }
}

TEST_F(GroundingTest, ToeRayGoesAlongTheRigsForwardAxisWithoutToeJoints) {
  CharacterDefinition definition = HumanoidDefinition();
  definition.rig.forward = Vec3(1.0, 0.0, 0.0);  // the model's +X
  for (LegDefinition& leg : definition.legs) leg.toe.clear();
  Build(std::move(definition));
  constexpr double kSlope = 0.2;
  const Vec3 ahead = root_.rotation * Vec3(1, 0, 0);
  const Vec3 normal = std::cos(kSlope) * kUp - std::sin(kSlope) * ahead;
  const Vec3 point = animated_[legs_[0].ankle] - kHumanoidAnkleHeight * kUp;
  const GroundPlane planes[] = {Plane(point, normal)};
  Ground ground;
  ground.planes = planes;
  const GroundingRun run = Run(ground, {1.0, 1.0});
  const std::vector<Vec3> answer = Answer(run);
  for (int l = 0; l < 2; ++l) {
    EXPECT_GE(
        glm::dot(SoleUp(*rig_, run.locals, run.Lowered(root_), legs_[l].ankle),
                 normal),
        std::cos(kClose));
    EXPECT_NEAR(glm::dot(answer[legs_[l].ankle] - point, normal),
                kHumanoidAnkleHeight, kClose);
    EXPECT_NEAR(run.feet[l].tilt, kSlope, kClose);
  }
}

TEST_F(GroundingTest, NoGroundLeavesThePoseAsAnimated) {
  const GroundingRun run = Run(Ground(), {1.0, 1.0});
  EXPECT_EQ(run.report.pelvis_drop, 0.0);
  for (int l = 0; l < 2; ++l) {
    EXPECT_FALSE(run.feet[l].ground_found);
    EXPECT_FALSE(run.feet[l].grounded);
    EXPECT_TRUE(run.feet[l].reached);
    EXPECT_EQ(run.feet[l].foot_offset, Vec3(0.0));
    ExpectLegAsAnimated(run, l);
  }
}

TEST_F(GroundingTest, TheSameSlopeAsHeightfieldOrMeshGivesTheSameAnswer) {
  // A ramp rising ahead (world +Z, the character facing it), as a plane, a
  // heightfield and a mesh of the same samples.
  root_ = testing::YawedRoot(0.0, Vec3(0.3, 0.05, 0.4));
  animated_ = WorldPositions(*rig_, pose_, root_);
  const auto height = [](double, double z) { return 0.1 + 0.2 * z; };
  const GroundPlane planes[] = {
      Plane(Vec3(0.0, height(0.0, 0.0), 0.0), Vec3(0.0, 1.0, -0.2))};
  Ground plane_ground;
  plane_ground.planes = planes;
  const Heightfield field = *Heightfield::Create(testing::SampledHeightfield(
      height, Vec3(-2.0, 0.0, -2.0), 0.25, 0.25, 17, 17));
  const Heightfield* fields[] = {&field};
  Ground field_ground;
  field_ground.heightfields = fields;
  std::mt19937_64 engine(5);
  const TriangleMesh mesh = *TriangleMesh::Create(testing::GridMesh(
      height, Vec3(-2.0, 0.0, -2.0), 0.25, 0.25, 17, 17, engine));
  const TriangleMesh* meshes[] = {&mesh};
  Ground mesh_ground;
  mesh_ground.meshes = meshes;
  const GroundingRun expected = Run(plane_ground, {1.0, 0.5});
  EXPECT_GT(expected.feet[0].tilt, 0.19);
  for (const Ground* ground : {&field_ground, &mesh_ground}) {
    const GroundingRun run = Run(*ground, {1.0, 0.5});
    for (size_t j = 0; j < pose_.size(); ++j) {
      EXPECT_GE(std::abs(glm::dot(run.locals[j].rotation,
                                  expected.locals[j].rotation)),
                1.0 - 1e-12);
    }
    EXPECT_NEAR(run.report.pelvis_drop, expected.report.pelvis_drop, 1e-9);
  }
}

TEST_F(GroundingTest, IdenticalRequestsGiveIdenticalBits) {
  std::mt19937_64 engine(6);
  const TriangleMesh mesh = *TriangleMesh::Create(testing::GridMesh(
      [](double x, double z) { return 0.3 * std::sin(2.0 * x + z); }, Vec3(0.0),
      0.1, 0.1, 60, 60, engine));
  const TriangleMesh* meshes[] = {&mesh};
  Ground ground;
  ground.meshes = meshes;
  root_ = testing::YawedRoot(1.1, Vec3(3.0, 0.1, 2.5));
  pose_[legs_[0].knee].rotation *= AngleAxis(0.5, Vec3(1, 0, 0));
  const GroundingRun first = Run(ground, {0.7, 0.2});
  const GroundingRun second = Run(ground, {0.7, 0.2});
  ASSERT_TRUE(first.feet[0].ground_found && first.feet[1].ground_found);
  EXPECT_EQ(std::memcmp(first.locals.data(), second.locals.data(),
                        first.locals.size() * sizeof(Transform)),
            0);
  EXPECT_EQ(first.report.pelvis_drop, second.report.pelvis_drop);
  for (int l = 0; l < 2; ++l) {
    EXPECT_EQ(first.feet[l].goal, second.feet[l].goal);
    EXPECT_EQ(first.feet[l].contact_point, second.feet[l].contact_point);
    EXPECT_EQ(first.feet[l].tilt, second.feet[l].tilt);
    EXPECT_EQ(first.feet[l].moved, second.feet[l].moved);
  }
}

}  // namespace
}  // namespace ik
