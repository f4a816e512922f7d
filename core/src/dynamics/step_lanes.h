// The substeps of up to kStepLanes dynamics steps side by side, one step
// per SIMD lane (dynamics_internal::RunSteps): four lanes of AVX where the
// processor has it (HasAvxLanes, base/trig_lanes.h), else two of SSE2.
// Each lane performs Substep's operations (dynamics_substep.cc) in its
// order on its own step's values, so it gives Substep's bits; the rare
// cases (a joint on its parent, a contact) run Substep's own scalar code
// for that lane.
//
// Between substeps the group's state is a structure of arrays: joint i's
// rows, kJointRows of kStepLanes doubles each (a value per lane), from
// joints + i * kJointRows * kStepLanes: its position (x, y, z), its
// previous position, its animated position. The colliders' overlap tests
// (OverlapTest), collider c's kTestRows rows from tests + c * kTestRows *
// kStepLanes: start, axis, 1 / |axis|^2, radius. Lanes past `lanes` repeat
// lane 0's values; nothing is written back from them.
#ifndef IK_SRC_DYNAMICS_STEP_LANES_H_
#define IK_SRC_DYNAMICS_STEP_LANES_H_

#include "dynamics/dynamics_internal.h"
#include "ik/base/math.h"

namespace ik::dynamics_internal {

inline constexpr int kJointRows = 9;
inline constexpr int kTestRows = 8;
// The first row of each of a joint's three points.
inline constexpr int kPositionRow = 0;
inline constexpr int kPreviousRow = 3;
inline constexpr int kAnimatedRow = 6;

// One substep of a group.
struct LaneSubstep {
  const ChainView* chain = nullptr;
  int lanes = 0;  // in use, 2 to kStepLanes
  const Transform* animated[kStepLanes] = {};
  const PreparedColliders* colliders[kStepLanes] = {};
  // The substep's root shift (root - animated root) and wind, per lane.
  double shift[3][kStepLanes] = {};
  double wind[3][kStepLanes] = {};
  double* joints = nullptr;
  const double* tests = nullptr;
};

// Every joint of the substep (the root's rows already moved), lanes 0-3 in
// AVX. Only where HasAvxLanes().
void SubstepQuad(const LaneSubstep& substep);
// Lanes first and first + 1 in SSE2.
void SubstepPair(const LaneSubstep& substep, int first);

}  // namespace ik::dynamics_internal

#endif  // IK_SRC_DYNAMICS_STEP_LANES_H_
