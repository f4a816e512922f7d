// RunTwoBoneJobs (ik/solvers/two_bone.h): TwoBoneJobs four at a time in
// AVX lanes where the processor has AVX (solvers/two_bone_lanes_avx.cc),
// else two at a time in SSE2 lanes (here), both through the same lane code
// (solvers/two_bone_lanes_kernel.h): each lane gives Run's bits, whatever
// the grouping.
#include <algorithm>
#include <cmath>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "base/job_spans.h"
#include "base/trig_lanes.h"
#include "ik/base/joint_limits.h"
#include "ik/base/math.h"
#include "ik/base/trig.h"
#include "ik/base/validate.h"
#include "ik/solvers/solve_report.h"
#include "ik/solvers/two_bone.h"
#include "solvers/two_bone_lanes.h"
#include "solvers/two_bone_pole.h"
#include "solvers/two_bone_validate.h"

namespace ik {
namespace {

using internal::kStraightSine;

#include "base/lanes_sse2_kernel.h"         // NOLINT(build/include)
#include "solvers/two_bone_lanes_kernel.h"  // NOLINT(build/include)

}  // namespace

namespace internal {

void RunTwoBoneJobPair(const TwoBoneJob& first, const TwoBoneJob& second,
                       absl::Status* statuses) {
  const TwoBoneJob* const jobs[2] = {&first, &second};
  SolveJobLanes(jobs, statuses);
}

void RunTwoBoneJobGroup(absl::Span<const TwoBoneJob* const> jobs,
                        absl::Status* statuses) {
  size_t i = 0;
  if (HasAvxLanes()) {
    for (; i + 3 < jobs.size(); i += 4)
      RunTwoBoneJobQuad(&jobs[i], &statuses[i]);
  }
  for (; i + 1 < jobs.size(); i += 2) {
    SolveJobLanes(&jobs[i], &statuses[i]);
  }
  if (i < jobs.size()) statuses[i] = jobs[i]->Run();
}

}  // namespace internal

absl::Status RunTwoBoneJobs(absl::Span<const TwoBoneJob> jobs,
                            absl::Span<absl::Status> statuses) {
  if (absl::Status status =
          internal::CheckStatusCount(jobs.size(), statuses.size());
      !status.ok()) {
    return status;
  }
  // Side by side in groups of four, as pointers.
  for (size_t i = 0; i < jobs.size(); i += 4) {
    const size_t count = std::min<size_t>(4, jobs.size() - i);
    const TwoBoneJob* group[4];
    for (size_t k = 0; k < count; ++k) group[k] = &jobs[i + k];
    internal::RunTwoBoneJobGroup(absl::MakeConstSpan(group, count),
                                 &statuses[i]);
  }
  return absl::OkStatus();
}

}  // namespace ik
