// RunTwoBoneJobs' groups of four (solvers/two_bone_lanes.h): the lane code
// of solvers/two_bone_lanes_kernel.h in the four double lanes of AVX
// (vaddpd, vmulpd, vdivpd and vsqrtpd on 256-bit registers; no FMA), the
// hinge's angle through the two-lane atan2 of base/trig_lanes.h. Every
// function this file defines after its includes is compiled for AVX (a
// target pragma, so that nothing else of the build is): none may run
// before internal::HasAvxLanes() says the processor has AVX.
#include <cmath>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "absl/status/status.h"
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

#if defined(__x86_64__)

#include "base/avx_target_begin.h"  // NOLINT(build/include)

namespace ik {
namespace {

using internal::kStraightSine;

#include "base/lanes_avx_kernel.h"          // NOLINT(build/include)
#include "solvers/two_bone_lanes_kernel.h"  // NOLINT(build/include)

}  // namespace

namespace internal {

void RunTwoBoneJobQuad(const TwoBoneJob* const jobs[4],
                       absl::Status* statuses) {
  SolveJobLanes(jobs, statuses);
}

}  // namespace internal
}  // namespace ik

#include "base/avx_target_end.h"  // NOLINT(build/include)

#else  // not x86-64: HasAvxLanes() is false, and these are never called

namespace ik::internal {

void RunTwoBoneJobQuad(const TwoBoneJob* const jobs[4],
                       absl::Status* statuses) {
  for (int i = 0; i < 4; ++i) statuses[i] = jobs[i]->Run();
}

}  // namespace ik::internal

#endif
