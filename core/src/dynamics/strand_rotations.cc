// Positions -> rotations for the common case, a strand whose joints all take
// the shortest arc (ik/dynamics/dynamic_rotations.h): four joints at a time
// in AVX lanes where the processor has AVX (strand_rotations_avx.cc), then
// two at a time in SSE2 lanes (here), then one at a time, all through the
// lane code of dynamics/strand_rotations_kernel.h.
#include <cmath>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "base/trig_lanes.h"
#include "dynamics/dynamics_internal.h"
#include "ik/base/math.h"
#include "ik/base/validate.h"

namespace ik {
namespace {

#include "base/lanes_sse2_kernel.h"            // NOLINT(build/include)
#include "base/vector_lanes_kernel.h"          // NOLINT(build/include)
#include "dynamics/strand_rotations_kernel.h"  // NOLINT(build/include)

}  // namespace

namespace dynamics_internal {

void UpdateStrandShortestArcs(int count, const Transform* animated,
                              const Vec3* positions, Quat* deltas,
                              Quat* rotations_out, Quat* corrections_out) {
  const bool quad = internal::HasAvxLanes();
  // Deltas: joints 0 .. count - 2 have a child, the leaf takes its parent's.
  int i = quad ? StrandDeltasQuad(0, count, animated, positions, deltas) : 0;
  i = StrandDeltasFrom(i, count, animated, positions, deltas);
  for (; i + 1 < count; ++i) {
    deltas[i] = StrandDelta(animated, positions, i, deltas[i]);
  }
  deltas[count - 1] = deltas[count - 2];
  // Outputs: the root on its own (its parent is not simulated), then the
  // others.
  WriteJointOutputs(deltas[0], deltas[0], true, animated[0].rotation,
                    rotations_out, corrections_out);
  int j = quad ? StrandOutputsQuad(1, count, animated, deltas, rotations_out,
                                   corrections_out)
               : 1;
  j = StrandOutputsFrom(j, count, animated, deltas, rotations_out,
                        corrections_out);
  if (j < count) {
    WriteJointOutputs(
        deltas[j], deltas[j - 1], false, animated[j].rotation,
        rotations_out == nullptr ? nullptr : rotations_out + j,
        corrections_out == nullptr ? nullptr : corrections_out + j);
  }
}

}  // namespace dynamics_internal
}  // namespace ik
