// Test helper: runs SolveChainJob for goals on poses of one rig with one
// reused workspace, returning the job's result or its error, so a test reads
// as "solve this goal on this pose". Every answer it returns has passed the
// shared consistency check (answer_checks.h): a test that solves through it
// cannot see a self-contradicting answer pass.
#ifndef IK_TESTS_CORE_SOLVE_CHAIN_RUNNER_H_
#define IK_TESTS_CORE_SOLVE_CHAIN_RUNNER_H_

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "answer_checks.h"
#include "gtest/gtest.h"
#include "ik/base/math.h"
#include "ik/rig/rig.h"
#include "ik/rig/solve_chain.h"

namespace ik::testing {

class ChainSolveRunner {
 public:
  explicit ChainSolveRunner(const Rig& rig, std::string pose_path = "")
      : rig_(&rig),
        pose_path_(std::move(pose_path)),
        workspace_(std::make_unique<SolveChainWorkspace>()) {}

  absl::StatusOr<ChainSolveResult> Solve(const ChainGoal& goal,
                                         const Transform& root,
                                         absl::Span<Transform> locals) {
    ChainSolveResult result;
    SolveChainJob job;
    job.rig = rig_;
    job.goal = &goal;
    job.root = root;
    job.locals = locals;
    job.pose_path = pose_path_;
    job.workspace = workspace_.get();
    job.result = &result;
    const std::vector<Transform> before(locals.begin(), locals.end());
    if (absl::Status status = job.Run(); !status.ok()) return status;
    const std::string inconsistency = AnswerInconsistency(
        *rig_, goal, root, before,
        std::vector<Transform>(locals.begin(), locals.end()), result);
    if (!inconsistency.empty()) {
      ADD_FAILURE() << "inconsistent answer (chain '" << goal.chain->name
                    << "', solver " << static_cast<int>(result.solver)
                    << "): " << inconsistency;
    }
    return result;
  }

 private:
  const Rig* rig_;
  std::string pose_path_;
  std::unique_ptr<SolveChainWorkspace> workspace_;
};

}  // namespace ik::testing

#endif  // IK_TESTS_CORE_SOLVE_CHAIN_RUNNER_H_
