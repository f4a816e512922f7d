// StartLimbs (rig/limb_lanes.h): hinge middle joints four at a time in AVX
// lanes where the processor has AVX (rig/limb_lanes_avx.cc), else two at a
// time in SSE2 lanes (here), both through the same lane code
// (rig/limb_lanes_kernel.h).
#include "rig/limb_lanes.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "absl/types/span.h"
#include "base/trig_lanes.h"
#include "ik/base/joint_limits.h"
#include "ik/base/math.h"
#include "ik/rig/rig.h"
#include "rig/two_bone_limits.h"

namespace ik {
namespace {

#include "base/lanes_sse2_kernel.h"  // NOLINT(build/include)
#include "rig/limb_lanes_kernel.h"   // NOLINT(build/include)

// At most four limbs' middle joints started at once.
constexpr size_t kGroup = 4;

MidStart StartOne(const JointDefinition& mid, const Quat& rotation) {
  return StartMidWithinLimit(mid, JointConstraintOf(mid), rotation);
}
}  // namespace

namespace internal {

void StartHingePair(const JointDefinition* const mids[2],
                    const Quat rotations[2], MidStart starts[2]) {
  StartHingeLanes(mids, rotations, starts);
}
void StartLimbs(absl::Span<TwoBoneLimbSolve* const> solves) {
  for (size_t first = 0; first < solves.size(); first += kGroup) {
    const size_t end = std::min(solves.size(), first + kGroup);
    TwoBoneLimbSolve* hinged[kGroup];
    const JointDefinition* mids[kGroup];
    Quat rotations[kGroup];
    size_t count = 0;
    for (size_t k = first; k < end; ++k) {
      TwoBoneLimbSolve& solve = *solves[k];
      if (!solve.awaiting_start()) continue;
      const JointDefinition& mid = solve.mid_joint();
      if (mid.limit.kind != JointLimit::Kind::kHinge) {
        solve.Start(StartOne(mid, solve.mid_rotation()));
        continue;
      }
      hinged[count] = &solve;
      mids[count] = &mid;
      rotations[count++] = solve.mid_rotation();
    }
    MidStart starts[kGroup];
    size_t i = 0;
    if (count == kGroup && HasAvxLanes()) {
      StartHingeQuad(mids, rotations, starts);
      i = kGroup;
    }
    for (; i + 1 < count; i += 2) {
      StartHingePair(&mids[i], &rotations[i], &starts[i]);
    }
    if (i < count) starts[i] = StartOne(*mids[i], rotations[i]);
    for (size_t k = 0; k < count; ++k) hinged[k]->Start(starts[k]);
  }
}

}  // namespace internal
}  // namespace ik
