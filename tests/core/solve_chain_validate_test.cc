// SolveChainJob::Validate (and Run, which validates first): the job's own
// inputs and outputs, and the pose path it names. The goal's fields are
// covered by solve_chain_test.cc's Rejects* tests, each of which also checks
// that Validate() alone finds the same fault.
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "humanoid_rig.h"
#include "ik/rig/solve_chain.h"
#include "solve_chain_runner.h"

namespace ik {
namespace {

class SolveChainJobValidateTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<Rig> rig = testing::HumanoidRig();
    ASSERT_TRUE(rig.ok()) << rig.status();
    rig_.emplace(*std::move(rig));
    locals_.assign(rig_->rest_pose().begin(), rig_->rest_pose().end());
  }

  ChainGoal Goal(const char* chain, const Vec3& target) const {
    ChainGoal goal;
    goal.chain = rig_->FindChain(chain);
    goal.target_world = target;
    return goal;
  }

  std::optional<Rig> rig_;
  std::vector<Transform> locals_;
};

TEST_F(SolveChainJobValidateTest, RejectsMissingInputsAndOutputs) {
  const ChainGoal goal = Goal("left_arm", Vec3(0.4, 1.2, 0.1));
  SolveChainWorkspace workspace;
  ChainSolveResult result;
  SolveChainJob job;
  job.rig = &*rig_;
  job.goal = &goal;
  job.locals = absl::MakeSpan(locals_);
  job.workspace = &workspace;
  job.result = &result;
  EXPECT_TRUE(job.Validate().ok());
  const auto expect_unset = [](SolveChainJob broken, const char* field) {
    const absl::Status status = broken.Run();
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << field;
    EXPECT_EQ(status.message(), absl::StrCat(field, ": not set"));
  };
  SolveChainJob broken = job;
  broken.rig = nullptr;
  expect_unset(broken, "rig");
  broken = job;
  broken.goal = nullptr;
  expect_unset(broken, "goal");
  broken = job;
  broken.workspace = nullptr;
  expect_unset(broken, "workspace");
  broken = job;
  broken.result = nullptr;
  expect_unset(broken, "result");
}

TEST_F(SolveChainJobValidateTest, NamesThePosePathItIsGiven) {
  locals_.pop_back();
  testing::ChainSolveRunner solver(*rig_, "pose");
  absl::StatusOr<ChainSolveResult> result =
      solver.Solve(Goal("left_arm", Vec3(0.4, 1.2, 0.1)), Transform(),
                   absl::MakeSpan(locals_));
  ASSERT_FALSE(result.ok());
  EXPECT_TRUE(absl::StartsWith(result.status().message(), "pose: 27 "))
      << result.status();
  locals_.push_back(Transform());
  Transform root;
  root.scale = Vec3(0.0);
  result = solver.Solve(Goal("left_arm", Vec3(0.4, 1.2, 0.1)), root,
                        absl::MakeSpan(locals_));
  ASSERT_FALSE(result.ok());
  EXPECT_TRUE(absl::StartsWith(result.status().message(), "pose.root.scale: "))
      << result.status();
}

}  // namespace
}  // namespace ik
