// GroundFeetJob over many seeded random cases: the humanoid in random
// stances (hips, knees and ankles turned within their limits), turned and
// placed at random over a random sloped plane, with random planted weights
// and, in half the cases, random smoothing. Checked independently of the
// pass: only the legs' hip, knee and ankle rotations change; bone lengths
// and joint limits hold; the drop stays within its maximum; without
// smoothing no reached ankle ends closer to the ground than its ankle
// height, and a planted one ends exactly there; the reported goals,
// distances and flags agree with the pose; the same request gives the same
// bits.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "grounding_fixtures.h"
#include "gtest/gtest.h"
#include "humanoid_rig.h"
#include "ik/ground/grounding.h"
#include "ik/ground/heightfield.h"
#include "ik/ground/triangle_mesh.h"
#include "independent_checks.h"
#include "terrain_shapes.h"

namespace ik {
namespace {

using ::ik::testing::GroundingRun;
using ::ik::testing::kHumanoidAnkleHeight;
using ::ik::testing::LimitViolation;
using ::ik::testing::Plane;
using ::ik::testing::RunGrounding;
using ::ik::testing::WorldPositions;

bool SameBits(const GroundingRun& a, const GroundingRun& b) {
  for (size_t j = 0; j < a.locals.size(); ++j) {
    if (a.locals[j].rotation != b.locals[j].rotation) return false;
  }
  for (size_t l = 0; l < a.feet.size(); ++l) {
    const FootResult& x = a.feet[l];
    const FootResult& y = b.feet[l];
    if (x.contact_point != y.contact_point || x.goal != y.goal ||
        x.moved != y.moved || x.tilt != y.tilt || x.reached != y.reached) {
      return false;
    }
  }
  return a.report.pelvis_drop == b.report.pelvis_drop;
}

TEST(GroundingPropertyTest, HoldsItsContractOnRandomStancesAndSlopes) {
  const Character character = *testing::HumanoidCharacter();
  const Rig& rig = character.rig;
  std::mt19937_64 engine(testing::kSeed);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  const auto uniform = [&](double low, double high) {
    return low + (high - low) * unit(engine);
  };
  std::vector<bool> leg_joint(rig.joint_count(), false);
  for (const Leg& leg : character.legs) {
    leg_joint[leg.hip] = leg_joint[leg.knee] = leg_joint[leg.ankle] = true;
  }
  int reached = 0, reachable = 0;
  for (int i = 0; i < testing::kCases; ++i) {
    SCOPED_TRACE(::testing::Message() << "case " << i);
    std::vector<Transform> pose(rig.rest_pose().begin(), rig.rest_pose().end());
    for (const Leg& leg : character.legs) {
      const Vec3 x(1, 0, 0);
      pose[leg.hip].rotation *= AngleAxis(uniform(-0.4, 0.4), x);
      pose[leg.knee].rotation *= AngleAxis(uniform(0.0, 0.8), x);
      pose[leg.ankle].rotation *= AngleAxis(uniform(-0.3, 0.3), x);
    }
    const Transform root = testing::YawedRoot(
        uniform(-kPi, kPi),
        Vec3(uniform(-5, 5), uniform(-1, 1), uniform(-5, 5)));
    const std::vector<Vec3> animated = WorldPositions(rig, pose, root);
    // A plane tilted up to 0.35 rad, within [-0.15, 0.25] m of the lower
    // animated sole.
    const double tilt = uniform(0.0, 0.35), heading = uniform(-kPi, kPi);
    const Vec3 normal(std::sin(tilt) * std::cos(heading), std::cos(tilt),
                      std::sin(tilt) * std::sin(heading));
    const Leg& left = character.legs[0];
    const Leg& right = character.legs[1];
    const double lower_ankle =
        std::min(animated[left.ankle].y, animated[right.ankle].y);
    const GroundPlane planes[] = {
        Plane(Vec3(root.translation.x,
                   lower_ankle - kHumanoidAnkleHeight + uniform(-0.25, 0.15),
                   root.translation.z),
              normal)};
    Ground ground;
    ground.planes = planes;
    std::vector<double> weights;
    for (int l = 0; l < 2; ++l) {
      const int kind = static_cast<int>(uniform(0, 4));
      weights.push_back(kind == 0 ? 0.0 : kind == 1 ? 1.0 : unit(engine));
    }
    std::optional<GroundSmoothing> smoothing;
    const std::vector<Vec3> previous = {
        Vec3(uniform(-0.1, 0.1), uniform(-0.2, 0.2), uniform(-0.1, 0.1)),
        Vec3(uniform(-0.1, 0.1), uniform(-0.2, 0.2), uniform(-0.1, 0.1))};
    if (i % 2 == 1) {
      smoothing.emplace();
      smoothing->previous_pelvis_drop = uniform(0.0, 0.3);
      smoothing->previous_foot_offsets = previous;
      smoothing->delta_time = uniform(0.0, 0.05);
      smoothing->max_pelvis_speed = uniform(0.0, 2.0);
      smoothing->max_foot_speed = uniform(0.0, 4.0);
    }

    const GroundingRun run =
        RunGrounding(character, pose, root, ground, weights, smoothing);
    ASSERT_TRUE(run.status.ok()) << run.status;
    const GroundFeetReport& report = run.report;
    ASSERT_TRUE(std::isfinite(report.pelvis_drop));
    EXPECT_GE(report.pelvis_drop, 0.0);
    EXPECT_LE(report.pelvis_drop_target, kDefaultMaxPelvisDrop);
    EXPECT_EQ(report.root_offset, Vec3(0.0, -report.pelvis_drop, 0.0));
    if (report.pelvis_drop_clamped) {
      EXPECT_EQ(report.pelvis_drop_target, kDefaultMaxPelvisDrop);
    }
    if (smoothing.has_value()) {
      EXPECT_LE(std::abs(report.pelvis_drop - smoothing->previous_pelvis_drop),
                smoothing->max_pelvis_speed * smoothing->delta_time + 1e-15);
    } else {
      EXPECT_EQ(report.pelvis_drop, report.pelvis_drop_target);
    }

    Transform lowered = root;
    lowered.translation += report.root_offset;
    const std::vector<Vec3> answer = WorldPositions(rig, run.locals, lowered);
    for (int j = 0; j < rig.joint_count(); ++j) {
      if (!leg_joint[j]) {
        ASSERT_EQ(run.locals[j].rotation, pose[j].rotation) << "joint " << j;
      } else {
        EXPECT_LE(LimitViolation(rig, j, run.locals[j].rotation),
                  testing::kLimitSlack)
            << "joint " << j;
      }
      ASSERT_EQ(run.locals[j].translation, pose[j].translation);
      const int parent = rig.parents()[j];
      if (parent != kNoParent) {
        EXPECT_NEAR(glm::length(answer[j] - answer[parent]),
                    glm::length(animated[j] - animated[parent]), 1e-12);
      }
    }
    for (int l = 0; l < 2; ++l) {
      const Leg& leg = character.legs[l];
      const FootResult& foot = run.feet[l];
      const Vec3& ankle = answer[leg.ankle];
      EXPECT_NEAR(foot.moved, glm::length(ankle - animated[leg.ankle]), 1e-12);
      EXPECT_EQ(foot.reached,
                glm::length(ankle - foot.goal) <= kDefaultTolerance);
      EXPECT_LE(glm::length(foot.goal - animated[leg.ankle] - foot.foot_offset),
                1e-12);
      EXPECT_GE(foot.tilt, 0.0);
      EXPECT_LE(foot.tilt, kDefaultMaxFootTilt);
      if (smoothing.has_value()) {
        EXPECT_LE(glm::length(foot.foot_offset - previous[l]),
                  smoothing->max_foot_speed * smoothing->delta_time + 1e-12);
        continue;
      }
      // The plane may lie beyond the ray's reach below a raised foot.
      if (!foot.ground_found) {
        EXPECT_EQ(foot.foot_offset, Vec3(0.0));
        continue;
      }
      const double height = glm::dot(ankle - planes[0].point(), normal);
      if (foot.reached) {
        EXPECT_GE(height, kHumanoidAnkleHeight - 1e-9);
        if (weights[l] == 1.0) {
          EXPECT_NEAR(height, kHumanoidAnkleHeight, 1e-9);
        }
      }
      if (!report.pelvis_drop_clamped) {
        ++reachable;
        reached += foot.reached ? 1 : 0;
      }
      EXPECT_NEAR(glm::dot(foot.contact_point - planes[0].point(), normal), 0.0,
                  1e-9);
    }

    if (i % testing::kRepeatEvery == 0) {
      EXPECT_TRUE(SameBits(run, RunGrounding(character, pose, root, ground,
                                             weights, smoothing)));
    }
  }
  // Every foot whose goal the drop brought within reach reaches it: the leg
  // solve finds the point of its circle of solutions the hip's limit allows.
  EXPECT_EQ(reached, reachable);
  std::printf(
      "[ property ] grounding on tilted planes: %d of %d feet within reach "
      "(drop not clamped) reached their goal\n",
      reached, reachable);
}

// Planted feet (weight 1, no smoothing) on uneven ground, as a heightfield
// and as a mesh over the same bumpy, sloped surface (faces tilted up to
// about 0.4 rad): a foot whose goal the drop brought within reach ends on
// it, its ankle at ankle_height above the contact face along its normal.
TEST(GroundingPropertyTest, PlantsFeetExactlyOnUnevenHeightfieldsAndMeshes) {
  const Character character = *testing::HumanoidCharacter();
  const Rig& rig = character.rig;
  std::mt19937_64 engine(testing::kSeed + 21);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  const auto uniform = [&](double low, double high) {
    return low + (high - low) * unit(engine);
  };
  const auto height = [](double x, double z) {
    return 0.15 * x - 0.1 * z + 0.08 * std::sin(2.1 * x) * std::cos(1.7 * z);
  };
  const Heightfield field = *Heightfield::Create(testing::SampledHeightfield(
      height, Vec3(-6.0, -1.0, -6.0), 0.1, 0.1, 121, 121));
  std::mt19937_64 mesh_engine(testing::kSeed + 22);
  const TriangleMesh mesh = *TriangleMesh::Create(testing::GridMesh(
      height, Vec3(-6.0, -1.0, -6.0), 0.1, 0.1, 121, 121, mesh_engine));
  const Heightfield* fields[] = {&field};
  const TriangleMesh* meshes[] = {&mesh};
  int reachable = 0;
  int planted = 0;
  double worst_goal = 0.0;
  double worst_height = 0.0;
  for (int i = 0; i < 2000; ++i) {
    SCOPED_TRACE(::testing::Message() << "case " << i);
    std::vector<Transform> pose(rig.rest_pose().begin(), rig.rest_pose().end());
    for (const Leg& leg : character.legs) {
      const Vec3 x(1, 0, 0);
      pose[leg.hip].rotation *= AngleAxis(uniform(-0.4, 0.4), x);
      pose[leg.knee].rotation *= AngleAxis(uniform(0.0, 0.8), x);
      pose[leg.ankle].rotation *= AngleAxis(uniform(-0.3, 0.3), x);
    }
    const double root_x = uniform(-4.0, 4.0);
    const double root_z = uniform(-4.0, 4.0);
    const Transform root = testing::YawedRoot(
        uniform(-kPi, kPi),
        Vec3(root_x, height(root_x, root_z) + uniform(-0.15, 0.25), root_z));
    Ground ground;
    if (i % 2 == 0) {
      ground.heightfields = fields;
    } else {
      ground.meshes = meshes;
    }
    const GroundingRun run =
        RunGrounding(character, pose, root, ground, {1.0, 1.0});
    ASSERT_TRUE(run.status.ok()) << run.status;
    if (run.report.pelvis_drop_clamped) continue;
    Transform lowered = root;
    lowered.translation += run.report.root_offset;
    const std::vector<Vec3> answer = WorldPositions(rig, run.locals, lowered);
    for (int l = 0; l < 2; ++l) {
      const FootResult& foot = run.feet[l];
      if (!foot.ground_found) continue;
      ++reachable;
      const Vec3& ankle = answer[character.legs[l].ankle];
      worst_goal = std::max(worst_goal, glm::length(ankle - foot.goal));
      const double above =
          glm::dot(ankle - foot.contact_point, foot.contact_normal);
      worst_height =
          std::max(worst_height, std::abs(above - kHumanoidAnkleHeight));
      if (foot.reached && std::abs(above - kHumanoidAnkleHeight) <= 1e-4) {
        ++planted;
      }
    }
  }
  std::printf(
      "[ property ] planted feet on uneven heightfields and meshes: %d of %d "
      "within reach on their goal at ankle_height (worst %.3g m from the "
      "goal, %.3g m off the height)\n",
      planted, reachable, worst_goal, worst_height);
  EXPECT_EQ(planted, reachable);
}

}  // namespace
}  // namespace ik
