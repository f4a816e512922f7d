// ozz_bench's problems and checks (ozz_problems.h).
#include "ozz_problems.h"

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <utility>

#include "absl/status/statusor.h"
#include "ozz/animation/runtime/local_to_model_job.h"

namespace ik::bench {

namespace om = ::ozz::math;
namespace oa = ::ozz::animation;

namespace {

constexpr std::uint64_t kSeed = 18;

}  // namespace

absl::Status SolveIkdGoal(const Problems& p, int arm, ArmPose& locals,
                          SolveChainWorkspace& workspace,
                          ChainSolveResult& result) {
  locals = p.arms[arm].locals;
  SolveChainJob job;
  job.rig = &*p.rig;
  job.goal = &p.goals[arm];
  job.locals = absl::MakeSpan(locals);
  job.workspace = &workspace;
  job.result = &result;
  return job.Run();
}

absl::Status SolveIkdGoalQuad(const Problems& p, int first, GoalQuad& quad) {
  for (int lane = 0; lane < 4; ++lane) {
    quad.locals[lane] = p.arms[first + lane].locals;
    quad.jobs[lane].rig = &*p.rig;
    quad.jobs[lane].goal = &p.goals[first + lane];
  }
  return RunSolveChainJobs(quad.pointers, absl::MakeSpan(quad.statuses));
}

bool SolveOzzGoal(Problems& p, int arm, om::SoaTransform& locals) {
  locals = p.ozz_locals[arm];
  oa::LocalToModelJob forward;
  forward.skeleton = p.skeleton.get();
  forward.input = ozz::span<const om::SoaTransform>(&locals, 1);
  forward.output = ozz::span<om::Float4x4>(p.ozz_goal_models, 3);
  if (!forward.Run() || !p.ozz_goal_jobs[arm].Run()) return false;
  // Both corrections in one SoA multiply: shoulder in lane 0, elbow in 1.
  const om::SimdFloat4 identity = om::simd_float4::w_axis();
  const om::SimdFloat4 corrections[4] = {p.ozz_root_correction.xyzw,
                                         p.ozz_mid_correction.xyzw, identity,
                                         identity};
  om::SimdFloat4 soa[4];
  om::Transpose4x4(corrections, soa);
  locals.rotation =
      locals.rotation * om::SoaQuaternion::Load(soa[0], soa[1], soa[2], soa[3]);
  return forward.Run();
}

bool BuildProblems(Problems& p) {
  p.arms = MakeArms(kSeed);
  absl::StatusOr<Rig> rig = MakeArmRig();
  if (rig.ok()) p.skeleton = MakeSkeleton(*rig);
  if (!rig.ok() || p.skeleton == nullptr || p.skeleton->num_joints() != 3) {
    std::fprintf(stderr, "FAIL: building the arm: %s\n",
                 rig.status().ToString().c_str());
    return false;
  }
  p.rig = *std::move(rig);
  const Chain* chain = p.rig->FindChain("arm");
  for (const Arm& arm : p.arms) {
    p.models.push_back(ArmModels(arm.locals));
    TwoBoneJob job;
    job.root_model = p.models.back()[0];
    job.mid_model = p.models.back()[1];
    job.tip_model = p.models.back()[2];
    job.target_model = arm.target_model;
    job.pole_model = arm.pole_model;
    job.root_correction = &p.ikd_root_correction;
    job.mid_correction = &p.ikd_mid_correction;
    job.report = &p.ikd_report;
    p.ikd_jobs.push_back(job);
    const int lane = static_cast<int>(p.ikd_group_jobs.size() % 4);
    job.root_correction = &p.ikd_group_root_corrections[lane];
    job.mid_correction = &p.ikd_group_mid_corrections[lane];
    job.report = &p.ikd_group_reports[lane];
    p.ikd_group_jobs.push_back(job);
    ChainGoal goal;
    goal.chain = chain;
    goal.target_world = arm.target_model;
    goal.pole_world = arm.pole_model;
    p.goals.push_back(goal);

    oa::IKTwoBoneJob ozz_job;
    ozz_job.target = ToSimd(arm.target_model);
    ozz_job.pole_vector = ToSimd(arm.pole_model - arm.locals[0].translation);
    ozz_job.mid_axis = ToSimd(arm.opening_axis_local);
    ozz_job.start_joint_correction = &p.ozz_root_correction;
    ozz_job.mid_joint_correction = &p.ozz_mid_correction;
    ozz_job.start_joint = &p.ozz_goal_models[0];
    ozz_job.mid_joint = &p.ozz_goal_models[1];
    ozz_job.end_joint = &p.ozz_goal_models[2];
    p.ozz_goal_jobs.push_back(ozz_job);
    p.ozz_locals.push_back(ToSoa(arm.locals));
    p.ozz_models.push_back({ToMatrix(p.models.back()[0]),
                            ToMatrix(p.models.back()[1]),
                            ToMatrix(p.models.back()[2])});
  }
  // Pointers into ozz_models only once it stops growing.
  for (int i = 0; i < kArmCount; ++i) {
    oa::IKTwoBoneJob job = p.ozz_goal_jobs[i];
    job.start_joint = &p.ozz_models[i][0];
    job.mid_joint = &p.ozz_models[i][1];
    job.end_joint = &p.ozz_models[i][2];
    p.ozz_jobs.push_back(job);
  }
  return true;
}

namespace {

// Solves that failed and arms whose answers differed in a bit.
struct CheckCounts {
  int failed_solves = 0;
  int different_bits = 0;
};

// RunTwoBoneJobs, `size` (2 or 4) at a time: each arm Run's bits.
void CheckGroups(Problems& p, int size, CheckCounts& counts) {
  for (int i = 0; i < kArmCount; i += size) {
    absl::Status statuses[4];
    if (!RunTwoBoneJobs(absl::MakeConstSpan(&p.ikd_group_jobs[i], size),
                        absl::MakeSpan(statuses, size))
             .ok()) {
      ++counts.failed_solves;
    }
    for (int lane = 0; lane < size; ++lane) {
      if (!statuses[lane].ok() || !p.ikd_jobs[i + lane].Run().ok()) {
        ++counts.failed_solves;
      }
      const int out = (i + lane) % 4;  // where arm i + lane writes
      if (std::memcmp(&p.ikd_root_correction,
                      &p.ikd_group_root_corrections[out], sizeof(Quat)) != 0 ||
          std::memcmp(&p.ikd_mid_correction, &p.ikd_group_mid_corrections[out],
                      sizeof(Quat)) != 0) {
        ++counts.different_bits;
      }
    }
  }
}

// ikd's whole goals four at a time: each arm's pose has the bits of its
// goal solved alone.
void CheckGoalQuads(const Problems& p, CheckCounts& counts) {
  GoalQuad quad;
  SolveChainWorkspace workspace;
  ChainSolveResult result;
  for (int i = 0; i < kArmCount; i += 4) {
    if (!SolveIkdGoalQuad(p, i, quad).ok()) ++counts.failed_solves;
    for (int lane = 0; lane < 4; ++lane) {
      ArmPose alone;
      if (!quad.statuses[lane].ok() ||
          !SolveIkdGoal(p, i + lane, alone, workspace, result).ok()) {
        ++counts.failed_solves;
      }
      if (std::memcmp(&alone, &quad.locals[lane], sizeof(ArmPose)) != 0) {
        ++counts.different_bits;
      }
    }
  }
}

// Each arm solved by ikd's two-bone job and whole goal (each twice: the
// same bits) and by ozz's; the worst errors into `p`.
void CheckArms(Problems& p, CheckCounts& counts) {
  SolveChainWorkspace workspace;
  ChainSolveResult result;
  for (int i = 0; i < kArmCount; ++i) {
    const Arm& arm = p.arms[i];
    // ikd's two-bone job, twice: the same bits.
    if (!p.ikd_jobs[i].Run().ok()) ++counts.failed_solves;
    const Quat root = p.ikd_root_correction, mid = p.ikd_mid_correction;
    if (!p.ikd_jobs[i].Run().ok()) ++counts.failed_solves;
    if (std::memcmp(&root, &p.ikd_root_correction, sizeof(Quat)) != 0 ||
        std::memcmp(&mid, &p.ikd_mid_correction, sizeof(Quat)) != 0) {
      ++counts.different_bits;
    }
    CheckAnswer(arm, Corrected(arm.locals, root, mid), p.ikd_two_bone);
    // ikd's whole goal, twice from the same start: the same bits.
    ArmPose first, second;
    if (!SolveIkdGoal(p, i, first, workspace, result).ok() ||
        !SolveIkdGoal(p, i, second, workspace, result).ok()) {
      ++counts.failed_solves;
    }
    if (std::memcmp(&first, &second, sizeof(ArmPose)) != 0) {
      ++counts.different_bits;
    }
    CheckAnswer(arm, first, p.ikd_goal);
    // ozz's.
    if (!p.ozz_jobs[i].Run()) ++counts.failed_solves;
    CheckAnswer(arm,
                Corrected(arm.locals, ToQuat(p.ozz_root_correction),
                          ToQuat(p.ozz_mid_correction)),
                p.ozz_two_bone);
    om::SoaTransform solved;
    if (!SolveOzzGoal(p, i, solved)) ++counts.failed_solves;
    CheckAnswer(arm, FromSoa(solved), p.ozz_goal);
  }
}

// Prints the worst errors and the bit check; false (printing why) when an
// answer is off, a solve failed or ikd's answers differed in a bit.
bool ReportAnswers(const Problems& p, const CheckCounts& counts) {
  const struct {
    const char* name;
    const AnswerErrors& errors;
    double bound;
  } rows[] = {{"ikd two-bone job", p.ikd_two_bone, kIkdBound},
              {"ozz two-bone job", p.ozz_two_bone, kOzzBound},
              {"ikd whole goal", p.ikd_goal, kIkdBound},
              {"ozz whole goal", p.ozz_goal, kOzzBound}};
  std::printf(
      "Checked by double-precision forward kinematics, worst of %d arms:\n"
      "%-18s %13s %13s %13s %11s\n",
      kArmCount, "", "tip-target m", "off-plane m", "bone-len m", "wrong side");
  for (const auto& row : rows) {
    std::printf("%-18s %13.3g %13.3g %13.3g %11d\n", row.name,
                row.errors.tip_to_target, row.errors.elbow_off_pole_plane,
                row.errors.bone_length_error, row.errors.elbows_on_wrong_side);
  }
  std::printf(
      "ikd solved twice, and by Run and RunTwoBoneJobs in pairs and in "
      "fours, whole goals alone and by RunSolveChainJobs in fours: %d of %d "
      "grouped solves gave different bits\n",
      counts.different_bits, 3 * kArmCount);
  std::fflush(stdout);
  bool ok = counts.failed_solves == 0 && counts.different_bits == 0;
  for (const auto& row : rows) {
    if (!WithinBound(row.errors, row.bound)) {
      std::fprintf(stderr, "FAIL: %s is off by more than %g m\n", row.name,
                   row.bound);
      ok = false;
    }
  }
  if (counts.failed_solves != 0) {
    std::fprintf(stderr, "FAIL: %d solves returned an error\n",
                 counts.failed_solves);
  }
  if (counts.different_bits != 0) {
    std::fprintf(stderr, "FAIL: ikd gave different bits for the same arm\n");
  }
  return ok;
}

}  // namespace

bool CheckAnswers(Problems& p) {
  CheckCounts counts;
  CheckGroups(p, 2, counts);
  CheckGroups(p, 4, counts);
  CheckGoalQuads(p, counts);
  CheckArms(p, counts);
  return ReportAnswers(p, counts);
}

}  // namespace ik::bench
