// Property tests of the torque solver (TorqueJob) against FABRIK and CCD on
// the example tail's 13-joint chain (tail_00 -> tail_12, every joint a
// 0.52 rad cone with +-0.2 rad of twist, cap 300, tolerance 1 mm): the same
// seeded targets for all three, from forward kinematics of random poses
// within the limits (tests/core/random_poses.h), answers checked with
// tests/core/independent_checks.h. Each test prints its measurements:
//   - how often each solver (the torque solver damped, its default, and
//     plain) reaches reachable targets, in how many iterations;
//   - with elasticity, how far the largest single-joint bend is below
//     CCD's (the bend spreads along the chain);
//   - with a preferred pose, how much nearer to it the answer stays than
//     FABRIK's (mean joint-angle distance).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "draws.h"
#include "gtest/gtest.h"
#include "ik/solvers/ccd.h"
#include "ik/solvers/fabrik.h"
#include "ik/solvers/torque.h"
#include "independent_checks.h"
#include "random_poses.h"
#include "tail_rig.h"

namespace ik {
namespace {

using ::ik::testing::kHitDistance;
using ::ik::testing::kLengthSlack;
using ::ik::testing::kLimitSlack;
using ::ik::testing::kRepeatEvery;
using ::ik::testing::kSeed;
using ::ik::testing::LimitViolation;
using ::ik::testing::Percentiles;
using ::ik::testing::Summarize;

constexpr int kReachCases = 10000;
constexpr int kShapeCases = 2000;

// Angle of unit quaternion `q`, radians in [0, pi].
double AngleOf(const Quat& q) {
  return 2.0 * std::atan2(glm::length(Vec3(q.x, q.y, q.z)), std::abs(q.w));
}

class TorquePropertyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<Rig> rig = testing::TailRig();
    ASSERT_TRUE(rig.ok()) << rig.status();
    rig_.emplace(*std::move(rig));
    chain_ = rig_->FindChain("tail");
    ASSERT_NE(chain_, nullptr);
    const std::vector<Transform> models =
        testing::ModelTransforms(*rig_, rig_->rest_pose());
    parent_model_ = models[rig_->parents()[chain_->joints[0]]];
    for (const int joint : chain_->joints) {
      const JointDefinition& definition = rig_->joint(joint);
      rest_.push_back(rig_->rest_pose()[joint]);
      constraints_.push_back({&definition.limit, definition.rest.rotation});
    }
    for (size_t k = 1; k < chain_->joints.size(); ++k) {
      rest_lengths_.push_back(
          glm::length(models[chain_->joints[k]].translation -
                      models[chain_->joints[k - 1]].translation));
    }
  }

  // Runs a job of type Job on `locals` (the chain's joints) for `target`.
  template <typename Job>
  SolveReport Solve(std::vector<Transform>& locals, const Vec3& target,
                    const TorqueSettings* settings = nullptr) {
    Job job;
    if constexpr (std::is_same_v<Job, TorqueJob>) {
      if (settings != nullptr) job.settings = *settings;
    }
    job.parent_model = parent_model_;
    job.locals = absl::MakeSpan(locals);
    job.constraints = constraints_;
    job.target_model = target;
    job.max_iterations = chain_->max_iterations;
    job.tolerance = chain_->tolerance;
    job.workspace = &workspace_;
    SolveReport report;
    job.report = &report;
    const absl::Status status = job.Run();
    EXPECT_TRUE(status.ok()) << status;
    return report;
  }

  // Every joint within its limit, bones as long as at rest (by the
  // independent checks); returns the tip's distance from the target.
  double Check(const std::vector<Transform>& locals, const Vec3& target,
               const SolveReport& report, int i) {
    std::vector<Transform> pose(rig_->rest_pose().begin(),
                                rig_->rest_pose().end());
    for (size_t k = 0; k < chain_->joints.size(); ++k) {
      const int joint = chain_->joints[k];
      pose[joint] = locals[k];
      EXPECT_TRUE(IsFinite(locals[k].rotation)) << "case " << i;
      const double violation = LimitViolation(*rig_, joint, locals[k].rotation);
      max_violation_ = std::max(max_violation_, violation);
      EXPECT_LE(violation, kLimitSlack) << "case " << i << ", joint " << k;
    }
    const std::vector<Vec3> world =
        testing::WorldPositions(*rig_, pose, Transform());
    for (size_t k = 1; k < chain_->joints.size(); ++k) {
      const double length =
          glm::length(world[chain_->joints[k]] - world[chain_->joints[k - 1]]);
      EXPECT_NEAR(length, rest_lengths_[k - 1],
                  kLengthSlack * rest_lengths_[k - 1])
          << "case " << i << ", bone " << k;
    }
    const double distance = glm::length(world[chain_->joints.back()] - target);
    EXPECT_NEAR(report.residual, distance, 1e-9) << "case " << i;
    return distance;
  }

  // The largest bend of a turned joint from its rest rotation, radians.
  double LargestBend(const std::vector<Transform>& locals) const {
    double largest = 0.0;
    for (size_t k = 0; k + 1 < locals.size(); ++k) {
      largest = std::max(largest, AngleOf(glm::conjugate(rest_[k].rotation) *
                                          locals[k].rotation));
    }
    return largest;
  }

  // The mean angle between the turned joints' rotations and `preferred`'s.
  static double MeanDistance(const std::vector<Transform>& locals,
                             const std::vector<Transform>& preferred) {
    double sum = 0.0;
    for (size_t k = 0; k + 1 < locals.size(); ++k) {
      sum +=
          AngleOf(glm::conjugate(preferred[k].rotation) * locals[k].rotation);
    }
    return sum / static_cast<double>(locals.size() - 1);
  }

  // The chain's joints of a random pose within the limits.
  std::vector<Transform> RandomPose(std::mt19937_64& engine) const {
    const std::vector<Transform> pose =
        testing::RandomChainPose(*rig_, *chain_, rig_->rest_pose(), engine);
    std::vector<Transform> locals;
    for (const int joint : chain_->joints) locals.push_back(pose[joint]);
    return locals;
  }

  std::optional<Rig> rig_;
  const Chain* chain_ = nullptr;
  Transform parent_model_;
  std::vector<Transform> rest_;
  std::vector<JointConstraint> constraints_;
  std::vector<double> rest_lengths_;
  ChainWorkspace workspace_;
  double max_violation_ = 0.0;
};

struct Tally {
  int hits = 0;
  std::vector<int> iterations;
};

void Print(const char* name, const Tally& tally, int cases) {
  const Percentiles stats = Summarize(tally.iterations);
  std::printf(
      "[ property ] tail %-7s within %g m of %d reachable targets: %.2f%%; "
      "iterations mean %.2f, p99 %d, max %d\n",
      name, kHitDistance, cases, 100.0 * tally.hits / cases, stats.mean,
      stats.p99, stats.max);
}

TEST_F(TorquePropertyTest, ReachesReachableTargetsLikeFabrikAndCcd) {
  std::mt19937_64 engine(kSeed);
  Tally torque, plain, fabrik, ccd;
  TorqueSettings plain_settings;
  plain_settings.damping = 0.0;  // the plain Jacobian-transpose step
  for (int i = 0; i < kReachCases; ++i) {
    const Vec3 target = testing::ReachableTarget(*rig_, *chain_, engine);
    std::vector<Transform> locals = rest_;
    const SolveReport report = Solve<TorqueJob>(locals, target);
    const double distance = Check(locals, target, report, i);
    if (distance <= kHitDistance) ++torque.hits;
    torque.iterations.push_back(report.iterations);
    if (::testing::Test::HasFailure()) return;
    if (i % kRepeatEvery == 0) {
      // Deterministic: the same bits from a workspace another solve left.
      std::vector<Transform> again = rest_;
      const SolveReport repeated = Solve<TorqueJob>(again, target);
      ASSERT_EQ(std::memcmp(locals.data(), again.data(),
                            locals.size() * sizeof(Transform)),
                0)
          << "case " << i;
      ASSERT_EQ(report.iterations, repeated.iterations);
    }
    for (int kind = 0; kind < 3; ++kind) {
      std::vector<Transform> other = rest_;
      const SolveReport other_report =
          kind == 0   ? Solve<TorqueJob>(other, target, &plain_settings)
          : kind == 1 ? Solve<FabrikJob>(other, target)
                      : Solve<CcdJob>(other, target);
      Tally& tally = kind == 0 ? plain : kind == 1 ? fabrik : ccd;
      if (other_report.residual <= kHitDistance) ++tally.hits;
      tally.iterations.push_back(other_report.iterations);
    }
  }
  Print("torque", torque, kReachCases);
  Print("plain", plain, kReachCases);
  Print("fabrik", fabrik, kReachCases);
  Print("ccd", ccd, kReachCases);
  std::printf("[ property ] tail torque largest limit violation %.3g rad\n",
              max_violation_);
  const double rate = static_cast<double>(torque.hits) / kReachCases;
  RecordProperty("torque_hit_rate", std::to_string(rate));
  EXPECT_GE(rate, testing::kRequiredHitRate);
}

// Targets out of reach or beyond what the limits allow, alternately beyond
// the chain's length and anywhere in a box around it: every answer within
// the limits, bones kept, never reported reached when beyond the length.
TEST_F(TorquePropertyTest, HonoursLimitsForTargetsOutOfReach) {
  std::mt19937_64 engine(kSeed + 1);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  const Vec3 base = TransformPoint(parent_model_, rest_[0].translation);
  double reach = 0.0;
  for (const double length : rest_lengths_) reach += length;
  Tally torque, fabrik;
  int reached_beyond = 0;
  for (int i = 0; i < testing::kOutOfReachCases; ++i) {
    Vec3 direction = testing::DrawVec3(unit, engine);
    direction /= std::max(glm::length(direction), 1e-9);
    const bool beyond = i % 2 == 0;
    const Vec3 target =
        beyond ? base + direction * reach * (1.01 + 2.0 * (unit(engine) + 1.0))
               : base + testing::DrawVec3(unit, engine) * reach;
    std::vector<Transform> locals = rest_;
    const SolveReport report = Solve<TorqueJob>(locals, target);
    Check(locals, target, report, i);
    if (beyond && report.reached) ++reached_beyond;
    if (report.reached) ++torque.hits;
    torque.iterations.push_back(report.iterations);
    std::vector<Transform> other = rest_;
    const SolveReport other_report = Solve<FabrikJob>(other, target);
    if (other_report.reached) ++fabrik.hits;
    fabrik.iterations.push_back(other_report.iterations);
    if (::testing::Test::HasFailure()) return;
  }
  const Percentiles stats = Summarize(torque.iterations);
  const Percentiles fabrik_stats = Summarize(fabrik.iterations);
  std::printf(
      "[ property ] tail torque: %d targets out of reach or limits: "
      "iterations mean %.2f, p99 %d, max %d (fabrik mean %.2f, p99 %d); "
      "largest limit violation %.3g rad\n",
      testing::kOutOfReachCases, stats.mean, stats.p99, stats.max,
      fabrik_stats.mean, fabrik_stats.p99, max_violation_);
  EXPECT_EQ(reached_beyond, 0);
}

// Springs towards the rest pose, stiffer at the root: the answer's largest
// single-joint bend against CCD's from the same start, on the targets both
// reach.
TEST_F(TorquePropertyTest, SpreadsTheBendMoreThanCcd) {
  std::vector<TorqueJointSettings> joints(rest_.size());
  for (size_t k = 0; k < joints.size(); ++k) {
    joints[k].elasticity = 1.0;
    joints[k].preferred_rotation = rest_[k].rotation;
  }
  TorqueSettings settings;
  settings.joints = joints;
  settings.root_stiffness = 4.0;
  std::mt19937_64 engine(kSeed + 2);
  double torque_sum = 0.0, plain_sum = 0.0, ccd_sum = 0.0;
  int compared = 0, smaller = 0, torque_hits = 0;
  for (int i = 0; i < kShapeCases; ++i) {
    const Vec3 target = testing::ReachableTarget(*rig_, *chain_, engine);
    std::vector<Transform> locals = rest_;
    const SolveReport report = Solve<TorqueJob>(locals, target, &settings);
    Check(locals, target, report, i);
    if (::testing::Test::HasFailure()) return;
    std::vector<Transform> plain = rest_;
    const SolveReport plain_report = Solve<TorqueJob>(plain, target);
    std::vector<Transform> ccd = rest_;
    const SolveReport ccd_report = Solve<CcdJob>(ccd, target);
    if (report.reached) ++torque_hits;
    if (!report.reached || !ccd_report.reached || !plain_report.reached) {
      continue;
    }
    ++compared;
    const double bend = LargestBend(locals);
    const double ccd_bend = LargestBend(ccd);
    torque_sum += bend;
    plain_sum += LargestBend(plain);
    ccd_sum += ccd_bend;
    if (bend < ccd_bend) ++smaller;
  }
  ASSERT_GT(compared, kShapeCases * 9 / 10);
  const double ratio = torque_sum / ccd_sum;
  std::printf(
      "[ property ] tail elastic torque (elasticity 1, root 4x stiffer) "
      "reached %d/%d; on the %d targets all reach: mean largest bend torque "
      "%.3f rad, torque without springs %.3f rad, ccd %.3f rad; ratio "
      "torque/ccd %.3f; torque smaller on %.1f%%\n",
      torque_hits, kShapeCases, compared, torque_sum / compared,
      plain_sum / compared, ccd_sum / compared, ratio,
      100.0 * smaller / compared);
  RecordProperty("bend_ratio", std::to_string(ratio));
  EXPECT_LT(ratio, 1.0);
}

// Each case: a random preferred pose within the limits and a target from
// another random pose. Both solvers start from the preferred pose (the
// answer should stay near it) or from the rest pose (the springs should
// draw the answer towards it; FABRIK does not know it). Mean joint-angle
// distance of the answers from the preferred pose, on the targets all
// three (elastic torque, torque without springs, FABRIK) reach.
TEST_F(TorquePropertyTest, StaysCloserToThePreferredPoseThanFabrik) {
  std::vector<TorqueJointSettings> joints(rest_.size());
  TorqueSettings settings;
  settings.joints = joints;
  for (const bool from_rest : {false, true}) {
    std::mt19937_64 engine(kSeed + 3);
    double sums[3] = {0.0, 0.0, 0.0};  // torque, without springs, fabrik
    int hits[3] = {0, 0, 0};
    int compared = 0, closer = 0;
    for (int i = 0; i < kShapeCases; ++i) {
      const std::vector<Transform> preferred = RandomPose(engine);
      const Vec3 target = testing::ReachableTarget(*rig_, *chain_, engine);
      for (size_t k = 0; k < joints.size(); ++k) {
        joints[k].elasticity = 4.0;
        joints[k].preferred_rotation = preferred[k].rotation;
      }
      const std::vector<Transform>& start = from_rest ? rest_ : preferred;
      std::vector<Transform> answers[3] = {start, start, start};
      const SolveReport reports[3] = {
          Solve<TorqueJob>(answers[0], target, &settings),
          Solve<TorqueJob>(answers[1], target),
          Solve<FabrikJob>(answers[2], target)};
      Check(answers[0], target, reports[0], i);
      if (::testing::Test::HasFailure()) return;
      bool all = true;
      for (int k = 0; k < 3; ++k) {
        if (reports[k].reached) ++hits[k];
        all = all && reports[k].reached;
      }
      if (!all) continue;
      ++compared;
      double distances[3];
      for (int k = 0; k < 3; ++k) {
        distances[k] = MeanDistance(answers[k], preferred);
        sums[k] += distances[k];
      }
      if (distances[0] < distances[2]) ++closer;
    }
    ASSERT_GT(compared, kShapeCases * 9 / 10);
    std::printf(
        "[ property ] tail preferred pose, start from %s: reached torque "
        "(elasticity 4) %d, without springs %d, fabrik %d of %d; on the %d "
        "all reach, mean joint-angle distance from it: torque %.4f rad, "
        "without springs %.4f rad, fabrik %.4f rad (torque/fabrik %.3f); "
        "torque closer on %.1f%%\n",
        from_rest ? "rest" : "it", hits[0], hits[1], hits[2], kShapeCases,
        compared, sums[0] / compared, sums[1] / compared, sums[2] / compared,
        sums[0] / sums[2], 100.0 * closer / compared);
    RecordProperty(from_rest ? "preferred_ratio_from_rest"
                             : "preferred_ratio_from_preferred",
                   std::to_string(sums[0] / sums[2]));
    EXPECT_LT(sums[0], sums[2]);
    EXPECT_GE(hits[0], kShapeCases * 99 / 100);
  }
}

}  // namespace
}  // namespace ik
