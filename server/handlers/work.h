// The work a job may take at most, in one unit for every kind of job, so
// that a call's and a character's work can be bounded before any of it
// runs (--max_work_per_character, --max_work_per_call). A unit is about
// the same CPU time whatever the job (bench/work_units_bench measures each
// kind's cost per unit; 7 ns at most on the 2-core VM): the counts are
// weighted by what each step of a job costs at worst.
//
//   a chain goal     kJointIteration per joint of its chain per iteration
//                    of its cap (one pass for the analytic two-bone
//                    solver). Weighted by a goal out of reach, which runs
//                    its whole cap; a goal that stops short within reach
//                    retries with other solvers, and one that reaches is
//                    led again from its incoming pose (the continuity
//                    pass, at most 64 steps round the arc and its cap
//                    again, twice the cap where that stops short), so a
//                    goal may take a few times its units at worst;
//   grounding        per leg: kJointIteration for each of its 3 joints,
//                    plus 2 rays straight down, each kRayTest per plane and
//                    heightfield of the ground and, per mesh, per triangle
//                    such a ray can test at most
//                    (TriangleMesh::most_triangles_down);
//   dynamics         per chain stepped: its joints x its most substeps x
//                    (its colliders + 1), 1 each.
#ifndef IK_SERVER_HANDLERS_WORK_H_
#define IK_SERVER_HANDLERS_WORK_H_

#include <cstdint>

#include "absl/types/span.h"
#include "ik/character/character.h"
#include "ik/ground/terrain.h"
#include "ik/rig/solve_chain.h"

namespace ik::server {

// One joint moved by one solver iteration (an iterative goal out of reach
// runs its whole cap: the costliest step per count).
inline constexpr std::int64_t kJointIteration = 64;
// One ray tested against one plane, heightfield or mesh triangle.
inline constexpr std::int64_t kRayTest = 8;

std::int64_t GoalWork(const ChainGoal& goal);
std::int64_t GroundingWork(const Character& character, const Ground& ground);
// `chains`: indices into character.dynamic_chains.
std::int64_t DynamicsWork(const Character& character,
                          absl::Span<const int> chains);

}  // namespace ik::server

#endif  // IK_SERVER_HANDLERS_WORK_H_
