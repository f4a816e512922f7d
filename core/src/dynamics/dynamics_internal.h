// Internals of the dynamic-bone step shared by dynamics.cc,
// dynamics_substep.cc, dynamic_rotations.cc and prepared_dynamic_chain.cc:
// a chain's joints with their overrides resolved (what every substep reads),
// and the stages of StepDynamicsJob::Run on them. Not part of the public API.
#ifndef IK_SRC_DYNAMICS_INTERNAL_H_
#define IK_SRC_DYNAMICS_INTERNAL_H_

#include <cstddef>
#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "dynamics/lanes.h"
#include "ik/base/math.h"
#include "ik/dynamics/colliders.h"
#include "ik/dynamics/dynamic_chain.h"
#include "ik/dynamics/dynamics.h"
#include "ik/dynamics/rig_dynamics.h"
#include "ik/dynamics/wind_noise.h"

namespace ik::dynamics_internal {

// One joint of a valid chain, the chain's settings and the joint's
// overrides resolved. No member initialisers: arrays of these live on the
// stack, sized for the largest chain, and PrepareJoints fills what a chain
// uses.
struct PreparedJoint {
  int parent;    // kDynamicRoot for joint 0
  int children;  // joints naming this one as parent
  double length;
  double radius;
  double keep;  // 1 - drag
  Vec3 gravity;
  double stiffness;
  double wind_scale;
  // The farthest the joint can be from the root, plus its radius: the sum
  // of the bone lengths up to the root, plus radius (0 for the root). The
  // colliders' culling compares it with a collider's clearance.
  double reach;
  double rotation_blend;    // per substep
  bool own_rotation_blend;  // overrides.rotation_blend is set
  bool remove_twist;
};

// What a step reads of its chain: the chain, its prepared joints and the
// wind in force (the chain's, or one that replaces it).
struct ChainView {
  const DynamicChain* chain = nullptr;
  const PreparedJoint* joints = nullptr;
  int count = 0;
  // Every joint's parent is the joint before it.
  bool strand = false;
  // Every joint's rotation_blend is 1 and it removes its twist: a delta
  // becomes the shortest arc from the animated to the simulated bone.
  bool shortest_arc = false;
  const WindSettings* wind = nullptr;
};

// Fills joints[0 .. chain.joints.size()) from a valid chain, and the view
// of them (its wind: the chain's).
void PrepareJoints(const DynamicChain& chain, PreparedJoint* joints,
                   ChainView* view);

// A valid chain prepared once: the data behind PreparedDynamicChain.
struct ChainLayout {
  DynamicChain chain;
  std::vector<PreparedJoint> joints;
  ChainView view;  // of the two above
};

// The checks of StepDynamicsJob::Validate after the chain's, against
// `chain` (valid).
absl::Status ValidateStepInputs(const StepDynamicsJob& job,
                                const DynamicChain& chain);

// Colliders as a set of indices, one bit each (kMaxDynamicColliders is 64).
using ColliderSet = uint64_t;
static_assert(kMaxDynamicColliders <= 64, "ColliderSet holds 64 colliders");

// A collider prepared once per step for the per-joint overlap test: the
// point of its segment closest to p is start + axis * clamp((p - start).axis
// / |axis|^2, 0, 1), with 1 / |axis|^2 stored, so the test takes no
// division.
struct OverlapTest {
  Vec3 start;
  Vec3 axis;  // zero for a sphere
  double inverse_axis_sq;
  double radius;
};

// Two colliders' OverlapTests side by side, one per lane: colliders 2k and
// 2k + 1 in pair k (an odd count's last pair has its collider in both
// lanes). A sphere's test is the capsule's with a zero axis: t = 0 and the
// gap is p - start, to the bit.
struct OverlapPair {
  Lanes start_x, start_y, start_z;
  Lanes axis_x, axis_y, axis_z;
  Lanes inverse_axis_sq;
  Lanes radius;
};

// The colliders of one step, ready for the substeps. No member
// initialisers: it lives on Run's stack, sized for the largest step, and
// PrepareColliders fills what the step uses.
struct PreparedColliders {
  absl::Span<const Collider> colliders;
  OverlapTest tests[kMaxDynamicColliders];
  OverlapPair pairs[kMaxDynamicColliders / 2];
  // Per joint, the colliders it may reach during the step (see Clearance).
  ColliderSet candidates[kMaxDynamicJoints];
};

// Prepares `colliders` for a step whose root is animated at `root` (in the
// colliders' frame).
void PrepareColliders(const ChainView& chain,
                      absl::Span<const Collider> colliders, const Vec3& root,
                      PreparedColliders* prepared);

// StepDynamicsJob::Run after validation, on a view of its chain, in
// parts: construction resets the state if it must, plans the substeps and
// prepares the colliders; Substeps runs them (or Advance gives each
// substep's root and wind, for a caller running them itself), Finish sets
// the rotations and the report. Reads and writes the job's buffers, which
// must outlive it.
class StepRun {
 public:
  StepRun(const ChainView& view, const StepDynamicsJob& job);
  StepRun(const StepRun&) = delete;
  StepRun& operator=(const StepRun&) = delete;

  const ChainView& view() const { return view_; }
  const StepDynamicsJob& job() const { return job_; }
  const PreparedColliders& colliders() const { return colliders_; }
  int substeps() const { return report_.substeps; }
  // Substep k's root (where it ends) and wind; advances the state's noise
  // clock. Once per substep, in order.
  void Advance(int k, Vec3* root, Vec3* wind) const;
  void Substeps() const;
  void Finish() const;

 private:
  const ChainView& view_;
  const StepDynamicsJob& job_;
  DynamicsReport report_;
  double remainder_ = 0.0;
  Vec3 root_start_{0.0};
  Vec3 root_travel_{0.0};
  double covered_ = 0.0;
  bool steady_wind_ = false;
  Vec3 steady_{0.0};
  PreparedColliders colliders_;
};

// StepDynamicsJob::Run after validation, on a view of its chain.
void RunStep(const ChainView& view, const StepDynamicsJob& job);

// Room for RunSteps' lanes: on the stack up to kInline values (a chain of
// 32 joints with 28 colliders), else on the heap, kept from call to call.
// Never cleared: RunSteps writes every value before it reads it.
class LaneRoom {
 public:
  LaneRoom() {}  // leaves the values uninitialised
  LaneRoom(const LaneRoom&) = delete;
  LaneRoom& operator=(const LaneRoom&) = delete;

  double* Get(size_t values) {
    if (values <= kInline) return inline_;
    if (values > heap_size_) {
      heap_.reset(new double[values]);
      heap_size_ = values;
    }
    return heap_.get();
  }

 private:
  static constexpr size_t kInline = 2048;
  double inline_[kInline];
  std::unique_ptr<double[]> heap_;
  size_t heap_size_ = 0;
};

// How many steps RunSteps takes at once.
inline constexpr int kStepLanes = 4;

// StepDynamicsJob::Run after validation for up to kStepLanes jobs of
// distinct states, each on its view (dynamics/step_lanes.cc): their
// substeps side by side in SIMD lanes where they can (the same prepared
// joints of one chain without follow-the-leader, as many substeps, as many
// colliders), else one after the other; the same bits as RunStep for each.
// `room` holds the lanes; `width` kPairs keeps to two lanes at a time
// (SSE2) where AVX would take four, for tests of both widths on one
// machine.
enum class StepWidth { kWidest, kPairs };
void RunSteps(const ChainView* const views[],
              const StepDynamicsJob* const jobs[], int count, LaneRoom& room,
              StepWidth width = StepWidth::kWidest);

// One substep of every joint (dynamics_substep.cc): `root` is the root's
// position at the end of the substep, `wind` the wind's acceleration then.
void Substep(const ChainView& chain, const Transform* animated,
             const PreparedColliders& colliders, const Vec3& root,
             const Vec3& wind, DynamicState* state);

// Substep's rare cases, out of line (dynamics_substep.cc): a joint
// `shifted` (in the colliders' frame, as its `parent`) pushed out of each
// collider of `candidates` in order; the length correction of joint i when
// it lies on its `parent`.
Vec3 PushOut(absl::Span<const Collider> colliders, ColliderSet candidates,
             const PreparedJoint& joint, const Vec3& parent, Vec3 shifted);
Vec3 CorrectDegenerateLength(const PreparedJoint& joint,
                             const Transform* animated, int i,
                             const Vec3& parent);

// Runs `steps` (of distinct states and outputs) as each one's Run would,
// their statuses into statuses[0 .. steps.size()): the same bits,
// kStepLanes at a time with their substeps side by side where they can
// (RunSteps).
void RunRigDynamicsSteps(absl::Span<const RigDynamicsStep* const> steps,
                         absl::Status* statuses);

// UpdateDynamicRotations (ik/dynamics/dynamic_rotations.h) on a view.
void UpdateRotations(const ChainView& chain, const Transform* animated,
                     const Vec3* positions, int substeps, Quat* deltas,
                     Quat* rotations_out, Quat* corrections_out);

// Unit quaternions this close to unit squared norm are used as they are
// (a stored delta, an animated rotation); others are normalised.
inline constexpr double kUnitSlack = 1e-12;

// The common case of UpdateRotations (strand_rotations.cc): a strand whose
// joints all take the shortest arc (ChainView::shortest_arc), after at
// least one substep. The same arithmetic, to the bit, as the general stages
// of dynamic_rotations.cc, two joints at a time.
void UpdateStrandShortestArcs(int count, const Transform* animated,
                              const Vec3* positions, Quat* deltas,
                              Quat* rotations_out, Quat* corrections_out);

// UpdateStrandShortestArcs' blocks of four joints in AVX lanes
// (strand_rotations_avx.cc): the deltas from joint i on while a whole block
// has children, the outputs from joint j (>= 1) on while a whole block is
// left; each returns the first joint left. Only where HasAvxLanes().
int StrandDeltasQuad(int i, int count, const Transform* animated,
                     const Vec3* positions, Quat* deltas);
int StrandOutputsQuad(int j, int count, const Transform* animated,
                      const Quat* deltas, Quat* rotations_out,
                      Quat* corrections_out);

// Joint i's new delta in such a strand (i + 1 < count; `stored` its delta
// from the last step), one joint at a time.
Quat StrandDelta(const Transform* animated, const Vec3* positions, int i,
                 const Quat& stored);

// One joint's outputs (a null one skipped) from its delta, its parent's
// (ignored for the root) and its animated rotation, one joint at a time.
void WriteJointOutputs(const Quat& delta, const Quat& parent_delta, bool root,
                       const Quat& given_rotation, Quat* rotation_out,
                       Quat* correction_out);

}  // namespace ik::dynamics_internal

#endif  // IK_SRC_DYNAMICS_INTERNAL_H_
