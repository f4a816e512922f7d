// Wire <-> core for SolveChain (ik/v1/solve.proto): goals in, goal results
// out. Errors start with the goal's path ("goals[3].target: not finite").
#ifndef IK_SERVER_CONVERT_SOLVE_H_
#define IK_SERVER_CONVERT_SOLVE_H_

#include <list>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "convert/values.h"
#include "ik/rig/rig.h"
#include "ik/rig/solve_chain.h"
#include "ik/v1/solve.pb.h"

namespace ik::server {

// A goal of a SolveChain request; `index` is its position in `goals`. An ad
// hoc chain is validated like a rig chain and stored in `ad_hoc_chains`
// (whose elements never move), which must outlive the returned goal.
absl::StatusOr<ChainGoal> GoalFromProto(const v1::ChainGoal& goal,
                                        const Rig& rig, int index,
                                        std::list<Chain>& ad_hoc_chains);

// The answer for one solved goal: local rotations of the chain's joints,
// taken from `locals` (the tip's too when the goal had an orientation),
// into `out`.
void GoalResultToProto(const ChainGoal& goal, const Rig& rig,
                       const ChainSolveResult& result,
                       absl::Span<const Transform> locals, AnswerForm form,
                       v1::GoalResult& out);

}  // namespace ik::server

#endif  // IK_SERVER_CONVERT_SOLVE_H_
