// The one consistency check of a chain goal's answer, shared by every test that
// solves goals (every answer is self-consistent, always): the answer agrees
// with itself and with forward kinematics written apart from the solver
// (independent_checks.h), for every solver and option.
#ifndef IK_TESTS_CORE_ANSWER_CHECKS_H_
#define IK_TESTS_CORE_ANSWER_CHECKS_H_

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "ik/rig/rig.h"
#include "ik/rig/solve_chain.h"
#include "independent_checks.h"

namespace ik::testing {

// Returns "" when `result` (the answer to `goal` on `before` under `root`,
// which left `after`) is consistent, else what is wrong:
//   - reached <=> residual <= tolerance <=> stop reason kReached;
//   - the effector (tip_world, report.tip_model) is where forward
//     kinematics of the returned pose puts the tip, and the residual its
//     distance to the target;
//   - only the chain's joints before the tip turned (the tip too with an
//     orientation goal), and translations and scales are untouched;
//   - limited_joints are chain joints, ascending, each once, each on its
//     limit's boundary (within kLimitSlack), and every joint of the chain
//     ends within its limit (kLimitSlack).
inline std::string AnswerInconsistency(const Rig& rig, const ChainGoal& goal,
                                       const Transform& root,
                                       const std::vector<Transform>& before,
                                       const std::vector<Transform>& after,
                                       const ChainSolveResult& result) {
  const Chain& chain = *goal.chain;
  const double tolerance = goal.tolerance.value_or(chain.tolerance);
  const ChainSolveResult& r = result;
  const bool reached = r.report.reached;
  if (reached != (r.report.residual <= tolerance)) {
    return absl::StrCat("reached ", reached, " but residual ",
                        r.report.residual, " vs tolerance ", tolerance);
  }
  if (reached != (r.stop_reason == StopReason::kReached)) {
    return absl::StrCat("reached ", reached, " but stop reason ",
                        static_cast<int>(r.stop_reason));
  }
  const int tip = chain.joints.back();
  const Vec3 tip_world = WorldPositions(rig, after, root)[tip];
  const double scale = 1.0 + glm::length(tip_world);
  if (glm::length(tip_world - r.tip_world) > 1e-9 * scale) {
    return absl::StrCat("effector off forward kinematics by ",
                        glm::length(tip_world - r.tip_world));
  }
  const double residual = glm::length(tip_world - goal.target_world);
  if (std::abs(residual - r.report.residual) > 1e-9 * scale) {
    return absl::StrCat("residual ", r.report.residual, " but the tip is ",
                        residual, " from the target");
  }
  std::vector<bool> may_turn(after.size(), false);
  for (size_t k = 0; k + 1 < chain.joints.size(); ++k) {
    may_turn[chain.joints[k]] = true;
  }
  if (goal.orientation_world.has_value()) may_turn[tip] = true;
  for (size_t j = 0; j < after.size(); ++j) {
    if (after[j].translation != before[j].translation ||
        after[j].scale != before[j].scale ||
        (!may_turn[j] && after[j].rotation != before[j].rotation)) {
      return absl::StrCat("joint ", j, " changed but is not solved");
    }
  }
  for (size_t i = 0; i < r.limited_joints.size(); ++i) {
    const int joint = r.limited_joints[i];
    if (std::find(chain.joints.begin(), chain.joints.end(), joint) ==
        chain.joints.end()) {
      return absl::StrCat("limited joint ", joint, " is not in the chain");
    }
    if (i > 0 && !(r.limited_joints[i - 1] < joint)) {
      return "limited_joints not ascending and unique";
    }
    const double margin = LimitMargin(rig, joint, after[joint].rotation);
    if (margin > kLimitSlack) {
      return absl::StrCat("limited joint ", joint, " ends ", margin,
                          " rad inside its limit's boundary");
    }
  }
  for (const int joint : chain.joints) {
    if (!may_turn[joint]) continue;
    const double violation = LimitViolation(rig, joint, after[joint].rotation);
    if (violation > kLimitSlack) {
      return absl::StrCat("joint ", joint, " ends ", violation,
                          " rad outside its limit");
    }
  }
  return "";
}

}  // namespace ik::testing

#endif  // IK_TESTS_CORE_ANSWER_CHECKS_H_
