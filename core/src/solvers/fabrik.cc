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

bool IsHinge(const ChainJob& job, int i) {
  const JointConstraint* constraint = internal::ConstraintOf(job, i);
  return constraint != nullptr &&
         constraint->limit->kind == JointLimit::Kind::kHinge;
}

// Positions -> rotations with limits, root first (Szauer's
// FABRIKSolver::WorldToIKChain): each joint turns its bone towards the reaching
// position of the next joint from where it actually is, is clamped to its
// limit, and the next joint's position follows from the result. Leaves the
// workspace's positions and rotations as forward kinematics computes them (the
// same bits). Returns the mask of clamped joints.
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
      internal::ReachStraight(job, root_position, ws.reach_positions.data());
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
  internal::ChainStart start;
  if (absl::Status status = internal::ValidateAndBeginChainJob(*this, &start);
      !status.ok() || start.done) {
    return status;
  }
  // Without limits the iterations stay on positions; with them every
  // iteration goes through rotations.
  const bool limited = internal::HasLimits(*this);
  const int tip = static_cast<int>(locals.size()) - 1;
  const Vec3& root_position = start.root_position;
  if (!limited && tip == 2 &&
      internal::ReachTriangleAtOnce(*this, root_position)) {
    return absl::OkStatus();
  }
  ChainWorkspace& ws = *workspace;
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
    stop = internal::IterateFree(*this, root_position, out_of_reach,
                                 chain_length, best_squared, &iterations);
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
