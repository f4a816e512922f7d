// Analytic two-bone IK for a 3-joint limb (shoulder-elbow-wrist,
// hip-knee-ankle).
//
// The solve works in model space and yields rotation corrections that the
// caller post-multiplies into the root and middle joints' local rotations:
//   root_local.rotation = root_local.rotation * root_correction;
//   mid_local.rotation  = mid_local.rotation * mid_correction;
// Three steps, each exact: (1) turn the middle joint about the bend axis so
// the root-tip distance equals the root-target distance (clamped to what the
// bone lengths allow); (2) swing the root so the tip points at the target;
// (3) twist the root about the root-target axis so the middle joint lies in
// the plane of root, target and pole.
//
// Step (1) turns the lower bone v = tip - mid about the bend axis n by the
// angle a that solves |u - v(a)|^2 = d^2, u = root - mid, d the clamped
// target distance. With v = v_par + v_perp (along / across n),
//   |u - v(a)|^2 = l1^2 + l2^2 - 2[u.v_par + cos(a) u.v_perp
//                                  + sin(a) u.(n x v_perp)],
// i.e. A cos(a) + B sin(a) = C, solved as a = phi +- beta with
// phi = atan2(B, A), cos(beta) = clamp(C / sqrt(A^2 + B^2), -1, 1). Of the
// two roots the one with the smaller |a| wins (the bend keeps its side),
// unless only the other lies within mid_turn_range; for
// a straight incoming limb the positive one (bending by the right-hand rule
// about n). The axis need not be perpendicular to the bones (a hinge axis of
// a twisted pose): the reachable distances then shrink and are clamped the
// same way. No trigonometric function is evaluated: cos/sin pairs are
// combined directly into quaternions, and the solve costs a handful of
// square roots and divisions (bench/two_bone_bench.cc).
#ifndef IK_TWO_BONE_H_
#define IK_TWO_BONE_H_

#include <optional>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "ik/base/defaults.h"
#include "ik/base/joint_limits.h"
#include "ik/base/math.h"
#include "ik/solvers/solve_report.h"

namespace ik {

// Inputs and outputs of one two-bone solve. Owns nothing, allocates nothing.
// Thread-compatible: distinct jobs may run concurrently.
struct TwoBoneJob {
  // Model-space transforms of the three joints (root -> mid -> tip, each the
  // parent of the next). Only translation and rotation are used (the tip's
  // rotation is not used at all). Rotations must be unit quaternions
  // (Validate rejects norms off by more than about 1e-3; the solve is exact
  // for unit ones); coordinates within +-kMaxCoordinate.
  Transform root_model;
  Transform mid_model;
  Transform tip_model;
  // Where the tip should go, model space.
  Vec3 target_model{0.0};
  // Optional pole target, model space: the middle joint bends towards it.
  // Unset, or on the root-target line: the incoming bend plane is kept (no
  // twist). When the solved limb is straight, the twist turns the side it
  // would bend to (towards the pole), so the result is continuous at the
  // edge of reach.
  std::optional<Vec3> pole_model;
  // Optional bend axis of the middle joint, model space, unit length (e.g. a
  // knee's hinge axis). Unset: the normal of the incoming bend plane, or,
  // for a straight limb, a direction derived from the pole, else any
  // perpendicular to the upper bone.
  std::optional<Vec3> mid_axis_model;
  // Optional range of step (1)'s turn of the middle joint about
  // mid_axis_model, radians (finite, min <= max; needs mid_axis_model): e.g.
  // a hinge limit's range minus the joint's current hinge angle. A turn
  // outside it (modulo a full turn) is replaced by the other root of step
  // (1) when that one is within it (the bend changes side), else goes to
  // the nearer end
  // (ClampAngleToRange in ik/base/joint_limits.h); the limb then points at the
  // target as the clamped bend allows and the report says how far it is.
  std::optional<AngleRange> mid_turn_range;
  // Distance, metres, at which the target counts as reached. >= 0.
  double tolerance = 1e-5;

  // Outputs: local-space corrections, post-multiplied by the caller.
  Quat* root_correction = nullptr;
  Quat* mid_correction = nullptr;
  SolveReport* report = nullptr;
  // Optional: whether mid_turn_range clamped the turn (by more than
  // kLimitClampSlack).
  bool* mid_turn_clamped = nullptr;

  // INVALID_ARGUMENT naming the field when an output is null, an input is
  // not finite or beyond kMaxCoordinate, a rotation is not unit length, the
  // mid axis has zero length, the turn range is not finite, reversed or set
  // without a mid axis, the tolerance is negative, or a bone is shorter than
  // kMinSolveBoneLength.
  absl::Status Validate() const;
  // Validates, then solves. Never produces NaN for finite input. An
  // unreachable target is not an error: the limb reaches straight towards
  // it and the report says reached=false.
  absl::Status Run() const;
};

// Solves every job of `jobs` as its Run() would, with the same bits and the
// same status (into `statuses[i]`), several jobs at a time in SIMD lanes:
// four at a time in AVX where the processor has it (checked once at run
// time), else two at a time in SSE2, each lane doing the scalar solve's
// operations in its order, none fused (bench/two_bone_bench.cc,
// BM_FreeArmTwoBonePairs, has the cost per job). The lanes take limbs whose
// target is within reach, bent limbs without a mid_axis_model or limbs on
// one (a hinge) whose turn stays within mid_turn_range, with or without a
// pole, grouped with jobs of the same kind (all hinged or none). Any other
// job (and the last ones of a count the groups do not divide) runs through
// Run() alone, or in a pair. INVALID_ARGUMENT ("statuses: ...") when the
// spans' sizes differ, nothing solved.
absl::Status RunTwoBoneJobs(absl::Span<const TwoBoneJob> jobs,
                            absl::Span<absl::Status> statuses);

}  // namespace ik

#endif  // IK_TWO_BONE_H_
