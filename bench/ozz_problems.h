// ozz_bench's problems (bench/ozz_bench.cc): the 1,024 seeded arms as ikd's
// and ozz-animation's jobs and goals, the timed solves of one whole goal
// (and of four at once on ikd's side), and the checks of every answer run
// before the timings.
#ifndef IK_BENCH_OZZ_PROBLEMS_H_
#define IK_BENCH_OZZ_PROBLEMS_H_

#include <array>
#include <optional>
#include <vector>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "ik/base/math.h"
#include "ik/rig/rig.h"
#include "ik/rig/solve_chain.h"
#include "ik/solvers/two_bone.h"
#include "ozz/animation/runtime/ik_two_bone_job.h"
#include "ozz/animation/runtime/skeleton.h"
#include "ozz/base/maths/simd_math.h"
#include "ozz/base/maths/simd_quaternion.h"
#include "ozz/base/maths/soa_transform.h"
#include "ozz/base/memory/unique_ptr.h"
#include "ozz_arms.h"

namespace ik::bench {

inline constexpr double kIkdBound = 1e-9;  // metres
inline constexpr double kOzzBound = 1e-4;  // metres
// The crowd's legs come in as animated, some knees within a tenth of a
// degree of straight: IKTwoBoneJob takes their angle as the acos of a float
// cosine near 1, good to about 3e-4 rad (the worst ankle ends 1.3e-4 m off).
inline constexpr double kOzzCrowdBound = 1e-3;  // metres

// Everything the benchmarks solve, built once by main().
struct Problems {
  std::vector<Arm> arms;
  // ikd: one job per arm (the same outputs), the rig and a goal per arm.
  std::vector<std::array<Transform, 3>> models;
  std::vector<TwoBoneJob> ikd_jobs;
  Quat ikd_root_correction;
  Quat ikd_mid_correction;
  SolveReport ikd_report;
  // The same jobs for RunTwoBoneJobs, in groups of two or four: arm i
  // writes to outputs i % 4.
  std::vector<TwoBoneJob> ikd_group_jobs;
  Quat ikd_group_root_corrections[4];
  Quat ikd_group_mid_corrections[4];
  SolveReport ikd_group_reports[4];
  std::optional<Rig> rig;
  std::vector<ChainGoal> goals;
  // ozz: the same, in its types.
  std::vector<std::array<ozz::math::Float4x4, 3>> ozz_models;
  std::vector<ozz::animation::IKTwoBoneJob> ozz_jobs;
  ozz::math::SimdQuaternion ozz_root_correction;
  ozz::math::SimdQuaternion ozz_mid_correction;
  ozz::unique_ptr<ozz::animation::Skeleton> skeleton;
  std::vector<ozz::math::SoaTransform> ozz_locals;
  // Per arm, IKTwoBoneJob's inputs for the whole goal (the joints' model
  // matrices come from LocalToModelJob).
  std::vector<ozz::animation::IKTwoBoneJob> ozz_goal_jobs;
  ozz::math::Float4x4 ozz_goal_models[3];
  // The worst errors found by the checks.
  AnswerErrors ikd_two_bone, ozz_two_bone, ikd_goal, ozz_goal;
};

// The room of four whole goals solved in one RunSolveChainJobs call.
struct GoalQuad {
  ArmPose locals[4];
  SolveChainWorkspace workspaces[4];
  ChainSolveResult results[4];
  SolveChainJob jobs[4];
  const SolveChainJob* pointers[4];
  absl::Status statuses[4];

  GoalQuad() {
    for (int lane = 0; lane < 4; ++lane) {
      jobs[lane].locals = absl::MakeSpan(locals[lane]);
      jobs[lane].workspace = &workspaces[lane];
      jobs[lane].result = &results[lane];
      pointers[lane] = &jobs[lane];
    }
  }
};

// The timed work of one ikd whole goal: `locals` starts as the arm's pose.
absl::Status SolveIkdGoal(const Problems& p, int arm, ArmPose& locals,
                          SolveChainWorkspace& workspace,
                          ChainSolveResult& result);

// The timed work of four ikd whole goals, arms `first` to `first` + 3,
// through RunSolveChainJobs (their two-bone solves in SIMD lanes): each
// pose starts as its arm's.
absl::Status SolveIkdGoalQuad(const Problems& p, int first, GoalQuad& quad);

// The timed work of one ozz whole goal: `locals` starts as the arm's pose.
bool SolveOzzGoal(Problems& p, int arm, ozz::math::SoaTransform& locals);

// Builds the problems of both libraries; false (printed) when the rig or
// the skeleton cannot be built.
bool BuildProblems(Problems& p);

// Solves every arm once with each library, ikd twice, in pairs and in fours
// (whole goals too); records the worst errors in `p`, prints them and
// returns false (printing why) when an answer is off, a solve fails or
// ikd's answers differ in a bit.
bool CheckAnswers(Problems& p);

}  // namespace ik::bench

#endif  // IK_BENCH_OZZ_PROBLEMS_H_
