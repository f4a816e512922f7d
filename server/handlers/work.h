// The work a job may take at most, in one unit for every kind of job, so
// that a call's and a character's work can be bounded before any of it
// runs (--max_work_per_character, --max_work_per_call). A unit is about
// the same CPU time whatever the job (bench/work_units_bench measures each
// kind's cost per unit; 7 ns at most on the 2-core VM): the counts are
// weighted by what each step of a job costs at worst.
//
//   a chain goal     kJointIteration per joint of its chain per iteration
//                    of its cap (one pass for the analytic two-bone
//                    solver), and for the iterative solvers kGoalFixedPerJoint
//                    per joint whatever the cap: a goal that reaches is led
//                    again from its incoming pose (the continuity pass, up
//                    to 64 damped steps round the arc before its cap), and
//                    one that stops short within reach retries with other
//                    solvers. Weighted by a goal out of reach, which runs
//                    its whole cap;
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
// What an iterative goal costs per joint of its chain beyond its cap's
// iterations: the continuity pass's steps round the arc, each a fraction of
// an iteration (bench/work_units_bench's one-iteration goals).
inline constexpr std::int64_t kGoalFixedPerJoint = 4 * kJointIteration;
// One ray tested against one plane, heightfield or mesh triangle.
inline constexpr std::int64_t kRayTest = 8;
// The most work a single call may ask and still run on the gRPC thread it
// arrived on, at once: a few two-bone goals (192 each on a three-joint
// limb), a grounding of two legs on planes or a mesh, a step of a short
// dynamic chain -- a few microseconds, less than gRPC's own cost for any
// call. Any other call takes its caller's turn on the pool.
inline constexpr std::int64_t kInlineWork = 1024;

std::int64_t GoalWork(const ChainGoal& goal);
std::int64_t GroundingWork(const Character& character, const Ground& ground);
// `chains`: indices into character.dynamic_chains.
std::int64_t DynamicsWork(const Character& character,
                          absl::Span<const int> chains);

}  // namespace ik::server

#endif  // IK_SERVER_HANDLERS_WORK_H_
