// RunTwoBoneJobs' lane steps, for callers inside the core whose jobs do not
// lie side by side in memory. Not part of the public API.
#ifndef IK_SRC_SOLVERS_TWO_BONE_LANES_H_
#define IK_SRC_SOLVERS_TWO_BONE_LANES_H_

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "ik/solvers/two_bone.h"

namespace ik::internal {

// Solves `first` and `second` as RunTwoBoneJobs solves a pair (each with
// its own Run's bits and status), their statuses into statuses[0] and [1].
void RunTwoBoneJobPair(const TwoBoneJob& first, const TwoBoneJob& second,
                       absl::Status* statuses);

// Solves the four `jobs` as RunTwoBoneJobs solves a group of four in AVX
// lanes (each with its own Run's bits and status), their statuses into
// statuses[0..3]. Only where HasAvxLanes() (base/trig_lanes.h).
void RunTwoBoneJobQuad(const TwoBoneJob* const jobs[4], absl::Status* statuses);

// Solves `jobs` as RunTwoBoneJobs solves jobs side by side (four at a time
// in AVX lanes where HasAvxLanes(), else two at a time), their statuses
// into statuses[0 .. jobs.size()).
void RunTwoBoneJobGroup(absl::Span<const TwoBoneJob* const> jobs,
                        absl::Status* statuses);

}  // namespace ik::internal

#endif  // IK_SRC_SOLVERS_TWO_BONE_LANES_H_
