// Property tests of the analytic two-bone solver: many seeded random poses
// and targets on the humanoid's limbs (through SolveChainJob) and on random
// limbs (through TwoBoneJob). Every hit is checked with forward kinematics
// written here with 4x4 matrices, independently of the core's Compose /
// LocalToModelJob. The humanoid's limb limits are opened up here (no cone
// on the limb roots, the hinges a full turn) so that the whole shell the
// bones reach is reachable: this tests the analytic solve itself; the
// limits are chain_property_test.cc's.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <glm/gtc/matrix_transform.hpp>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "humanoid_rig.h"
#include "ik/rig/solve_chain.h"
#include "ik/solvers/two_bone.h"
#include "solve_chain_runner.h"

namespace ik {
namespace {

constexpr int kCasesPerLimb = 10000;
constexpr double kHitTolerance = 1e-5;
// Targets stay this far inside the reachable shell, metres.
constexpr double kShellMargin = 1e-4;
constexpr uint64_t kSeed = 0x1cd5eed5ULL;

glm::dmat4 Matrix(const Transform& t) {
  return glm::translate(glm::dmat4(1.0), t.translation) *
         glm::mat4_cast(t.rotation) * glm::scale(glm::dmat4(1.0), t.scale);
}

// World position of `joint`: the product of the matrices on its path.
Vec3 IndependentWorldPosition(const Rig& rig,
                              const std::vector<Transform>& locals,
                              const Transform& root, int joint) {
  std::vector<int> path;
  for (int j = joint; j != kNoParent; j = rig.parents()[j]) path.push_back(j);
  glm::dmat4 matrix = Matrix(root);
  for (auto it = path.rbegin(); it != path.rend(); ++it) {
    matrix = matrix * Matrix(locals[*it]);
  }
  return Vec3(matrix[3]);
}

class Sampler {
 public:
  explicit Sampler(uint64_t seed) : engine_(seed) {}

  double Uniform(double low, double high) {
    return std::uniform_real_distribution<double>(low, high)(engine_);
  }
  bool Coin() { return Uniform(0.0, 1.0) < 0.5; }

  Vec3 UnitVector() {
    while (true) {
      const Vec3 v(Uniform(-1, 1), Uniform(-1, 1), Uniform(-1, 1));
      const double length = glm::length(v);
      if (length > 1e-3 && length <= 1.0) return v / length;
    }
  }

  Quat Rotation(double max_angle) {
    return AngleAxis(Uniform(-max_angle, max_angle), UnitVector());
  }

 private:
  std::mt19937_64 engine_;
};

struct Stats {
  double max_error = 0.0;
  int cases = 0;
};

// Random pose of the humanoid around `chain`: ancestors and the chain's root
// turned at random, the middle joint on its hinge (so the hinge axis is the
// bend axis and the whole shell is reachable).
std::vector<Transform> RandomPose(const Rig& rig, const Chain& chain,
                                  Sampler& sampler) {
  std::vector<Transform> locals(rig.rest_pose().begin(), rig.rest_pose().end());
  for (int j = rig.parents()[chain.joints[0]]; j != kNoParent;
       j = rig.parents()[j]) {
    locals[j].rotation = rig.rest_pose()[j].rotation * sampler.Rotation(0.6);
  }
  locals[chain.joints[0]].rotation = sampler.Rotation(kPi);
  const JointDefinition& mid = rig.joint(chain.joints[1]);
  const HingeLimit& hinge = mid.limit.hinge;
  locals[chain.joints[1]].rotation =
      mid.rest.rotation *
      AngleAxis(sampler.Uniform(hinge.range.min, hinge.range.max), hinge.axis);
  return locals;
}

Transform RandomRoot(Sampler& sampler) {
  Transform root;
  root.translation = Vec3(sampler.Uniform(-50, 50), sampler.Uniform(-5, 5),
                          sampler.Uniform(-50, 50));
  root.rotation = sampler.Rotation(kPi);
  root.scale = Vec3(sampler.Uniform(0.8, 1.25));
  return root;
}

// The humanoid without ball-and-socket limits and with its hinges turning a
// full turn (still hinges: the bend axis stays the hinge's).
RigDefinition OpenLimbsHumanoid() {
  RigDefinition definition = testing::HumanoidRigDefinition();
  for (JointDefinition& joint : definition.joints) {
    if (joint.limit.kind == JointLimit::Kind::kHinge) {
      joint.limit.hinge.range = {-kPi, kPi};
    } else {
      joint.limit = JointLimit();
    }
  }
  return definition;
}

class HumanoidPropertyTest : public ::testing::TestWithParam<const char*> {
 protected:
  void SetUp() override {
    absl::StatusOr<Rig> rig = Rig::Create(OpenLimbsHumanoid());
    ASSERT_TRUE(rig.ok()) << rig.status();
    rig_.emplace(*std::move(rig));
    chain_ = rig_->FindChain(GetParam());
    ASSERT_NE(chain_, nullptr);
    ASSERT_EQ(rig_->joint(chain_->joints[1]).limit.kind,
              JointLimit::Kind::kHinge);
  }

  std::optional<Rig> rig_;
  const Chain* chain_ = nullptr;
};

TEST_P(HumanoidPropertyTest, HitsRandomReachableTargets) {
  Sampler sampler(kSeed);
  testing::ChainSolveRunner solver(*rig_);
  testing::ChainSolveRunner second_solver(*rig_);
  const int root_joint = chain_->joints[0];
  const int mid_joint = chain_->joints[1];
  const int tip_joint = chain_->joints[2];
  Stats stats;
  int with_pole = 0;
  for (int i = 0; i < kCasesPerLimb; ++i) {
    const Transform root = RandomRoot(sampler);
    const std::vector<Transform> pose = RandomPose(*rig_, *chain_, sampler);
    // Bone lengths and the root in model space (root scale 1).
    const Vec3 root_model =
        IndependentWorldPosition(*rig_, pose, Transform(), root_joint);
    const double upper = glm::length(
        IndependentWorldPosition(*rig_, pose, Transform(), mid_joint) -
        root_model);
    const double lower = glm::length(
        IndependentWorldPosition(*rig_, pose, Transform(), tip_joint) -
        IndependentWorldPosition(*rig_, pose, Transform(), mid_joint));
    const double distance = sampler.Uniform(
        std::abs(upper - lower) + kShellMargin, upper + lower - kShellMargin);
    const Vec3 target_model = root_model + distance * sampler.UnitVector();
    ChainGoal goal;
    goal.chain = chain_;
    goal.target_world = TransformPoint(root, target_model);
    if (sampler.Coin()) {
      goal.pole_world = TransformPoint(
          root, root_model + sampler.Uniform(0.1, 2.0) * sampler.UnitVector());
      ++with_pole;
    }

    std::vector<Transform> locals = pose;
    absl::StatusOr<ChainSolveResult> result =
        solver.Solve(goal, root, absl::MakeSpan(locals));
    ASSERT_TRUE(result.ok()) << "case " << i << ": " << result.status();
    const Vec3 tip_world =
        IndependentWorldPosition(*rig_, locals, root, tip_joint);
    const double error = glm::length(tip_world - goal.target_world);
    stats.max_error = std::max(stats.max_error, error);
    ++stats.cases;
    ASSERT_LE(error, kHitTolerance) << "case " << i;
    ASSERT_TRUE(result->report.reached) << "case " << i;
    ASSERT_NEAR(result->report.residual, error, 1e-9) << "case " << i;

    if (goal.pole_world.has_value()) {
      // The middle joint lies in the root-target-pole plane, on the pole's
      // side of the root-target line.
      const Vec3 root_world =
          IndependentWorldPosition(*rig_, locals, root, root_joint);
      const Vec3 mid_world =
          IndependentWorldPosition(*rig_, locals, root, mid_joint);
      const Vec3 axis = glm::normalize(goal.target_world - root_world);
      const Vec3 pole_offset = *goal.pole_world - root_world;
      const Vec3 pole_across = pole_offset - glm::dot(pole_offset, axis) * axis;
      const Vec3 mid_offset = mid_world - root_world;
      const Vec3 mid_across = mid_offset - glm::dot(mid_offset, axis) * axis;
      if (glm::length(pole_across) > 1e-3 && glm::length(mid_across) > 1e-3) {
        const Vec3 normal = glm::normalize(glm::cross(axis, pole_across));
        ASSERT_NEAR(glm::dot(mid_offset, normal), 0.0, 1e-9) << "case " << i;
        ASSERT_GT(glm::dot(mid_across, pole_across), 0.0) << "case " << i;
      }
    }

    // The same request again, on another solver: the same bits.
    std::vector<Transform> again = pose;
    absl::StatusOr<ChainSolveResult> repeated =
        second_solver.Solve(goal, root, absl::MakeSpan(again));
    ASSERT_TRUE(repeated.ok());
    ASSERT_EQ(std::memcmp(locals.data(), again.data(),
                          locals.size() * sizeof(Transform)),
              0)
        << "case " << i;
    ASSERT_EQ(
        std::memcmp(&result->tip_world, &repeated->tip_world, sizeof(Vec3)), 0);
  }
  std::printf(
      "[ property ] %s: %d reachable targets (%d with a pole), max "
      "error %.3g m\n",
      GetParam(), stats.cases, with_pole, stats.max_error);
  RecordProperty("max_error_m", std::to_string(stats.max_error));
}

TEST_P(HumanoidPropertyTest, NeverProducesNanForUnreachableTargets) {
  Sampler sampler(kSeed + 1);
  testing::ChainSolveRunner solver(*rig_);
  const int root_joint = chain_->joints[0];
  for (int i = 0; i < kCasesPerLimb; ++i) {
    const Transform root = RandomRoot(sampler);
    std::vector<Transform> locals = RandomPose(*rig_, *chain_, sampler);
    const Vec3 root_model =
        IndependentWorldPosition(*rig_, locals, Transform(), root_joint);
    const Vec3 mid_model =
        IndependentWorldPosition(*rig_, locals, Transform(), chain_->joints[1]);
    const double upper = glm::length(mid_model - root_model);
    const double lower =
        glm::length(IndependentWorldPosition(*rig_, locals, Transform(),
                                             chain_->joints[2]) -
                    mid_model);
    // Beyond the outer shell (up to far away), or inside the inner one.
    const bool far = sampler.Coin();
    const double distance = far ? sampler.Uniform(upper + lower + 1e-3, 1000.0)
                                : sampler.Uniform(0.0, std::abs(upper - lower));
    ChainGoal goal;
    goal.chain = chain_;
    goal.target_world =
        TransformPoint(root, root_model + distance * sampler.UnitVector());
    if (sampler.Coin()) {
      goal.pole_world =
          sampler.Coin()
              ? goal.target_world
              : TransformPoint(root, root_model + sampler.UnitVector());
    }
    absl::StatusOr<ChainSolveResult> result =
        solver.Solve(goal, root, absl::MakeSpan(locals));
    ASSERT_TRUE(result.ok()) << "case " << i << ": " << result.status();
    for (const Transform& local : locals) {
      ASSERT_TRUE(IsFinite(local.rotation)) << "case " << i;
    }
    ASSERT_TRUE(IsFinite(result->tip_world)) << "case " << i;
    ASSERT_TRUE(IsFinite(result->report.residual)) << "case " << i;
    const Vec3 tip_world =
        IndependentWorldPosition(*rig_, locals, root, chain_->joints[2]);
    ASSERT_NEAR(glm::length(tip_world - goal.target_world),
                result->report.residual, 1e-9);
    if (far) {
      ASSERT_FALSE(result->report.reached) << "case " << i;
      // Fully extended towards the target.
      const double reach =
          glm::length(tip_world - IndependentWorldPosition(*rig_, locals, root,
                                                           root_joint));
      ASSERT_NEAR(result->report.residual,
                  glm::length(goal.target_world -
                              IndependentWorldPosition(*rig_, locals, root,
                                                       root_joint)) -
                      reach,
                  1e-9)
          << "case " << i;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Limbs, HumanoidPropertyTest,
                         ::testing::Values("left_arm", "right_arm", "left_leg",
                                           "right_leg"),
                         [](const ::testing::TestParamInfo<const char*>& info) {
                           return std::string(info.param);
                         });

// Random limbs through TwoBoneJob: arbitrary lengths, bends and joint frames,
// no bend axis given (the incoming plane is used).
TEST(TwoBoneJobPropertyTest, HitsRandomReachableTargetsOnRandomLimbs) {
  Sampler sampler(kSeed + 2);
  Stats stats;
  for (int i = 0; i < 4 * kCasesPerLimb; ++i) {
    const Vec3 root(sampler.Uniform(-2, 2), sampler.Uniform(-2, 2),
                    sampler.Uniform(-2, 2));
    const double upper = sampler.Uniform(0.05, 1.0);
    const double lower = sampler.Uniform(0.05, 1.0);
    const Quat root_rotation = sampler.Rotation(kPi);
    const Quat mid_rotation =
        root_rotation *
        AngleAxis(sampler.Uniform(-3.0, 3.0), Vec3(0.0, 0.0, 1.0));
    TwoBoneJob job;
    job.root_model.translation = root;
    job.root_model.rotation = root_rotation;
    job.mid_model.translation = root + root_rotation * Vec3(upper, 0, 0);
    job.mid_model.rotation = mid_rotation;
    job.tip_model.translation =
        job.mid_model.translation + mid_rotation * Vec3(lower, 0, 0);
    const double distance = sampler.Uniform(
        std::abs(upper - lower) + kShellMargin, upper + lower - kShellMargin);
    job.target_model = root + distance * sampler.UnitVector();
    if (sampler.Coin()) {
      job.pole_model = root + sampler.Uniform(0.1, 3.0) * sampler.UnitVector();
    }
    Quat root_correction;
    Quat mid_correction;
    SolveReport report;
    job.root_correction = &root_correction;
    job.mid_correction = &mid_correction;
    job.report = &report;
    ASSERT_TRUE(job.Run().ok());

    // Rebuild: root at its place, mid and tip from their (unchanged) local
    // offsets and the corrected local rotations, as matrices.
    Transform root_local = job.root_model;
    Transform mid_local;
    mid_local.translation = Vec3(upper, 0, 0);
    mid_local.rotation = glm::conjugate(root_rotation) * mid_rotation;
    Transform tip_local;
    tip_local.translation = Vec3(lower, 0, 0);
    root_local.rotation = root_local.rotation * root_correction;
    mid_local.rotation = mid_local.rotation * mid_correction;
    const glm::dmat4 tip_matrix =
        Matrix(root_local) * Matrix(mid_local) * Matrix(tip_local);
    const double error = glm::length(Vec3(tip_matrix[3]) - job.target_model);
    stats.max_error = std::max(stats.max_error, error);
    ++stats.cases;
    ASSERT_LE(error, kHitTolerance) << "case " << i;
    ASSERT_TRUE(report.reached);
  }
  std::printf(
      "[ property ] random limbs: %d reachable targets, max error "
      "%.3g m\n",
      stats.cases, stats.max_error);
  RecordProperty("max_error_m", std::to_string(stats.max_error));
}

}  // namespace
}  // namespace ik
