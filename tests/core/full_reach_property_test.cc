// FABRIK and CCD at and near full reach: targets made by poses within the
// limits that leave the chain almost straight (every joint turned within a
// tenth of its limit, so the tip is at 99% or more of the straight chain's
// reach), and targets one joint's turn alone reaches (the rest pose with one
// joint turned within its limit). Every answer passes the shared consistency
// check (solve_chain_runner.h); the tip must end within the chain's tolerance
// for at least 99.9% of them.
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "example_rigs.h"
#include "gtest/gtest.h"
#include "humanoid_rig.h"
#include "ik/rig/solve_chain.h"
#include "independent_checks.h"
#include "random_poses.h"
#include "solve_chain_runner.h"
#include "tail_rig.h"

namespace ik {
namespace {

constexpr int kFullReachCases = 2000;

struct ReachCase {
  const char* rig;
  const char* chain;
  SolverKind solver;
};

std::string CaseName(const ::testing::TestParamInfo<ReachCase>& info) {
  return std::string(info.param.chain) +
         (info.param.solver == SolverKind::kCcd ? "_ccd" : "_fabrik");
}

class FullReachTest : public ::testing::TestWithParam<ReachCase> {
 protected:
  void SetUp() override {
    absl::StatusOr<Rig> rig = testing::ExampleRig(GetParam().rig);
    ASSERT_TRUE(rig.ok()) << rig.status();
    rig_.emplace(*std::move(rig));
    chain_ = rig_->FindChain(GetParam().chain);
    ASSERT_NE(chain_, nullptr);
    rest_.assign(rig_->rest_pose().begin(), rig_->rest_pose().end());
    root_.translation = Vec3(-2.0, 0.1, 4.0);
    root_.rotation = AngleAxis(-0.7, Vec3(0.0, 1.0, 0.0));
  }

  // Solves for the tip of `pose` from the rest pose; true when reached.
  bool Reaches(const std::vector<Transform>& pose, SolverKind* used) {
    ChainGoal goal;
    goal.chain = chain_;
    goal.solver = GetParam().solver;
    goal.target_world =
        testing::WorldPositions(*rig_, pose, root_)[chain_->joints.back()];
    std::vector<Transform> locals = rest_;
    testing::ChainSolveRunner solver(*rig_);
    absl::StatusOr<ChainSolveResult> result =
        solver.Solve(goal, root_, absl::MakeSpan(locals));
    EXPECT_TRUE(result.ok()) << result.status();
    if (!result.ok()) return false;
    *used = result->solver;
    return result->report.reached;
  }

  std::optional<Rig> rig_;
  const Chain* chain_ = nullptr;
  std::vector<Transform> rest_;
  Transform root_;
};

TEST_P(FullReachTest, ReachesNearlyStraightAndOneJointTargets) {
  std::mt19937_64 engine(testing::kSeed + 13);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  int straight_reached = 0;
  int single_reached = 0;
  int switched = 0;
  for (int i = 0; i < kFullReachCases; ++i) {
    SCOPED_TRACE(::testing::Message() << "case " << i);
    // Nearly straight: every joint a tenth of the way to a random in-limit
    // rotation.
    std::vector<Transform> pose = rest_;
    for (size_t k = 0; k + 1 < chain_->joints.size(); ++k) {
      const JointDefinition& joint = rig_->joint(chain_->joints[k]);
      const Quat limited = testing::RandomRotationWithinLimit(joint, engine);
      pose[chain_->joints[k]].rotation =
          glm::normalize(glm::slerp(joint.rest.rotation, limited, 0.1));
    }
    SolverKind used = GetParam().solver;
    straight_reached += Reaches(pose, &used) ? 1 : 0;
    switched += used != GetParam().solver ? 1 : 0;
    // One joint turned within its limit.
    pose = rest_;
    const size_t k =
        static_cast<size_t>(unit(engine) * (chain_->joints.size() - 1));
    pose[chain_->joints[k]].rotation = testing::RandomRotationWithinLimit(
        rig_->joint(chain_->joints[k]), engine);
    single_reached += Reaches(pose, &used) ? 1 : 0;
    switched += used != GetParam().solver ? 1 : 0;
  }
  std::printf(
      "[ property ] %s: nearly straight %d / %d reached, one joint turned "
      "%d / %d reached; %d answers by another solver after a stall\n",
      CaseName({GetParam(), 0}).c_str(), straight_reached, kFullReachCases,
      single_reached, kFullReachCases, switched);
  EXPECT_GE(straight_reached, 0.999 * kFullReachCases);
  EXPECT_GE(single_reached, 0.999 * kFullReachCases);
}

INSTANTIATE_TEST_SUITE_P(
    Chains, FullReachTest,
    ::testing::Values(
        ReachCase{"tail", "tail", SolverKind::kFabrik},
        ReachCase{"tail", "tail", SolverKind::kCcd},
        ReachCase{"humanoid", "left_arm_clavicle", SolverKind::kFabrik},
        ReachCase{"humanoid", "left_arm_clavicle", SolverKind::kCcd}),
    CaseName);

}  // namespace
}  // namespace ik
