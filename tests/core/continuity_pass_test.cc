// The continuity pass of the iterative solvers (SolveChainJob without a
// swivel, not history_free): once FABRIK, CCD or the torque solver reaches,
// the answer is the chain led from the incoming pose along the shortest arc
// about the chain's start towards the target, then onto it by the torque
// solver's steps with springs back towards where the arc left it. Seeded
// property test on the clavicle arm and the tail, with limits and without:
// from in-limit incoming poses to targets made by other in-limit poses,
// every answer that reaches history-free reaches too, and it ends nearer
// the incoming pose than the history-free answer on average (the sum of
// its joints' squared turns from their incoming rotations, measured here).
// FABRIK's and CCD's passes leave their answers far from the nearest ones:
// the walk ends nearer on average by at least a tenth. The torque
// solver's damped steps from the incoming pose end near a nearest answer
// already: the walk, no further on average. The walk follows the target
// continuously rather than seeking the nearest answer (round the arc, the
// chain's first joints turn most), so one case may end further than the
// history-free answer; none by more than twice.
#include <algorithm>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "chain_paths.h"
#include "gtest/gtest.h"
#include "humanoid_rig.h"
#include "ik/rig/rig.h"
#include "ik/rig/solve_chain.h"
#include "independent_checks.h"
#include "solve_chain_runner.h"
#include "tail_rig.h"

namespace ik {
namespace {

using testing::Turned;

// The sum over the chain's turned joints of the squared angle from the
// incoming rotation to the answer's.
double SquaredTurns(const Chain& chain, const std::vector<Transform>& from,
                    const std::vector<Transform>& to) {
  double sum = 0.0;
  for (int k = 0; k < Turned(chain); ++k) {
    const double angle = testing::RotationAngle(from[chain.joints[k]].rotation,
                                                to[chain.joints[k]].rotation);
    sum += angle * angle;
  }
  return sum;
}

struct PassFigures {
  int cases = 0;
  int nearer = 0;            // relaxed answer nearer the incoming pose
  double ratio_sum = 0.0;    // of relaxed / history-free squared turns
  double worst_ratio = 0.0;  // the largest of those
};

// `cases` seeded goals on `chain_name` with `solver`: the incoming pose and
// the pose that makes the target both drawn within the limits.
PassFigures RelaxAgainstHistoryFree(const Rig& rig, const char* chain_name,
                                    SolverKind solver, int cases,
                                    std::uint64_t seed) {
  const Chain& chain = *rig.FindChain(chain_name);
  std::mt19937_64 engine(seed);
  testing::ChainSolveRunner runner(rig);
  PassFigures figures;
  for (int i = 0; i < cases; ++i) {
    const std::vector<Quat> target_pose =
        testing::InLimitRotations(rig, chain, engine);
    const std::vector<Quat> incoming_pose =
        testing::InLimitRotations(rig, chain, engine);
    const std::vector<Transform> incoming =
        testing::Between(rig, chain, incoming_pose, incoming_pose, 0.0);
    ChainGoal goal;
    goal.chain = &chain;
    goal.solver = solver;
    goal.target_world =
        testing::ModelTransforms(
            rig, testing::Between(rig, chain, target_pose, target_pose,
                                  0.0))[chain.joints.back()]
            .translation;
    std::vector<Transform> free = incoming;
    goal.history_free = true;
    const absl::StatusOr<ChainSolveResult> history_free =
        runner.Solve(goal, Transform(), absl::MakeSpan(free));
    std::vector<Transform> relaxed = incoming;
    goal.history_free = false;
    const absl::StatusOr<ChainSolveResult> answer =
        runner.Solve(goal, Transform(), absl::MakeSpan(relaxed));
    EXPECT_TRUE(history_free.ok() && answer.ok()) << chain_name << " " << i;
    if (!history_free.ok() || !answer.ok()) return figures;
    if (!history_free->report.reached || history_free->report.iterations == 0) {
      continue;
    }
    EXPECT_TRUE(answer->report.reached) << chain_name << " " << i;
    EXPECT_LE(answer->report.residual, chain.tolerance)
        << chain_name << " " << i;
    const double before = SquaredTurns(chain, incoming, free);
    const double after = SquaredTurns(chain, incoming, relaxed);
    ++figures.cases;
    figures.nearer += after <= before;
    const double ratio = before > 0.0 ? after / before : 1.0;
    figures.ratio_sum += ratio;
    figures.worst_ratio = std::max(figures.worst_ratio, ratio);
  }
  return figures;
}

// Every solver on `chain_name`, as above.
void ExpectNearerTheIncomingPose(const Rig& rig, const char* chain_name,
                                 const char* label) {
  for (const SolverKind solver :
       {SolverKind::kFabrik, SolverKind::kCcd, SolverKind::kTorque}) {
    const PassFigures figures =
        RelaxAgainstHistoryFree(rig, chain_name, solver, 300, 7);
    const double mean = figures.ratio_sum / std::max(1, figures.cases);
    std::printf(
        "[ pass ] %s solver %d: %d cases, %d nearer, ratio mean %.3f, "
        "largest %.4f\n",
        label, static_cast<int>(solver), figures.cases, figures.nearer, mean,
        figures.worst_ratio);
    EXPECT_GE(figures.cases, 200) << label;
    EXPECT_LE(figures.worst_ratio, 2.0) << label;
    EXPECT_LE(mean, solver == SolverKind::kTorque ? 1.0 : 0.9) << label;
  }
}

TEST(ContinuityPassTest, AnswersEndNearerTheIncomingPose) {
  absl::StatusOr<Rig> humanoid = testing::HumanoidRig();
  ASSERT_TRUE(humanoid.ok());
  absl::StatusOr<Rig> tail = Rig::Create(testing::TailRigDefinition());
  ASSERT_TRUE(tail.ok());
  ExpectNearerTheIncomingPose(*humanoid, "left_arm_clavicle", "arm");
  ExpectNearerTheIncomingPose(*tail, "tail", "tail");
}

TEST(ContinuityPassTest, FreeChainsEndNearerTheIncomingPose) {
  absl::StatusOr<Rig> humanoid =
      Rig::Create(testing::WithoutLimits(testing::HumanoidRigDefinition()));
  ASSERT_TRUE(humanoid.ok());
  absl::StatusOr<Rig> tail =
      Rig::Create(testing::WithoutLimits(testing::TailRigDefinition()));
  ASSERT_TRUE(tail.ok());
  ExpectNearerTheIncomingPose(*humanoid, "left_arm_clavicle", "arm free");
  ExpectNearerTheIncomingPose(*tail, "tail", "tail free");
}

}  // namespace
}  // namespace ik
