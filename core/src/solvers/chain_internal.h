// Internals shared by the iterative chain jobs (fabrik.cc, ccd.cc): forward
// kinematics on the workspace, limit passes, aiming a joint, the stopping
// rule and the final report. Not part of the public API.
#ifndef IK_SRC_CHAIN_INTERNAL_H_
#define IK_SRC_CHAIN_INTERNAL_H_

#include <cmath>
#include <cstdint>
#include <optional>

#include "absl/status/status.h"
#include "ik/base/joint_limits.h"
#include "ik/base/math.h"
#include "ik/base/validate.h"
#include "ik/solvers/chain_job.h"

namespace ik::internal {

// Vectors shorter than this, metres, count as zero directions.

// The limits' part of an iterative solve: the clamps of the last kept
// iteration, and every joint a clamp moved along the way, kept or not.
struct LimitMasks {
  std::uint64_t kept = 0;
  std::uint64_t pushed = 0;
  void Keep(std::uint64_t mask) {
    kept = mask;
    pushed |= mask;
  }
  void Reject(std::uint64_t mask) { pushed |= mask; }
};

// CCD's iterations (ccd.cc) from the pose in the workspace (its forward
// kinematics current): sweeps counted on from *iterations up to
// job.max_iterations, each judged by the stopping rule against
// *best_squared (the best squared residual so far), which they update, as
// they do *limits. Leaves the workspace's
// forward kinematics current and returns why they stopped.
StopReason RunCcdIterations(const ChainJob& job, const Vec3& root_position,
                            int* iterations, double* best_squared,
                            LimitMasks* limits);

// Where an iterative job stands before its first iteration.
struct ChainStart {
  Vec3 root_position{0.0};
  LimitMasks limits;          // from the incoming pose's clamps on
  double best_squared = 0.0;  // squared miss of the incoming pose
  double tolerance_squared = 0.0;
  bool done = false;  // already within tolerance: outputs filled, stop here
};

// ChainJob::Validate()'s checks with PrepareChain's work (below) in one
// pass that builds no status: true, with the chain prepared and the root's
// model position in *root_position, when `job` passes them all; false when
// one fails (the locals untouched, the workspace's contents meaning
// nothing). chain_job.cc, next to the checks it mirrors.
bool PrepareValidChain(const ChainJob& job, Vec3* root_position);

// The start every iterative job shares: prepares the chain, clamps the
// incoming pose to the limits when `apply_limits`, runs forward kinematics
// and measures the miss. When the tip is already within tolerance it
// finishes the job (0 iterations, kReached) and says `done`.
ChainStart BeginChainJob(const ChainJob& job, bool apply_limits);

// ChainJob::Validate(), then BeginChainJob(job, true) into *start, with the
// validation and the preparation done in one pass (PrepareValidChain). An
// error is Validate()'s, with nothing touched.
absl::Status ValidateAndBeginChainJob(const ChainJob& job, ChainStart* start);

// A squared norm within a few units of rounding of 1.
inline bool IsUnitToRounding(double norm_squared) {
  return std::abs(norm_squared - 1.0) <= 4.0 * 2.220446049250313e-16;
}

// `q` normalised, or `q` itself when its squared norm is already within a
// few units of rounding of 1 (the common case: a square root and a
// division saved).
inline Quat Renormalized(const Quat& q) {
  const double norm_squared = glm::dot(q, q);
  if (IsUnitToRounding(norm_squared)) return q;
  return q * (1.0 / std::sqrt(norm_squared));
}

// Normalises the turned joints' rotations in place (those not already unit
// to rounding), fills the workspace's parent rotation (normalised), bones
// and lengths, and returns the root joint's model position (which no
// rotation of the chain moves).
Vec3 PrepareChain(const ChainJob& job);

// Model positions of joints [from, n) and rotations of joints [from, n - 1)
// (the tip's is never needed) from the local rotations; joints before
// `from` must be up to date in the workspace.
void ChainForwardKinematics(const ChainJob& job, const Vec3& root_position,
                            int from = 0);

// True when a joint the solve turns (any but the tip) has a limit.
bool HasAnyLimit(const ChainJob& job);
inline bool HasLimits(const ChainJob& job) {
  return !job.constraints.empty() && HasAnyLimit(job);
}

// Applies the limit of every turned joint to its local rotation; returns the
// mask of those it clamped.
std::uint64_t ApplyAllLimits(const ChainJob& job);

// The joints of `joints` (a mask) that sit on their limit's boundary -- the
// swing cone's edge, an end of the twist or hinge range, within
// kLimitClampSlack -- in the current pose: their limit holds them there,
// whether a clamp of the last iteration put them there, an earlier one, or
// the incoming pose.
std::uint64_t HeldAtLimits(const ChainJob& job, std::uint64_t joints);

// FromTo (ik/base/math.h) with the same results up to rounding, in fewer square
// roots and divisions: the shortest arc turning `from` into `to`.
inline Quat ShortestArc(const Vec3& from, const Vec3& to) {
  const double from_squared = glm::dot(from, from);
  const double to_squared = glm::dot(to, to);
  if (!(from_squared >= kMinDirectionSquared) ||
      !(to_squared >= kMinDirectionSquared)) {
    return IdentityQuat();
  }
  // (|a||b| + a.b, a x b) is the arc scaled by 2 |a||b| cos(angle / 2).
  const double lengths = std::sqrt(from_squared * to_squared);
  const double w = lengths + glm::dot(from, to);
  if (w < 1e-12 * lengths) return FromTo(from, to);  // (nearly) opposite
  const Vec3 v = glm::cross(from, to);
  const double scale = 1.0 / std::sqrt(w * w + glm::dot(v, v));
  return Quat(w * scale, v.x * scale, v.y * scale, v.z * scale);
}

// The local correction (post-multiplied into the joint's local rotation)
// turning direction `from_local` towards `to_local`, both in the joint's
// rotated frame. A hinge joint turns only about its axis (the best such
// turn: between the directions' projections across the axis), so a pose on
// the hinge stays on it; any other joint takes the shortest arc. Identity
// for zero-length directions.
Quat AimCorrection(const JointConstraint* constraint, const Vec3& from_local,
                   const Vec3& to_local);

// Swivels: the rotations R(axis, psi) * relative of a joint's relative
// rotation about a fixed unit axis of its rest frame (e.g. the line from the
// joint to the target, about which turning the whole limb keeps the tip on
// that line). Returns the psi in (-pi, pi] of smallest magnitude for which
// the swivelled rotation is within the ball-and-socket limit (up to
// kLimitClampSlack), or nullopt when none is. Solved in closed form: the
// twist's and the cone's boundaries are each crossed where a sinusoid of psi
// vanishes, and the nearest feasible swivel is one of those crossings.
std::optional<double> NearestFeasibleSwivel(const BallSocketLimit& limit,
                                            const Quat& relative,
                                            const Vec3& axis);

// The constraint of chain joint i, or nullptr.
inline const JointConstraint* ConstraintOf(const ChainJob& job, int i) {
  if (job.constraints.empty()) return nullptr;
  const JointConstraint& constraint = job.constraints[i];
  if (constraint.limit == nullptr ||
      constraint.limit->kind == JointLimit::Kind::kNone) {
    return nullptr;
  }
  return &constraint;
}

// Saves / restores the turned joints' local rotations.
void SaveRotations(const ChainJob& job);
void RestoreRotations(const ChainJob& job);

// The stopping rule (ik/solvers/chain_job.h) after an iteration that ended at
// squared residual `residual_squared`, given the best one so far, all
// squared (no square root per iteration).
enum class Verdict {
  kContinue,       // improved: keep going
  kReached,        // within tolerance: keep the pose and stop
  kKeepAndStop,    // improved too little: keep the pose and stop
  kRevertAndStop,  // no closer: restore the previous pose and stop
};
inline Verdict Judge(double residual_squared, double best_squared,
                     double tolerance_squared) {
  constexpr double kFactor =
      (1.0 - kMinRelativeImprovement) * (1.0 - kMinRelativeImprovement);
  if (residual_squared <= tolerance_squared) return Verdict::kReached;
  if (residual_squared < best_squared * kFactor) return Verdict::kContinue;
  return residual_squared < best_squared ? Verdict::kKeepAndStop
                                         : Verdict::kRevertAndStop;
}

inline double SquaredDistance(const Vec3& a, const Vec3& b) {
  const Vec3 d = a - b;
  return glm::dot(d, d);
}

// Normalises the turned joints' rotations (the iterations compose unit
// rotations without renormalising: the drift stays near rounding), measures
// the final pose (forward kinematics, skipped when `pose_current` says the
// workspace already holds it and no rotation needed renormalising: the same
// bits) and fills the outputs. The limited joints reported: the last kept
// iteration's clamps, and the joints any clamp moved that end on their
// limit's boundary (HeldAtLimits).
void FinishChainJob(const ChainJob& job, const Vec3& root_position,
                    int iterations, StopReason stop_reason,
                    const LimitMasks& limits, bool pose_current);

// FinishChainJob's outputs for a final pose whose tip is at `tip_model`.
void ReportChainJob(const ChainJob& job, const Vec3& tip_model, int iterations,
                    StopReason stop_reason, std::uint64_t limited_mask);

}  // namespace ik::internal

#endif  // IK_SRC_CHAIN_INTERNAL_H_
