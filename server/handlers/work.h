// The work a job may take at most, in one unit for every kind of job --
// roughly one joint visited by one solver iteration -- so that a call's
// and a character's work can be bounded before any of it runs
// (--max_work_per_character, --max_work_per_call):
//
//   a chain goal     its chain's joints x its iteration cap (one pass for
//                    the analytic two-bone solver);
//   grounding        per leg: its 3 joints, plus 2 rays straight down, each
//                    testing every plane and heightfield of the ground (1
//                    each) and, per mesh, the most triangles such a ray can
//                    test (TriangleMesh::most_triangles_down);
//   dynamics         per chain stepped: its joints x its most substeps x
//                    (its colliders + 1).
#ifndef IK_SERVER_HANDLERS_WORK_H_
#define IK_SERVER_HANDLERS_WORK_H_

#include <cstdint>

#include "absl/types/span.h"
#include "ik/character/character.h"
#include "ik/ground/terrain.h"
#include "ik/rig/solve_chain.h"

namespace ik::server {

std::int64_t GoalWork(const ChainGoal& goal);
std::int64_t GroundingWork(const Character& character, const Ground& ground);
// `chains`: indices into character.dynamic_chains.
std::int64_t DynamicsWork(const Character& character,
                          absl::Span<const int> chains);

}  // namespace ik::server

#endif  // IK_SERVER_HANDLERS_WORK_H_
