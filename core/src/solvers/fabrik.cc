#include "ik/solvers/fabrik.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <utility>

#include "absl/status/status.h"
#include "ik/base/validate.h"
#include "solvers/chain_internal.h"
#include "solvers/fabrik_internal.h"

namespace ik {
namespace {

// PlaceAlong's rare case, out of line so that the common one loads nothing
// it does not use.
[[gnu::noinline]] Vec3 PlaceAlongBone(const Vec3& anchor, const Vec3& bone_to,
                                      const Vec3& bone_from, double length) {
  const Vec3 fallback = bone_to - bone_from;
  return anchor + fallback * (length / glm::length(fallback));
}

// `anchor` plus `length` along anchor -> toward; along the bone from
// `bone_from` to `bone_to` (a bone of the pose before the iteration, never
// zero) when `toward` sits on `anchor` (e.g. the target on a joint).
inline Vec3 PlaceAlong(const Vec3& anchor, const Vec3& toward,
                       const Vec3& bone_to, const Vec3& bone_from,
                       double length) {
  const Vec3 direction = toward - anchor;
  const double distance_squared = glm::dot(direction, direction);
  if (distance_squared >= kMinDirectionSquared) {
    return anchor + direction * (length / std::sqrt(distance_squared));
  }
  return PlaceAlongBone(anchor, bone_to, bone_from, length);
}

// One iteration on positions alone, from `before` (the pose the iteration
// starts from) into `points`. The joint just placed stays in a register:
// reading back what was just stored stalls. `*tip_scale` carries the
// factor length / |target - joint| of the bone into the tip between
// iterations: the forward pass's last step and the next backward pass's
// first one place along the same line at the same distance, so the second
// reuses the first's square root and division (the same bits). Zero when
// unknown (first iteration, or `before` not the previous iteration's pose)
// or degenerate.
void ReachFree(const ChainJob& job, const Vec3& root_position,
               const Vec3* before, Vec3* points, double* tip_scale) {
  const int tip = static_cast<int>(job.locals.size()) - 1;
  const double* lengths = job.workspace->lengths.data();
  const Vec3& target = job.target_model;
  // Part one (seed 001): the tip on the target, then from the tip to the
  // root each joint slides along its bone so the bone's outer end sits on
  // the joint placed before it. The root is not placed: part two puts it
  // back on its base before reading it.
  Vec3 placed = target;
  if (tip >= 2) {
    const int i = tip - 1;
    placed = *tip_scale > 0.0 ? target + (before[i] - target) * *tip_scale
                              : PlaceAlong(target, before[i], before[i],
                                           before[i + 1], lengths[i]);
    points[i] = placed;
  }
  for (int i = tip - 2; i >= 1; --i) {
    placed =
        PlaceAlong(placed, before[i], before[i], before[i + 1], lengths[i]);
    points[i] = placed;
  }
  // Part two: from the root, back on its base, out to the tip.
  Vec3 previous = root_position;
  points[0] = previous;
  for (int i = 1; i < tip; ++i) {
    const Vec3& toward = i == 1 ? placed : points[i];
    previous =
        PlaceAlong(previous, toward, before[i], before[i - 1], lengths[i - 1]);
    points[i] = previous;
  }
  const Vec3 direction = target - previous;
  const double distance_squared = glm::dot(direction, direction);
  if (distance_squared >= kMinDirectionSquared) {
    *tip_scale = lengths[tip - 1] / std::sqrt(distance_squared);
    points[tip] = previous + direction * *tip_scale;
  } else {
    *tip_scale = 0.0;
    points[tip] = PlaceAlongBone(previous, before[tip], before[tip - 1],
                                 lengths[tip - 1]);
  }
}

// A target beyond reach: every bone along root -> target.
void ReachStraight(const ChainJob& job, const Vec3& root_position,
                   Vec3* points) {
  const int count = static_cast<int>(job.locals.size());
  const double* lengths = job.workspace->lengths.data();
  const Vec3 to_target = job.target_model - root_position;
  const Vec3 direction = to_target / glm::length(to_target);
  points[0] = root_position;
  for (int i = 1; i < count; ++i) {
    points[i] = points[i - 1] + direction * lengths[i - 1];
  }
}

bool IsHinge(const ChainJob& job, int i) {
  const JointConstraint* constraint = internal::ConstraintOf(job, i);
  return constraint != nullptr &&
         constraint->limit->kind == JointLimit::Kind::kHinge;
}

// Positions -> rotations with limits, root first (the seed's
// WorldToIKChain): each joint turns its bone towards the reaching position
// of the next joint from where it actually is, is clamped to its limit, and
// the next joint's position follows from the result. Leaves the
// workspace's positions and rotations as forward kinematics computes them
// (the same bits). Returns the mask of clamped joints.
std::uint64_t ConvertToRotations(const ChainJob& job,
                                 const Vec3& root_position) {
  ChainWorkspace& ws = *job.workspace;
  const int tip = static_cast<int>(job.locals.size()) - 1;
  std::uint64_t mask = 0;
  ws.positions[0] = root_position;
  // Copies, not references into the workspace: reading back what was just
  // stored stalls.
  Quat parent_rotation = ws.parent_rotation;
  Vec3 position = root_position;
  for (int i = 0; i < tip; ++i) {
    const Quat rotation = parent_rotation * job.locals[i].rotation;
    const Vec3 desired_local =
        glm::conjugate(rotation) * (ws.reach_positions[i + 1] - position);
    const JointConstraint* constraint = internal::ConstraintOf(job, i);
    Quat local =
        job.locals[i].rotation *
        internal::AimCorrection(constraint, ws.bones[i], desired_local);
    if (i + 2 <= tip && IsHinge(job, i + 1)) {
      local = glm::conjugate(parent_rotation) *
              internal::AlignHingePlane(job, i, parent_rotation,
                                        parent_rotation * local,
                                        ws.reach_positions[i + 2]);
    }
    if (constraint != nullptr) {
      const LimitedRotation limited = ApplyJointConstraint(*constraint, local);
      local = limited.rotation;
      if (limited.clamped) mask |= std::uint64_t{1} << i;
    }
    job.locals[i].rotation = local;
    parent_rotation = parent_rotation * local;
    position = position + parent_rotation * ws.bones[i];
    ws.rotations[i] = parent_rotation;
    ws.positions[i + 1] = position;
  }
  return mask;
}

// Without limits: the positions the iterations left, turned into rotations
// once (`points` may be the workspace's positions, which it then
// overwrites). Each bone swings by the shortest arc in model space from its
// direction under the workspace's rotations (those of the current locals,
// which the position passes leave alone) onto the direction the passes gave
// it; each joint's local rotation follows from its new model rotation and
// its parent's. The joints' arcs do not depend on one another. Then forward
// kinematics of the result.
void ConvertPositions(const ChainJob& job, const Vec3& root_position,
                      const Vec3* points) {
  ChainWorkspace& ws = *job.workspace;
  const int tip = static_cast<int>(job.locals.size()) - 1;
  Quat parent = ws.parent_rotation;
  for (int i = 0; i < tip; ++i) {
    const Quat& rotation = ws.rotations[i];
    const Quat turned = internal::ShortestArc(rotation * ws.bones[i],
                                              points[i + 1] - points[i]) *
                        rotation;
    // Normalised here (FinishChainJob then finds them unit and need not
    // run forward kinematics again).
    job.locals[i].rotation =
        internal::Renormalized(glm::conjugate(parent) * turned);
    parent = turned;
  }
  internal::ChainForwardKinematics(job, root_position);
}

// Targets at least this fraction of the tip's distance from the root get
// the aim below (measured on the humanoid arm's cold benchmark: 1.0 left
// 7.7 iterations a solve, 0.999 7.1, 0.995 6.5, 0.99 7.4; 9.98 without).
constexpr double kAimFromDistance = 0.995;

// Without limits, before the first iteration, when the target is about as
// far from the root as the tip or farther (the chain has to straighten, or
// nearly keep its bend): turns the pose in `points` rigidly about the root
// so that the root -> tip line points at the target (FABRIK's "aim"
// initialisation). The tip then misses only by the difference of its and
// the target's distances from the root, never more than before, and the
// passes are left to unbend the chain rather than also swing it round,
// which near full reach they do slowly. A nearer target is left alone: the
// passes bend a chain that points away from the target faster than an
// aimed one. Also skipped when the joints lie (nearly) on the root -> tip
// line, where aimed passes could not bend the chain off it. Returns the
// squared miss of the pose it leaves.
double AimAtTarget(const ChainJob& job, const Vec3& root_position,
                   double chain_length, Vec3* points) {
  const int tip = static_cast<int>(job.locals.size()) - 1;
  const Vec3 reach = points[tip] - root_position;
  const Vec3 wanted = job.target_model - root_position;
  const double reach_squared = glm::dot(reach, reach);
  const double miss_squared =
      internal::SquaredDistance(points[tip], job.target_model);
  if (glm::dot(wanted, wanted) <
      kAimFromDistance * kAimFromDistance * reach_squared) {
    return miss_squared;
  }
  // |(p - root) x reach|^2 is the squared distance of joint p from the
  // root -> tip line times |reach|^2.
  constexpr double kMinBend = 1e-3;  // of the chain's length
  const double min_bend_squared =
      kMinBend * kMinBend * chain_length * chain_length * reach_squared;
  bool bent = false;
  for (int i = 1; i < tip; ++i) {
    const Vec3 off = glm::cross(points[i] - root_position, reach);
    bent |= glm::dot(off, off) >= min_bend_squared;
  }
  if (!bent) return miss_squared;
  const Quat turn = internal::ShortestArc(reach, wanted);
  for (int i = 1; i <= tip; ++i) {
    points[i] = root_position + turn * (points[i] - root_position);
  }
  return internal::SquaredDistance(points[tip], job.target_model);
}

// The pose an iteration starts from and the one it makes: a kept
// iteration swaps them, a rejected one leaves `current` as it was.
struct PoseBuffers {
  Vec3* current = nullptr;
  Vec3* next = nullptr;
};

// Reached on positions: confirm on the rotations the answer is. The
// conversion's forward kinematics fills the workspace's positions (the new
// `next`), so the pose before the iteration moves out of the way first.
// Returns the converted pose's squared miss.
double ConvertReachedPose(const ChainJob& job, const Vec3& root_position,
                          PoseBuffers* poses) {
  ChainWorkspace& ws = *job.workspace;
  const int count = static_cast<int>(job.locals.size());
  if (poses->current == ws.positions.data()) {
    std::copy(poses->current, poses->current + count,
              ws.reach_positions.data());
    poses->current = ws.reach_positions.data();
  }
  ConvertPositions(job, root_position, poses->next);
  poses->next = ws.positions.data();
  return internal::SquaredDistance(poses->next[count - 1], job.target_model);
}

// Without limits: iterations on positions alone, from the workspace's
// positions (forward kinematics of the locals; aimed at the target first
// when in reach, see AimAtTarget), turned into rotations once
// at the end, or when they reach the target, to confirm that on the
// rotations. Counts on from *iterations; leaves the locals and the
// workspace's forward kinematics on the answer.
StopReason IterateFree(const ChainJob& job, const Vec3& root_position,
                       bool out_of_reach, double chain_length,
                       double best_squared, int* iterations) {
  ChainWorkspace& ws = *job.workspace;
  const int tip = static_cast<int>(job.locals.size()) - 1;
  const Vec3& target = job.target_model;
  const double tolerance_squared = job.tolerance * job.tolerance;
  PoseBuffers poses{ws.positions.data(), ws.saved_positions.data()};
  bool converted = false;  // the locals are `poses.current`'s
  double tip_scale = 0.0;  // see ReachFree
  if (!out_of_reach) {
    best_squared =
        std::min(best_squared,
                 AimAtTarget(job, root_position, chain_length, poses.current));
  }
  while (*iterations < job.max_iterations) {
    ++*iterations;
    if (out_of_reach) {
      ReachStraight(job, root_position, poses.next);
    } else {
      ReachFree(job, root_position, poses.current, poses.next, &tip_scale);
    }
    double residual_squared =
        internal::SquaredDistance(poses.next[tip], target);
    bool next_converted = false;
    if (residual_squared <= tolerance_squared) {
      residual_squared = ConvertReachedPose(job, root_position, &poses);
      next_converted = true;
    }
    const internal::Verdict verdict =
        internal::Judge(residual_squared, best_squared, tolerance_squared);
    if (verdict == internal::Verdict::kRevertAndStop) {
      // The rotations may be the rejected pose's: convert `current`.
      ConvertPositions(job, root_position, poses.current);
      return StopReason::kNoImprovement;
    }
    if (next_converted) {
      poses.current = poses.next;
      poses.next = ws.saved_positions.data();
      tip_scale = 0.0;  // forward kinematics moved the pose slightly
    } else {
      std::swap(poses.current, poses.next);
    }
    converted = next_converted;
    if (verdict != internal::Verdict::kContinue) {
      if (!converted) ConvertPositions(job, root_position, poses.current);
      return verdict == internal::Verdict::kReached
                 ? StopReason::kReached
                 : StopReason::kNoImprovement;
    }
    best_squared = residual_squared;
  }
  if (!converted) ConvertPositions(job, root_position, poses.current);
  return StopReason::kIterationCap;
}

// With limits: positions -> rotations -> limits -> positions every
// iteration (the conversion is part two), from the workspace's pose.
// Counts on from *iterations and updates *best_squared and *limits; sets
// *pose_current to whether the workspace's forward kinematics is the locals'.
StopReason IterateWithLimits(const ChainJob& job, const Vec3& root_position,
                             bool out_of_reach, double* best_squared,
                             int* iterations, internal::LimitMasks* limits,
                             bool* pose_current) {
  ChainWorkspace& ws = *job.workspace;
  const int tip = static_cast<int>(job.locals.size()) - 1;
  const double tolerance_squared = job.tolerance * job.tolerance;
  *pose_current = true;
  while (*iterations < job.max_iterations) {
    ++*iterations;
    internal::SaveRotations(job);
    if (out_of_reach) {
      ReachStraight(job, root_position, ws.reach_positions.data());
    } else {
      internal::ReachBackwardWithLimits(job);
    }
    const std::uint64_t iteration_mask = ConvertToRotations(job, root_position);
    const double residual_squared =
        internal::SquaredDistance(ws.positions[tip], job.target_model);
    const internal::Verdict verdict =
        internal::Judge(residual_squared, *best_squared, tolerance_squared);
    if (verdict == internal::Verdict::kRevertAndStop) {
      internal::RestoreRotations(job);
      limits->Reject(iteration_mask);
      *pose_current = false;
      return StopReason::kNoImprovement;
    }
    *best_squared = residual_squared;
    limits->Keep(iteration_mask);
    if (verdict == internal::Verdict::kReached) return StopReason::kReached;
    if (verdict == internal::Verdict::kKeepAndStop) {
      return StopReason::kNoImprovement;
    }
  }
  return StopReason::kIterationCap;
}

}  // namespace

absl::Status FabrikJob::Run() const {
  if (absl::Status status = Validate(); !status.ok()) return status;
  ChainWorkspace& ws = *workspace;
  const int tip = static_cast<int>(locals.size()) - 1;
  // Without limits the iterations stay on positions; with them every
  // iteration goes through rotations.
  const bool limited = internal::HasLimits(*this);
  internal::ChainStart start = internal::BeginChainJob(*this, limited);
  if (start.done) return absl::OkStatus();
  const Vec3& root_position = start.root_position;
  double& best_squared = start.best_squared;
  internal::LimitMasks& limits = start.limits;
  double chain_length = 0.0;
  for (int i = 0; i < tip; ++i) chain_length += ws.lengths[i];
  const bool out_of_reach =
      glm::length(target_model - root_position) >= chain_length;

  int iterations = 0;
  StopReason stop;
  bool pose_current = true;
  if (!limited) {
    stop = IterateFree(*this, root_position, out_of_reach, chain_length,
                       best_squared, &iterations);
  } else {
    stop = IterateWithLimits(*this, root_position, out_of_reach, &best_squared,
                             &iterations, &limits, &pose_current);
    if (stop == StopReason::kNoImprovement && iterations < max_iterations) {
      // Stalled on the limits: CCD sweeps take the iterations left.
      if (!pose_current) {
        internal::ChainForwardKinematics(*this, root_position);
      }
      stop = internal::RunCcdIterations(*this, root_position, &iterations,
                                        &best_squared, &limits);
      pose_current = true;
    }
  }
  internal::FinishChainJob(*this, root_position, iterations, stop, limits,
                           pose_current);
  return absl::OkStatus();
}

}  // namespace ik
