// Property tests of the chain solvers with joint limits, through PoseSolver
// on the example rigs: FABRIK and CCD on the humanoid's 4-joint
// clavicle-to-wrist arm and the 13-joint tail, and the two-bone solver's
// hinge limit; and FabrikJob without limits on the 3-joint arm and the
// tail. Seeded; reachable targets come from forward kinematics of
// random poses within the limits (tests/core/random_poses.h). The pose is
// checked with forward kinematics by 4x4 matrices and a limit check written
// here, independently of the core's Compose and ik/joint_limits.h.
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
#include "ik/fabrik.h"
#include "ik/solve_chain.h"
#include "random_poses.h"
#include "tail_rig.h"

namespace ik {
namespace {

constexpr int kCases = 10000;
constexpr int kOutOfReachCases = 2000;
constexpr double kHitDistance = 1e-3;  // metres
constexpr double kRequiredHitRate = 0.995;
constexpr double kLimitSlack = 1e-6;   // radians
constexpr double kLengthSlack = 1e-5;  // relative
constexpr int kRepeatEvery = 50;       // determinism check
constexpr uint64_t kSeed = 0xc4a1'05eedULL;

glm::dmat4 Matrix(const Transform& t) {
  return glm::translate(glm::dmat4(1.0), t.translation) *
         glm::mat4_cast(t.rotation) * glm::scale(glm::dmat4(1.0), t.scale);
}

// World positions of every joint, by matrices.
std::vector<Vec3> WorldPositions(const Rig& rig,
                                 const std::vector<Transform>& locals,
                                 const Transform& root) {
  std::vector<glm::dmat4> world(locals.size());
  std::vector<Vec3> positions(locals.size());
  for (size_t i = 0; i < locals.size(); ++i) {
    const int parent = rig.parents()[i];
    world[i] = (parent == kNoParent ? Matrix(root) : world[parent]) *
               Matrix(locals[i]);
    positions[i] = Vec3(world[i][3]);
  }
  return positions;
}

// Angle of unit quaternion `q` about unit `axis` once the part of q that
// tilts `axis` is taken off: build that tilt as an axis-angle rotation and
// read the rest's angle, in (-pi, pi].
double AngleAbout(const Quat& q, const Vec3& axis) {
  const Vec3 turned = q * axis;
  const Vec3 cross = glm::cross(axis, turned);
  const double sine = glm::length(cross);
  Quat tilt = IdentityQuat();
  if (sine > 1e-12) {
    tilt =
        glm::angleAxis(std::atan2(sine, glm::dot(axis, turned)), cross / sine);
  }
  const Quat rest = glm::inverse(tilt) * q;  // about `axis` only
  const double angle =
      2.0 * std::atan2(glm::dot(Vec3(rest.x, rest.y, rest.z), axis), rest.w);
  return std::remainder(angle, 2.0 * kPi);
}

// How far `angle` lies outside [min, max], around the circle.
double OutsideRange(double angle, const AngleRange& range) {
  if (range.max - range.min >= 2.0 * kPi) return 0.0;
  const double from_min = std::remainder(angle - range.min, 2.0 * kPi);
  const double from_max = std::remainder(angle - range.max, 2.0 * kPi);
  if (from_min >= 0.0 && from_min <= range.max - range.min) return 0.0;
  return std::min(std::abs(from_min), std::abs(from_max));
}

// Radians by which joint `index`'s local rotation breaks its limit (0 when
// within), from the rig's definitions: the bone is the rest direction to
// the first child (the limit's axis without one).
double LimitViolation(const Rig& rig, int index, const Quat& local) {
  const JointDefinition& joint = rig.joint(index);
  const Quat relative = glm::inverse(joint.rest.rotation) * local;
  if (joint.limit.kind == JointLimit::Kind::kHinge) {
    const HingeLimit& hinge = joint.limit.hinge;
    const Vec3 axis = glm::normalize(hinge.axis);
    const double off_axis =
        std::acos(std::clamp(glm::dot(relative * axis, axis), -1.0, 1.0));
    return std::max(off_axis,
                    OutsideRange(AngleAbout(relative, axis), hinge.range));
  }
  if (joint.limit.kind != JointLimit::Kind::kBallSocket) return 0.0;
  const BallSocketLimit& ball = joint.limit.ball_socket;
  Vec3 bone = glm::normalize(ball.axis);
  for (int child = index + 1; child < rig.joint_count(); ++child) {
    if (rig.parents()[child] == index) {
      const Vec3 offset = joint.rest.scale * rig.joint(child).rest.translation;
      if (glm::length(offset) >= kMinBoneLength) bone = glm::normalize(offset);
      break;
    }
  }
  const double cone = std::acos(std::clamp(
      glm::dot(relative * bone, glm::normalize(ball.axis)), -1.0, 1.0));
  double violation = std::max(0.0, cone - ball.swing_max);
  if (ball.has_twist && glm::length(relative * bone + bone) > 1e-6) {
    violation = std::max(violation,
                         OutsideRange(AngleAbout(relative, bone), ball.twist));
  }
  return violation;
}

struct Percentiles {
  double mean = 0.0;
  int p99 = 0;
  int max = 0;
};

Percentiles Summarize(std::vector<int> values) {
  Percentiles out;
  std::sort(values.begin(), values.end());
  for (const int value : values) out.mean += value;
  out.mean /= values.size();
  out.p99 = values[(values.size() * 99) / 100];
  out.max = values.back();
  return out;
}

struct ChainCase {
  const char* rig;
  const char* chain;
  SolverKind solver;
};

std::string Name(const ChainCase& chain_case) {
  return std::string(chain_case.chain) +
         (chain_case.solver == SolverKind::kCcd ? "_ccd" : "_fabrik");
}

std::string CaseName(const ::testing::TestParamInfo<ChainCase>& info) {
  return Name(info.param);
}

class ChainPropertyTest : public ::testing::TestWithParam<ChainCase> {
 protected:
  void SetUp() override {
    absl::StatusOr<Rig> rig = std::string(GetParam().rig) == "tail"
                                  ? testing::TailRig()
                                  : testing::HumanoidRig();
    ASSERT_TRUE(rig.ok()) << rig.status();
    rig_.emplace(*std::move(rig));
    chain_ = rig_->FindChain(GetParam().chain);
    ASSERT_NE(chain_, nullptr);
    rest_ = std::vector<Transform>(rig_->rest_pose().begin(),
                                   rig_->rest_pose().end());
    const std::vector<Vec3> rest = WorldPositions(*rig_, rest_, root_);
    for (size_t k = 1; k < chain_->joints.size(); ++k) {
      rest_lengths_.push_back(
          glm::length(rest[chain_->joints[k]] - rest[chain_->joints[k - 1]]));
    }
  }

  ChainGoal Goal(const Vec3& target) const {
    ChainGoal goal;
    goal.chain = chain_;
    goal.solver = GetParam().solver;
    goal.target_world = target;
    return goal;
  }

  // Every joint within its limit, bones as long as at rest, the tip where
  // the result says; returns the tip's distance from the target.
  double CheckPose(const std::vector<Transform>& locals,
                   const ChainSolveResult& result, const Vec3& target, int i) {
    for (const int joint : chain_->joints) {
      EXPECT_TRUE(IsFinite(locals[joint].rotation)) << "case " << i;
      const double violation =
          LimitViolation(*rig_, joint, locals[joint].rotation);
      max_violation_ = std::max(max_violation_, violation);
      EXPECT_LE(violation, kLimitSlack)
          << "case " << i << ": " << rig_->joint(joint).name;
    }
    const std::vector<Vec3> world = WorldPositions(*rig_, locals, root_);
    for (size_t k = 1; k < chain_->joints.size(); ++k) {
      const double length =
          glm::length(world[chain_->joints[k]] - world[chain_->joints[k - 1]]);
      EXPECT_NEAR(length, rest_lengths_[k - 1],
                  kLengthSlack * rest_lengths_[k - 1])
          << "case " << i << ", bone " << k;
    }
    const double distance = glm::length(world[chain_->joints.back()] - target);
    EXPECT_NEAR(result.report.residual, distance, 1e-9) << "case " << i;
    if (std::abs(distance - chain_->tolerance) > 1e-9) {
      EXPECT_EQ(result.report.reached, distance <= chain_->tolerance)
          << "case " << i;
    }
    return distance;
  }

  std::optional<Rig> rig_;
  const Chain* chain_ = nullptr;
  // A character standing somewhere, turned: world != model space.
  const Transform root_ = [] {
    Transform root;
    root.translation = Vec3(3.0, 0.2, -7.0);
    root.rotation = AngleAxis(2.0, Vec3(0.0, 1.0, 0.0));
    return root;
  }();
  std::vector<Transform> rest_;
  std::vector<double> rest_lengths_;
  double max_violation_ = 0.0;
};

TEST_P(ChainPropertyTest, ReachesReachableTargetsWithinTheCap) {
  std::mt19937_64 engine(kSeed);
  PoseSolver solver(*rig_);
  PoseSolver second_solver(*rig_);
  int hits = 0;
  double worst = 0.0;
  std::vector<int> iterations;
  for (int i = 0; i < kCases; ++i) {
    const Vec3 target =
        TransformPoint(root_, testing::ReachableTarget(*rig_, *chain_, engine));
    const ChainGoal goal = Goal(target);
    std::vector<Transform> locals = rest_;
    absl::StatusOr<ChainSolveResult> result =
        solver.Solve(goal, root_, absl::MakeSpan(locals));
    ASSERT_TRUE(result.ok()) << "case " << i << ": " << result.status();
    ASSERT_EQ(result->solver, GetParam().solver);
    ASSERT_LE(result->report.iterations, chain_->max_iterations);
    const double distance = CheckPose(locals, *result, target, i);
    if (distance <= kHitDistance) ++hits;
    worst = std::max(worst, distance);
    iterations.push_back(result->report.iterations);
    if (::testing::Test::HasFailure()) return;

    if (i % kRepeatEvery == 0) {
      // The same request on another solver (its workspace dirty from other
      // goals): the same bits.
      std::vector<Transform> again = rest_;
      absl::StatusOr<ChainSolveResult> repeated =
          second_solver.Solve(goal, root_, absl::MakeSpan(again));
      ASSERT_TRUE(repeated.ok());
      ASSERT_EQ(std::memcmp(locals.data(), again.data(),
                            locals.size() * sizeof(Transform)),
                0)
          << "case " << i;
      ASSERT_EQ(std::memcmp(&result->report.residual,
                            &repeated->report.residual, sizeof(double)),
                0);
      ASSERT_EQ(result->report.iterations, repeated->report.iterations);
      ASSERT_EQ(result->stop_reason, repeated->stop_reason);
      ASSERT_EQ(result->limited_joints, repeated->limited_joints);
    }
  }
  const double rate = static_cast<double>(hits) / kCases;
  const Percentiles stats = Summarize(iterations);
  std::printf(
      "[ property ] %s: within %g m of %d reachable targets: %.2f%% "
      "(cap %d, tolerance %g m); iterations mean %.2f, p99 %d, max %d; "
      "worst miss %.3g m; largest limit violation %.3g rad\n",
      Name(GetParam()).c_str(), kHitDistance, kCases, 100.0 * rate,
      chain_->max_iterations, chain_->tolerance, stats.mean, stats.p99,
      stats.max, worst, max_violation_);
  RecordProperty("hit_rate", std::to_string(rate));
  RecordProperty("iterations_mean", std::to_string(stats.mean));
  RecordProperty("iterations_p99", std::to_string(stats.p99));
  EXPECT_GE(rate, kRequiredHitRate);
}

TEST_P(ChainPropertyTest, HonoursLimitsForTargetsOutOfReach) {
  std::mt19937_64 engine(kSeed + 1);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  PoseSolver solver(*rig_);
  const Vec3 base = WorldPositions(*rig_, rest_, root_)[chain_->joints[0]];
  double reach = 0.0;
  for (const double length : rest_lengths_) reach += length;
  for (int i = 0; i < kOutOfReachCases; ++i) {
    // Alternately beyond the chain's length, and anywhere in a box around
    // it (mostly outside what the limits allow).
    Vec3 direction(unit(engine), unit(engine), unit(engine));
    direction /= std::max(glm::length(direction), 1e-9);
    const bool beyond = i % 2 == 0;
    const Vec3 target =
        beyond ? base + direction * reach * (1.01 + 2.0 * (unit(engine) + 1.0))
               : base + Vec3(unit(engine), unit(engine), unit(engine)) * reach;
    std::vector<Transform> locals = rest_;
    absl::StatusOr<ChainSolveResult> result =
        solver.Solve(Goal(target), root_, absl::MakeSpan(locals));
    ASSERT_TRUE(result.ok()) << "case " << i << ": " << result.status();
    CheckPose(locals, *result, target, i);
    if (beyond) {
      EXPECT_FALSE(result->report.reached) << "case " << i;
      EXPECT_NE(result->stop_reason, StopReason::kReached) << "case " << i;
    }
    if (::testing::Test::HasFailure()) return;
  }
  std::printf(
      "[ property ] %s: %d targets out of reach or limits: largest limit "
      "violation %.3g rad\n",
      Name(GetParam()).c_str(), kOutOfReachCases, max_violation_);
}

INSTANTIATE_TEST_SUITE_P(
    Chains, ChainPropertyTest,
    ::testing::Values(
        ChainCase{"humanoid", "left_arm_clavicle", SolverKind::kFabrik},
        ChainCase{"humanoid", "left_arm_clavicle", SolverKind::kCcd},
        ChainCase{"tail", "tail", SolverKind::kFabrik},
        ChainCase{"tail", "tail", SolverKind::kCcd}),
    CaseName);

// FABRIK without limits (FabrikJob with no constraints; the path that
// iterates on positions alone and aims the chain first), from the rest pose
// to the same kind of reachable targets: the 3-joint shoulder-to-wrist arm
// and the tail, each bone kept, the tip within the tolerance, the report
// measuring the answer.
TEST(FabrikWithoutLimitsPropertyTest, ReachesReachableTargets) {
  for (const bool tail : {false, true}) {
    absl::StatusOr<Rig> rig =
        tail ? testing::TailRig() : testing::HumanoidRig();
    ASSERT_TRUE(rig.ok()) << rig.status();
    const Chain* chain = rig->FindChain(tail ? "tail" : "left_arm");
    ASSERT_NE(chain, nullptr);
    const std::vector<Transform> models =
        testing::ModelTransforms(*rig, rig->rest_pose());
    const int parent = rig->parents()[chain->joints[0]];
    std::vector<Transform> rest;
    for (const int joint : chain->joints) {
      rest.push_back(rig->rest_pose()[joint]);
    }
    std::vector<double> lengths;
    for (size_t k = 1; k < rest.size(); ++k) {
      lengths.push_back(glm::length(rest[k].translation));
    }
    std::mt19937_64 engine(kSeed + 2);
    ChainWorkspace workspace;
    SolveReport report;
    FabrikJob job;
    job.parent_model = parent == kNoParent ? Transform() : models[parent];
    job.tolerance = kHitDistance;
    job.max_iterations = 300;
    job.workspace = &workspace;
    job.report = &report;
    int hits = 0;
    std::vector<int> iterations;
    for (int i = 0; i < kCases; ++i) {
      std::vector<Transform> locals = rest;
      job.locals = absl::MakeSpan(locals);
      job.target_model = testing::ReachableTarget(*rig, *chain, engine);
      ASSERT_TRUE(job.Run().ok()) << "case " << i;
      // The answer by matrices, from the parent's model transform.
      glm::dmat4 world = Matrix(job.parent_model);
      Vec3 previous(0.0);
      for (size_t k = 0; k < locals.size(); ++k) {
        world = world * Matrix(locals[k]);
        const Vec3 position(world[3]);
        if (k > 0) {
          ASSERT_NEAR(glm::length(position - previous), lengths[k - 1],
                      kLengthSlack * lengths[k - 1])
              << "case " << i << ", bone " << k;
        }
        previous = position;
      }
      const double distance = glm::length(previous - job.target_model);
      ASSERT_NEAR(report.residual, distance, 1e-9) << "case " << i;
      if (distance <= kHitDistance) ++hits;
      iterations.push_back(report.iterations);
    }
    const double rate = static_cast<double>(hits) / kCases;
    const Percentiles stats = Summarize(iterations);
    std::printf(
        "[ property ] %s_fabrik without limits: within %g m of %d reachable "
        "targets: %.2f%%; iterations mean %.2f, p99 %d, max %d\n",
        tail ? "tail" : "left_arm", kHitDistance, kCases, 100.0 * rate,
        stats.mean, stats.p99, stats.max);
    EXPECT_GE(rate, kRequiredHitRate) << (tail ? "tail" : "left_arm");
  }
}

// Targets of the clavicle arm's seeded sequence above where FABRIK's
// passes stall against the shoulder's limits (1 to 72 iterations in, found
// with the CCD sweeps switched off): FABRIK reaches them by finishing with
// CCD sweeps within the chain's iteration cap.
TEST(FabrikStallTest, FinishesWithCcdSweepsWhereThePassesStall) {
  absl::StatusOr<Rig> rig = testing::HumanoidRig();
  ASSERT_TRUE(rig.ok()) << rig.status();
  const Chain& chain = *rig->FindChain("left_arm_clavicle");
  const std::vector<Transform> rest(rig->rest_pose().begin(),
                                    rig->rest_pose().end());
  constexpr int kStalls[] = {115, 751, 771, 891, 960, 971, 1060, 1209};
  // As ChainPropertyTest places the character.
  Transform root;
  root.translation = Vec3(3.0, 0.2, -7.0);
  root.rotation = AngleAxis(2.0, Vec3(0.0, 1.0, 0.0));
  std::mt19937_64 engine(kSeed);
  PoseSolver solver(*rig);
  int next = 0;
  for (const int stall : kStalls) {
    Vec3 target;
    for (; next <= stall; ++next) {
      target =
          TransformPoint(root, testing::ReachableTarget(*rig, chain, engine));
    }
    ChainGoal goal;
    goal.chain = &chain;
    goal.solver = SolverKind::kFabrik;
    goal.target_world = target;
    std::vector<Transform> locals = rest;
    absl::StatusOr<ChainSolveResult> result =
        solver.Solve(goal, root, absl::MakeSpan(locals));
    ASSERT_TRUE(result.ok()) << result.status();
    EXPECT_TRUE(result->report.reached)
        << "case " << stall << ": " << result->report.residual;
    EXPECT_LE(result->report.iterations, chain.max_iterations);
    for (const int joint : chain.joints) {
      EXPECT_LE(LimitViolation(*rig, joint, locals[joint].rotation),
                kLimitSlack)
          << "case " << stall;
    }
  }
}

// The two-bone solver on the humanoid's limbs: its middle joint's hinge
// bounds the bend (targets too near the root leave the limb folded as far
// as the hinge allows, and say so), and no answer breaks a limit.
class TwoBoneLimitPropertyTest : public ::testing::TestWithParam<const char*> {
};

TEST_P(TwoBoneLimitPropertyTest, ClampsTheHingeAndReportsIt) {
  absl::StatusOr<Rig> rig = testing::HumanoidRig();
  ASSERT_TRUE(rig.ok());
  const Chain& chain = *rig->FindChain(GetParam());
  const int mid = chain.joints[1];
  const HingeLimit& hinge = rig->joint(mid).limit.hinge;
  const std::vector<Transform> rest(rig->rest_pose().begin(),
                                    rig->rest_pose().end());
  const std::vector<Vec3> rest_world = WorldPositions(*rig, rest, Transform());
  const double upper =
      glm::length(rest_world[chain.joints[1]] - rest_world[chain.joints[0]]);
  const double lower =
      glm::length(rest_world[chain.joints[2]] - rest_world[chain.joints[1]]);
  // |root - tip| with the hinge at its most folded (max) angle, the rest
  // bend included: the bones then meet at pi - (max + rest bend).
  const double rest_bend =
      kPi - std::acos(glm::dot(glm::normalize(rest_world[chain.joints[0]] -
                                              rest_world[chain.joints[1]]),
                               glm::normalize(rest_world[chain.joints[2]] -
                                              rest_world[chain.joints[1]])));
  const double fold = hinge.range.max + rest_bend;
  const double nearest = std::sqrt(upper * upper + lower * lower -
                                   2.0 * upper * lower * std::cos(kPi - fold));

  std::mt19937_64 engine(kSeed + 2);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  PoseSolver solver(*rig);
  int clamped = 0;
  int reached = 0;
  double max_violation = 0.0;
  for (int i = 0; i < kCases; ++i) {
    // Half too near the root (inside the folded limb's reach), half from
    // poses within the limits.
    const bool too_near = i % 2 == 0;
    Vec3 target;
    if (too_near) {
      Vec3 direction(unit(engine), unit(engine), unit(engine));
      direction /= std::max(glm::length(direction), 1e-9);
      target = rest_world[chain.joints[0]] +
               direction * (0.9 * nearest * (unit(engine) + 1.0) / 2.0);
    } else {
      target = testing::ReachableTarget(*rig, chain, engine);
    }
    ChainGoal goal;
    goal.chain = &chain;
    goal.target_world = target;
    std::vector<Transform> locals = rest;
    absl::StatusOr<ChainSolveResult> result =
        solver.Solve(goal, Transform(), absl::MakeSpan(locals));
    ASSERT_TRUE(result.ok()) << result.status();
    ASSERT_EQ(result->solver, SolverKind::kTwoBone);
    for (const int joint : chain.joints) {
      const double violation =
          LimitViolation(*rig, joint, locals[joint].rotation);
      max_violation = std::max(max_violation, violation);
      ASSERT_LE(violation, kLimitSlack) << "case " << i;
    }
    const bool mid_limited =
        std::find(result->limited_joints.begin(), result->limited_joints.end(),
                  mid) != result->limited_joints.end();
    if (too_near) {
      ASSERT_FALSE(result->report.reached) << "case " << i;
      ASSERT_EQ(result->stop_reason, StopReason::kOutOfReach);
      ASSERT_TRUE(mid_limited) << "case " << i;
      const double angle = AngleAbout(
          glm::inverse(rig->joint(mid).rest.rotation) * locals[mid].rotation,
          hinge.axis);
      ASSERT_NEAR(angle, hinge.range.max, 1e-9) << "case " << i;
      ++clamped;
    } else if (result->report.reached) {
      ++reached;
    }
  }
  std::printf(
      "[ property ] two-bone %s: %d targets too near clamped at the hinge's "
      "end and reported; %d of %d targets from poses within the limits "
      "reached; largest limit violation %.3g rad\n",
      GetParam(), clamped, reached, kCases / 2, max_violation);
}

INSTANTIATE_TEST_SUITE_P(Limbs, TwoBoneLimitPropertyTest,
                         ::testing::Values("left_arm", "left_leg"),
                         [](const ::testing::TestParamInfo<const char*>& info) {
                           return std::string(info.param);
                         });

}  // namespace
}  // namespace ik
