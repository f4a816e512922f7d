// RunSolveChainJobs (ik/rig/solve_chain.h): many goals in one call, their
// two-bone limbs side by side in SIMD lanes, give each goal what its own
// Run() gives, one after the other, bit for bit. Seeded batches of the
// humanoid's goals, with its joint limits and without them, on poses
// animated within and beyond the limits, some of them shared by several
// goals (which must then see each other's answers), some sharing a
// workspace or a result; every solver, poles, swivels, orientations,
// targets out of reach and failing goals.
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/types/span.h"
#include "draws.h"
#include "goal_draws.h"
#include "gtest/gtest.h"
#include "humanoid_rig.h"
#include "ik/rig/solve_chain.h"
#include "random_poses.h"

namespace ik {
namespace {

const Rig& LimitedRig() {
  static const Rig* const rig = [] {
    absl::StatusOr<Rig> created = testing::HumanoidRig();
    if (!created.ok()) std::abort();
    return new Rig(*std::move(created));
  }();
  return *rig;
}

// The humanoid without joint limits: every middle joint free, so its goals
// bend in the incoming limb's plane.
const Rig& FreeRig() {
  static const Rig* const rig = [] {
    RigDefinition definition = testing::HumanoidRigDefinition();
    for (JointDefinition& joint : definition.joints) {
      joint.limit = testing::NoLimit();
    }
    absl::StatusOr<Rig> created = Rig::Create(std::move(definition));
    if (!created.ok()) std::abort();
    return new Rig(*std::move(created));
  }();
  return *rig;
}

// A seeded batch: poses, goals and jobs, some jobs sharing a pose, a
// workspace or a result.
struct Batch {
  Batch(const Rig& rig, std::uint64_t seed) {
    std::mt19937_64 engine(seed);
    std::uniform_real_distribution<double> unit(-1.0, 1.0);
    std::uniform_int_distribution<int> pick(0, 99);
    const int count = 1 + pick(engine) % 13;
    // Most jobs have a pose of their own; some share one.
    const int pose_count = pick(engine) < 70 ? count : 1 + pick(engine) % count;
    poses.resize(pose_count);
    roots.resize(pose_count);
    for (int p = 0; p < pose_count; ++p) {
      poses[p].assign(rig.rest_pose().begin(), rig.rest_pose().end());
      const bool beyond = pick(engine) < 30;
      for (int j = 0; j < rig.joint_count(); ++j) {
        if (pick(engine) < 50) continue;
        poses[p][j].rotation =
            beyond ? testing::RandomRotationBeyondLimit(rig.joint(j), engine)
                   : testing::RandomRotationWithinLimit(rig.joint(j), engine);
      }
      roots[p].translation = testing::DrawVec3(unit, engine);
      roots[p].rotation = glm::normalize(testing::DrawQuat(unit, engine));
    }
    goals.resize(count);
    workspaces.resize(count);
    results.resize(count);
    jobs.resize(count);
    for (int k = 0; k < count; ++k) {
      // In the world of the first pose's root.
      ChainGoal& goal = goals[k] = testing::DrawHumanoidGoal(rig, k, engine);
      goal.target_world = TransformPoint(roots[0], goal.target_world);
      if (goal.pole_world.has_value()) {
        goal.pole_world = TransformPoint(roots[0], *goal.pole_world);
      }
    }
    for (int k = 0; k < count; ++k) {
      const int p = pick(engine) % pose_count;
      SolveChainJob& job = jobs[k];
      job.rig = &rig;
      job.goal = &goals[k];
      job.root = roots[p];
      job.locals = absl::MakeSpan(poses[p]);
      job.workspace = &workspaces[pick(engine) < 10 ? 0 : k];
      job.result = &results[pick(engine) < 5 ? 0 : k];
      if (pick(engine) < 3) job.workspace = nullptr;  // fails Validate
    }
  }

  // Moves the jobs onto this batch's own copies (after a copy).
  void Rebase(const Batch& from) {
    for (size_t k = 0; k < jobs.size(); ++k) {
      const SolveChainJob& other = from.jobs[k];
      for (size_t p = 0; p < poses.size(); ++p) {
        if (other.locals.data() == from.poses[p].data()) {
          jobs[k].locals = absl::MakeSpan(poses[p]);
        }
      }
      jobs[k].goal = &goals[k];
      if (other.workspace != nullptr) {
        jobs[k].workspace = &workspaces[other.workspace - &from.workspaces[0]];
      }
      jobs[k].result = &results[other.result - &from.results[0]];
    }
  }

  std::vector<std::vector<Transform>> poses;
  std::vector<Transform> roots;
  std::vector<ChainGoal> goals;
  std::vector<SolveChainWorkspace> workspaces;
  std::vector<ChainSolveResult> results;
  std::vector<SolveChainJob> jobs;
};

// The bytes of a goal's answer.
std::string AnswerBytes(const ChainSolveResult& result) {
  std::string out;
  const auto put = [&out](const auto& value) {
    out.append(reinterpret_cast<const char*>(&value), sizeof(value));
  };
  put(result.tip_world);
  put(result.report.residual);
  put(result.report.reached);
  put(result.report.iterations);
  put(result.report.tip_model);
  put(result.report.branch_switch);
  put(result.solver);
  put(result.stop_reason);
  put(result.singularity_angle);
  put(result.near_singularity);
  for (const int joint : result.limited_joints) put(joint);
  return out;
}

bool SameBits(const std::vector<Transform>& a,
              const std::vector<Transform>& b) {
  return a.size() == b.size() &&
         std::memcmp(a.data(), b.data(), a.size() * sizeof(Transform)) == 0;
}

std::vector<const SolveChainJob*> Pointers(const Batch& batch) {
  std::vector<const SolveChainJob*> pointers;
  for (const SolveChainJob& job : batch.jobs) pointers.push_back(&job);
  return pointers;
}

TEST(SolveChainJobsTest, EveryGoalGetsWhatItsOwnRunGivesInOrderBitForBit) {
  int two_bone_solved = 0;
  int shared_poses = 0;
  int failed = 0;
  for (const Rig* rig : {&LimitedRig(), &FreeRig()}) {
    for (std::uint64_t seed = 1; seed <= 300; ++seed) {
      Batch lanes(*rig, seed);
      Batch alone = lanes;
      alone.Rebase(lanes);
      std::vector<absl::Status> statuses(lanes.jobs.size());
      ASSERT_TRUE(
          RunSolveChainJobs(Pointers(lanes), absl::MakeSpan(statuses)).ok());
      for (size_t k = 0; k < alone.jobs.size(); ++k) {
        const absl::Status status = alone.jobs[k].Run();
        SCOPED_TRACE(absl::StrCat("seed ", seed, ", job ", k));
        ASSERT_EQ(statuses[k], status);
        if (!status.ok()) {
          ++failed;
          continue;
        }
        if (lanes.results[k].solver == SolverKind::kTwoBone) {
          ++two_bone_solved;
        }
      }
      shared_poses += lanes.poses.size() < lanes.jobs.size() ? 1 : 0;
      for (size_t p = 0; p < lanes.poses.size(); ++p) {
        ASSERT_TRUE(SameBits(lanes.poses[p], alone.poses[p]))
            << "seed " << seed << ", pose " << p;
      }
      for (size_t k = 0; k < lanes.results.size(); ++k) {
        ASSERT_EQ(AnswerBytes(lanes.results[k]), AnswerBytes(alone.results[k]))
            << "seed " << seed << ", result " << k;
      }
    }
  }
  // Every kind of batch was drawn, and the lanes had work.
  EXPECT_GT(two_bone_solved, 1500);
  EXPECT_GT(shared_poses, 100);
  EXPECT_GT(failed, 50);
}

TEST(SolveChainJobsTest, RefusesMismatchedSpansAndNullJobsRunningNothing) {
  Batch batch(LimitedRig(), 7);
  const std::vector<std::vector<Transform>> poses = batch.poses;
  std::vector<const SolveChainJob*> pointers = Pointers(batch);
  std::vector<absl::Status> statuses(pointers.size() + 1);
  absl::Status status = RunSolveChainJobs(pointers, absl::MakeSpan(statuses));
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(), absl::StrCat("statuses: ", pointers.size() + 1,
                                           " for ", pointers.size(), " jobs"));
  statuses.resize(pointers.size());
  pointers.back() = nullptr;
  status = RunSolveChainJobs(pointers, absl::MakeSpan(statuses));
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(),
            absl::StrCat("jobs[", pointers.size() - 1, "]: null"));
  for (size_t p = 0; p < poses.size(); ++p) {
    EXPECT_TRUE(SameBits(batch.poses[p], poses[p]));
  }
  EXPECT_TRUE(RunSolveChainJobs({}, {}).ok());
}

}  // namespace
}  // namespace ik
