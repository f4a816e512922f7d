// The inputs and outputs the iterative chain jobs (FabrikJob in
// ik/solvers/fabrik.h, CcdJob in ik/solvers/ccd.h) share, and their workspace.
//
// A chain is given as the local transforms of its joints, root first, each
// joint the parent of the next, plus the model transform of the root's
// parent. The jobs turn the rotations of every joint but the tip (whose
// rotation does not move the tip) and leave translations and scales alone,
// so bone lengths are kept exactly. Limits (ik/base/joint_limits.h) are applied
// to every turned joint before the first iteration and after every
// iteration, so the answer honours them whether or not the target is
// reached.
//
// Stopping: before the first iteration and after each one the tip is
// measured against the target; the solve stops
//   - kReached when the residual is within `tolerance`;
//   - kNoImprovement when an iteration did not reduce the best residual so
//     far by more than kMinRelativeImprovement (a billionth) of it: the
//     target is out of reach, or blocked by limits, or the solver is stuck.
//     The iteration's pose is kept if it is closer at all; otherwise the
//     pose before it is restored;
//   - kIterationCap after `max_iterations` iterations.
// Nothing depends on time or on memory addresses: the same inputs give the
// same bits.
#ifndef IK_CHAIN_JOB_H_
#define IK_CHAIN_JOB_H_

#include <array>
#include <cstdint>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "ik/base/defaults.h"
#include "ik/base/joint_limits.h"
#include "ik/base/math.h"
#include "ik/solvers/solve_report.h"

namespace ik {

// An iteration must shrink the best residual by more than this fraction of
// it to count as an improvement.
inline constexpr double kMinRelativeImprovement = 1e-9;

// Scratch memory of one iterative solve, for chains of up to
// kMaxChainJoints joints (~11 KiB). Reusable across solves; its contents
// mean nothing between them. Not thread-safe: one solve at a time.
struct ChainWorkspace {
  // The parent's model rotation, normalised.
  Quat parent_rotation{1.0, 0.0, 0.0, 0.0};
  // Model-space positions of the chain's joints and rotations of all but
  // the tip (whose rotation moves nothing).
  std::array<Vec3, kMaxChainJoints> positions;
  std::array<Quat, kMaxChainJoints> rotations;
  // Bone i (joint i to i + 1) in joint i's rotated frame: scale applied.
  std::array<Vec3, kMaxChainJoints> bones;
  std::array<double, kMaxChainJoints> lengths;
  // FABRIK's reaching positions; the pose before the current iteration.
  std::array<Vec3, kMaxChainJoints> reach_positions;
  std::array<Vec3, kMaxChainJoints> saved_positions;
  std::array<Quat, kMaxChainJoints> saved_rotations;
};

// Inputs and outputs shared by FabrikJob and CcdJob. Owns nothing and
// allocates nothing. Thread-compatible: distinct jobs with distinct
// workspaces and outputs may run concurrently.
struct ChainJob {
  // Model transform of the chain root's parent (identity when the root is a
  // root of the rig). Rotation unit length.
  Transform parent_model;
  // In/out: local transforms of the chain's joints, root first, each the
  // parent of the next; 2..kMaxChainJoints of them. Rotations must be unit
  // quaternions (within about 1e-3); the jobs replace the rotations of all
  // but the tip, normalised. Every bone (model space) must be at least
  // kMinSolveBoneLength long and every position within +-kMaxCoordinate.
  // It is the caller's responsibility to keep the span alive during Run().
  absl::Span<Transform> locals;
  // Optional: empty, or one per joint (same size as `locals`). The limits
  // must be valid (as Rig::Create leaves them); the tip's is not used.
  absl::Span<const JointConstraint> constraints;
  // Where the tip should go, model space.
  Vec3 target_model{0.0};
  // Iteration cap, >= 1.
  int max_iterations = kDefaultMaxIterations;
  // Distance, metres (model space), at which the target counts as reached.
  double tolerance = kDefaultTolerance;
  // Scratch; required.
  ChainWorkspace* workspace = nullptr;

  // Outputs. `report` is required: reached, residual, iterations and where
  // the tip ended (model space, measured on the final pose). `reached` is
  // the solver's own verdict (stop reason kReached); the residual is
  // measured after the final renormalisation of the rotations, so the two
  // can disagree only within rounding of the tolerance.
  SolveReport* report = nullptr;
  // Optional: why the solve stopped.
  StopReason* stop_reason = nullptr;
  // Optional: bit i set when chain joint i is held at its limit in the
  // answer: its limit clamped it (by more than kLimitClampSlack) in the
  // joint's last limit pass before the final pose (that of the last kept
  // iteration; for a joint a CCD sweep that stopped early did not reach, the
  // sweep before), or it ends on its limit's boundary (the cone's edge, an
  // end of its twist or hinge range, within kLimitClampSlack) however it got
  // there. Clamps of earlier iterations that later ones undid are not
  // reported.
  std::uint64_t* limited_mask = nullptr;

  // INVALID_ARGUMENT naming the field when a required output or the
  // workspace is null, `locals` has fewer than 2 or more than
  // kMaxChainJoints joints, `constraints` is neither empty nor of the same
  // size, a number is not finite, a rotation is not unit length, a position
  // is beyond kMaxCoordinate, a bone is shorter than kMinSolveBoneLength,
  // `max_iterations` < 1 or `tolerance` < 0.
  absl::Status Validate() const;
};

}  // namespace ik

#endif  // IK_CHAIN_JOB_H_
