// FABRIK without joint limits (ik/solvers/fabrik.h): iterations on
// model-space positions alone, turned into local rotations once (for two
// bones the first one is fabrik_triangle.cc's closed form).
#include <algorithm>
#include <cmath>
#include <utility>

#include "ik/base/validate.h"
#include "solvers/chain_internal.h"
#include "solvers/fabrik_internal.h"

namespace ik::internal {
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
  // Part one (the first stage of FABRIK, Aristidou & Lasenby 2011): the tip on
  // the target, then from the tip to the root each joint slides along its bone
  // so the bone's outer end sits on the joint placed before it. The root is not
  // placed: part two puts it back on its base before reading it.
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
    const Quat turned =
        ShortestArc(rotation * ws.bones[i], points[i + 1] - points[i]) *
        rotation;
    // Normalised here (FinishChainJob then finds them unit and need not
    // run forward kinematics again).
    job.locals[i].rotation = Renormalized(glm::conjugate(parent) * turned);
    parent = turned;
  }
  ChainForwardKinematics(job, root_position);
}

// The aim's turn: the shortest arc from root -> tip to root -> target.
Quat AimTurn(const ChainJob& job, const Vec3& root_position,
             const Vec3* points) {
  const int tip = static_cast<int>(job.locals.size()) - 1;
  return ShortestArc(points[tip] - root_position,
                     job.target_model - root_position);
}

// The pose in `points` turned by `turn` about the root.
void TurnAboutRoot(const ChainJob& job, const Vec3& root_position,
                   const Quat& turn, Vec3* points) {
  const int tip = static_cast<int>(job.locals.size()) - 1;
  for (int i = 1; i <= tip; ++i) {
    points[i] = root_position + turn * (points[i] - root_position);
  }
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
                          bool triangle, PoseBuffers* poses) {
  ChainWorkspace& ws = *job.workspace;
  const int count = static_cast<int>(job.locals.size());
  if (poses->current == ws.positions.data()) {
    std::copy(poses->current, poses->current + count,
              ws.reach_positions.data());
    poses->current = ws.reach_positions.data();
  }
  if (triangle) {
    SetTriangle(job, root_position, poses->next);
  } else {
    ConvertPositions(job, root_position, poses->next);
  }
  poses->next = ws.positions.data();
  return SquaredDistance(poses->next[count - 1], job.target_model);
}

// The passes' start: for two bones, TriangleApex's pose in `poses->next`
// (true: the first iteration goes where the passes converge); else, for a
// target in reach, `poses->current` aimed at the target where AimApplies,
// `best_squared` lowered to the aimed pose's miss.
bool StartPose(const ChainJob& job, const Vec3& root_position,
               bool out_of_reach, double chain_length, PoseBuffers* poses,
               double* best_squared) {
  const int tip = static_cast<int>(job.locals.size()) - 1;
  const bool triangle =
      tip == 2 && TriangleApex(job, root_position, poses->current, poses->next);
  if (!triangle && !out_of_reach &&
      AimApplies(job, root_position, chain_length, poses->current)) {
    TurnAboutRoot(job, root_position,
                  AimTurn(job, root_position, poses->current), poses->current);
    *best_squared = std::min(
        *best_squared, SquaredDistance(poses->current[tip], job.target_model));
  }
  return triangle;
}

}  // namespace

// Targets at least this fraction of the tip's distance from the root get
// the aim below: the fraction with the fewest iterations a solve on the
// humanoid arm's cold benchmark (BM_ChainJob in bench/chain_bench.cc).
constexpr double kAimFromDistance = 0.995;

// Without limits, before the first iteration, when the target is about as
// far from the root as the tip or farther (the chain has to straighten, or
// nearly keep its bend), the pose in `points` is turned rigidly about the
// root so that its root -> tip line points at the target (FABRIK's "aim"
// initialisation). The tip then misses only by the difference of its and
// the target's distances from the root, never more than before, and the
// passes are left to unbend the chain rather than also swing it round,
// which near full reach they do slowly. A nearer target is left alone: the
// passes bend a chain that points away from the target faster than an
// aimed one. Also skipped when the joints lie (nearly) on the root -> tip
// line, where aimed passes could not bend the chain off it. True when the
// aim applies to `points`.
bool AimApplies(const ChainJob& job, const Vec3& root_position,
                double chain_length, const Vec3* points) {
  const int tip = static_cast<int>(job.locals.size()) - 1;
  const Vec3 reach = points[tip] - root_position;
  const Vec3 wanted = job.target_model - root_position;
  const double reach_squared = glm::dot(reach, reach);
  if (glm::dot(wanted, wanted) <
      kAimFromDistance * kAimFromDistance * reach_squared) {
    return false;
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
  return bent;
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

// Aimed at the target first when in reach (AimApplies); for two bones the
// first iteration is TriangleApex's pose instead, when it applies.
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
  bool triangle = StartPose(job, root_position, out_of_reach, chain_length,
                            &poses, &best_squared);
  while (*iterations < job.max_iterations) {
    ++*iterations;
    const bool triangle_iteration = triangle;
    triangle = false;
    if (triangle_iteration) {
      // `next` holds it.
    } else if (out_of_reach) {
      ReachStraight(job, root_position, poses.next);
    } else {
      ReachFree(job, root_position, poses.current, poses.next, &tip_scale);
    }
    double residual_squared = SquaredDistance(poses.next[tip], target);
    bool next_converted = false;
    if (residual_squared <= tolerance_squared) {
      residual_squared =
          ConvertReachedPose(job, root_position, triangle_iteration, &poses);
      next_converted = true;
    }
    const Verdict verdict =
        Judge(residual_squared, best_squared, tolerance_squared);
    if (verdict == Verdict::kRevertAndStop) {
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
    if (verdict != Verdict::kContinue) {
      if (!converted) ConvertPositions(job, root_position, poses.current);
      return verdict == Verdict::kReached ? StopReason::kReached
                                          : StopReason::kNoImprovement;
    }
    best_squared = residual_squared;
  }
  if (!converted) ConvertPositions(job, root_position, poses.current);
  return StopReason::kIterationCap;
}

}  // namespace ik::internal
