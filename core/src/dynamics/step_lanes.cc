// RunSteps (dynamics/dynamics_internal.h): up to kStepLanes steps, their
// substeps side by side in SIMD lanes (dynamics/step_lanes.h) where they
// can; SubstepPair, the two-lane SSE2 width of the lane code.
#include "dynamics/step_lanes.h"

#include <cmath>
#include <cstddef>
#include <cstring>
#include <new>
#include <type_traits>
#include <vector>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "absl/numeric/bits.h"
#include "base/trig_lanes.h"
#include "dynamics/dynamics_internal.h"
#include "ik/base/math.h"

namespace ik {
namespace {

#include "base/lanes_sse2_kernel.h"      // NOLINT(build/include)
#include "base/vector_lanes_kernel.h"    // NOLINT(build/include)
#include "dynamics/step_lanes_kernel.h"  // NOLINT(build/include)

}  // namespace

namespace dynamics_internal {
namespace {

// Whether the steps' substeps can run side by side: one chain's prepared
// joints without follow-the-leader, as many substeps (at least one) and
// colliders, distinct states.
bool SideBySide(const StepRun* const runs[], int count) {
  const StepRun& first = *runs[0];
  const ChainView& view = first.view();
  if (view.chain->follow_the_leader != 0.0 || first.substeps() == 0) {
    return false;
  }
  for (int k = 1; k < count; ++k) {
    const StepRun& run = *runs[k];
    if (run.view().joints != view.joints || run.view().chain != view.chain ||
        run.substeps() != first.substeps() ||
        run.colliders().colliders.size() !=
            first.colliders().colliders.size()) {
      return false;
    }
    for (int j = 0; j < k; ++j) {
      if (runs[j]->job().state == run.job().state) return false;
    }
  }
  return true;
}

void PutPoint(double* at, int row, const Vec3& v) {
  at[row * kStepLanes] = v.x;
  at[(row + 1) * kStepLanes] = v.y;
  at[(row + 2) * kStepLanes] = v.z;
}
Vec3 GetPoint(const double* at, int row) {
  return Vec3(at[row * kStepLanes], at[(row + 1) * kStepLanes],
              at[(row + 2) * kStepLanes]);
}

// The group's rows from its steps (lanes past `count` repeat lane 0).
void LoadRows(const StepRun* const runs[], int count, LaneSubstep& in,
              LaneRoom& room) {
  const int joints = in.chain->count;
  const int colliders = static_cast<int>(runs[0]->colliders().colliders.size());
  const size_t joint_values =
      static_cast<size_t>(joints) * kJointRows * kStepLanes;
  double* const values = room.Get(
      joint_values + static_cast<size_t>(colliders) * kTestRows * kStepLanes);
  in.joints = values;
  in.tests = values + joint_values;
  for (int lane = 0; lane < kStepLanes; ++lane) {
    const StepRun& run = *runs[lane < count ? lane : 0];
    const DynamicState& state = *run.job().state;
    const Transform* const animated = run.job().animated_world.data();
    in.animated[lane] = animated;
    in.colliders[lane] = &run.colliders();
    for (int i = 0; i < joints; ++i) {
      double* const at = in.joints + i * kJointRows * kStepLanes + lane;
      PutPoint(at, kPositionRow, state.positions[i]);
      PutPoint(at, kPreviousRow, state.previous_positions[i]);
      PutPoint(at, kAnimatedRow, animated[i].translation);
    }
    for (int c = 0; c < colliders; ++c) {
      const OverlapTest& test = run.colliders().tests[c];
      double* const at =
          values + joint_values + c * kTestRows * kStepLanes + lane;
      PutPoint(at, 0, test.start);
      PutPoint(at, 3, test.axis);
      at[6 * kStepLanes] = test.inverse_axis_sq;
      at[7 * kStepLanes] = test.radius;
    }
  }
}

// Substep k's start for each lane, as Substep makes it: the root's rows
// moved, the root's shift and the wind set (lanes past `count` copy lane
// 0's).
void StartSubstep(const StepRun* const runs[], int count, int k,
                  LaneSubstep& in) {
  for (int lane = 0; lane < kStepLanes; ++lane) {
    double* const at = in.joints + lane;
    if (lane >= count) {
      PutPoint(at, kPositionRow, GetPoint(in.joints, kPositionRow));
      PutPoint(at, kPreviousRow, GetPoint(in.joints, kPreviousRow));
      for (int c = 0; c < 3; ++c) {
        in.shift[c][lane] = in.shift[c][0];
        in.wind[c][lane] = in.wind[c][0];
      }
      continue;
    }
    Vec3 root;
    Vec3 wind;
    runs[lane]->Advance(k, &root, &wind);
    const Vec3 shift = root - in.animated[lane][0].translation;
    PutPoint(at, kPreviousRow, GetPoint(at, kPositionRow));
    PutPoint(at, kPositionRow, root);
    for (int c = 0; c < 3; ++c) {
      in.shift[c][lane] = shift[c];
      in.wind[c][lane] = wind[c];
    }
  }
}

// The states back from the group's rows.
void StoreRows(const StepRun* const runs[], int count, const LaneSubstep& in) {
  for (int lane = 0; lane < count; ++lane) {
    DynamicState& state = *runs[lane]->job().state;
    for (int i = 0; i < in.chain->count; ++i) {
      const double* const at = in.joints + i * kJointRows * kStepLanes + lane;
      state.positions[i] = GetPoint(at, kPositionRow);
      state.previous_positions[i] = GetPoint(at, kPreviousRow);
    }
  }
}

void SubstepsSideBySide(const StepRun* const runs[], int count, LaneRoom& room,
                        bool quad) {
  LaneSubstep in;
  in.chain = &runs[0]->view();
  in.lanes = count;
  LoadRows(runs, count, in, room);
  for (int k = 0; k < runs[0]->substeps(); ++k) {
    StartSubstep(runs, count, k, in);
    if (quad) {
      SubstepQuad(in);
    } else {
      SubstepPair(in, 0);
      if (count > 2) SubstepPair(in, 2);
    }
  }
  StoreRows(runs, count, in);
}

}  // namespace

void SubstepPair(const LaneSubstep& substep, int first) {
  SubstepLanesFrom(substep, first);
}

void RunSteps(const ChainView* const views[],
              const StepDynamicsJob* const jobs[], int count, LaneRoom& room,
              StepWidth width) {
  // Room for the steps, none constructed (an array of std::optional would
  // have the compiler clear all of it first, some 40 KB).
  union Started {
    Started() {}
    ~Started() {}
    StepRun runs[kStepLanes];
  } started;
  const StepRun* runs[kStepLanes];
  for (int k = 0; k < count; ++k) {
    runs[k] = new (&started.runs[k]) StepRun(*views[k], *jobs[k]);
  }
  if (count >= 2 && SideBySide(runs, count)) {
    SubstepsSideBySide(runs, count, room,
                       width == StepWidth::kWidest && internal::HasAvxLanes());
  } else {
    for (int k = 0; k < count; ++k) runs[k]->Substeps();
  }
  for (int k = 0; k < count; ++k) {
    runs[k]->Finish();
    runs[k]->~StepRun();
  }
}

}  // namespace dynamics_internal
}  // namespace ik
