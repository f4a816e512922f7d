// The span checks of the core's calls that run many jobs at once
// (RunTwoBoneJobs, RunSolveChainJobs, RunStepDynamicsJobs), written once.
// Not part of the public API.
#ifndef IK_SRC_BASE_JOB_SPANS_H_
#define IK_SRC_BASE_JOB_SPANS_H_

#include <cstddef>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/types/span.h"

namespace ik::internal {

// INVALID_ARGUMENT when a call's statuses do not match its jobs one for one
// ("statuses: 3 for 4 jobs").
inline absl::Status CheckStatusCount(size_t job_count, size_t status_count) {
  if (status_count == job_count) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat("statuses: ", status_count, " for ", job_count, " jobs"));
}

// CheckStatusCount, then INVALID_ARGUMENT for the first null job
// ("jobs[2]: null").
template <typename Job>
absl::Status CheckJobSpans(absl::Span<const Job* const> jobs,
                           size_t status_count) {
  if (absl::Status status = CheckStatusCount(jobs.size(), status_count);
      !status.ok()) {
    return status;
  }
  for (size_t k = 0; k < jobs.size(); ++k) {
    if (jobs[k] == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat("jobs[", k, "]: null"));
    }
  }
  return absl::OkStatus();
}

}  // namespace ik::internal

#endif  // IK_SRC_BASE_JOB_SPANS_H_
