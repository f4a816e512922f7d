#include "ik/fabrik.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>

#include "absl/status/status.h"
#include "chain_internal.h"
#include "fabrik_internal.h"

namespace ik {
namespace {

using internal::kMinDirectionLength;

// `anchor` plus `length` along anchor -> toward; along `fallback` (a bone of
// the pose before the iteration, never zero) when `toward` sits on
// `anchor` (e.g. the target on a joint).
inline Vec3 PlaceAlong(const Vec3& anchor, const Vec3& toward,
                       const Vec3& fallback, double length) {
  const Vec3 direction = toward - anchor;
  const double distance = glm::length(direction);
  if (distance >= kMinDirectionLength) {
    return anchor + direction * (length / distance);
  }
  return anchor + fallback * (length / glm::length(fallback));
}

// Part one (seed 001): from the tip to the root, each joint slides along
// its bone so the bone's outer end sits on the joint placed before it. In
// place on `points`; `before` holds them as the iteration found them.
void ReachBackward(const ChainJob& job, Vec3* points, const Vec3* before) {
  const int tip = static_cast<int>(job.locals.size()) - 1;
  const double* lengths = job.workspace->lengths.data();
  points[tip] = job.target_model;
  for (int i = tip - 1; i >= 0; --i) {
    points[i] = PlaceAlong(points[i + 1], points[i], before[i] - before[i + 1],
                           lengths[i]);
  }
}

// Part two: from the root (back on its base) out to the tip.
void ReachForward(const ChainJob& job, const Vec3& root_position, Vec3* points,
                  const Vec3* before) {
  const int count = static_cast<int>(job.locals.size());
  const double* lengths = job.workspace->lengths.data();
  points[0] = root_position;
  for (int i = 1; i < count; ++i) {
    points[i] = PlaceAlong(points[i - 1], points[i], before[i] - before[i - 1],
                           lengths[i - 1]);
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

// Positions -> rotations, root first (the seed's WorldToIKChain): each joint
// turns its bone towards the reaching position of the next joint from where
// it actually is, is clamped to its limit when `apply_limits`, and the next
// joint's position follows from the result. Leaves the workspace's
// positions and rotations as forward kinematics computes them. Returns the
// mask of clamped joints.
std::uint64_t ConvertToRotations(const ChainJob& job, const Vec3& root_position,
                                 bool apply_limits) {
  ChainWorkspace& ws = *job.workspace;
  const int tip = static_cast<int>(job.locals.size()) - 1;
  std::uint64_t mask = 0;
  ws.positions[0] = root_position;
  for (int i = 0; i < tip; ++i) {
    const Quat& parent_rotation =
        i == 0 ? ws.parent_rotation : ws.rotations[i - 1];
    const Quat rotation = parent_rotation * job.locals[i].rotation;
    const Vec3 desired_local = glm::conjugate(rotation) *
                               (ws.reach_positions[i + 1] - ws.positions[i]);
    const JointConstraint* constraint =
        apply_limits ? internal::ConstraintOf(job, i) : nullptr;
    Quat local =
        job.locals[i].rotation *
        internal::AimCorrection(constraint, ws.bones[i], desired_local);
    if (apply_limits && i + 2 <= tip && IsHinge(job, i + 1)) {
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
    ws.rotations[i] = parent_rotation * local;
    ws.positions[i + 1] = ws.positions[i] + ws.rotations[i] * ws.bones[i];
  }
  ws.rotations[tip] = ws.rotations[tip - 1] * job.locals[tip].rotation;
  return mask;
}

// Without limits: the positions the iterations left, turned into rotations
// once.
void ConvertPositions(const ChainJob& job, const Vec3& root_position) {
  ChainWorkspace& ws = *job.workspace;
  const int count = static_cast<int>(job.locals.size());
  std::copy(ws.positions.begin(), ws.positions.begin() + count,
            ws.reach_positions.begin());
  ConvertToRotations(job, root_position, false);
}

}  // namespace

absl::Status FabrikJob::Run() const {
  if (absl::Status status = Validate(); !status.ok()) return status;
  ChainWorkspace& ws = *workspace;
  const int count = static_cast<int>(locals.size());
  const int tip = count - 1;
  const Vec3 root_position = internal::PrepareChain(*this);
  // Without limits the iterations stay on positions; with them every
  // iteration goes through rotations.
  const bool limited = internal::HasLimits(*this);
  std::uint64_t mask = limited ? internal::ApplyAllLimits(*this) : 0;
  internal::ChainForwardKinematics(*this, root_position);
  const double tolerance_squared = tolerance * tolerance;
  double best_squared =
      internal::SquaredDistance(ws.positions[tip], target_model);
  if (best_squared <= tolerance_squared) {
    internal::FinishChainJob(*this, root_position, 0, StopReason::kReached,
                             mask);
    return absl::OkStatus();
  }
  double chain_length = 0.0;
  for (int i = 0; i < tip; ++i) chain_length += ws.lengths[i];
  const bool out_of_reach =
      glm::length(target_model - root_position) >= chain_length;

  StopReason stop = StopReason::kIterationCap;
  bool converted = false;  // locals match the positions (no-limit case)
  int iterations = 0;
  while (iterations < max_iterations) {
    ++iterations;
    std::uint64_t iteration_mask = 0;
    double residual_squared;
    converted = false;
    if (limited) {
      // Positions -> rotations -> limits -> positions: the conversion is
      // part two.
      internal::SaveRotations(*this);
      if (out_of_reach) {
        ReachStraight(*this, root_position, ws.reach_positions.data());
      } else {
        internal::ReachBackwardWithLimits(*this);
      }
      iteration_mask = ConvertToRotations(*this, root_position, true);
      residual_squared =
          internal::SquaredDistance(ws.positions[tip], target_model);
    } else {
      // On positions alone.
      Vec3* points = ws.positions.data();
      const Vec3* before = ws.saved_positions.data();
      std::copy(points, points + count, ws.saved_positions.data());
      if (out_of_reach) {
        ReachStraight(*this, root_position, points);
      } else {
        ReachBackward(*this, points, before);
        ReachForward(*this, root_position, points, before);
      }
      residual_squared = internal::SquaredDistance(points[tip], target_model);
      if (residual_squared <= tolerance_squared) {
        // Reached on positions: confirm on the rotations the answer is.
        ConvertPositions(*this, root_position);
        converted = true;
        residual_squared =
            internal::SquaredDistance(ws.positions[tip], target_model);
      }
    }
    const internal::Verdict verdict =
        internal::Judge(residual_squared, best_squared, tolerance_squared);
    if (verdict == internal::Verdict::kContinue) {
      best_squared = residual_squared;
      mask = iteration_mask;
      continue;
    }
    if (verdict == internal::Verdict::kRevertAndStop) {
      if (limited) {
        internal::RestoreRotations(*this);
      } else {
        std::copy(ws.saved_positions.begin(),
                  ws.saved_positions.begin() + count, ws.positions.begin());
        converted = false;
      }
    } else {
      mask = iteration_mask;
    }
    stop = verdict == internal::Verdict::kReached ? StopReason::kReached
                                                  : StopReason::kNoImprovement;
    break;
  }
  if (!limited && !converted) ConvertPositions(*this, root_position);
  internal::FinishChainJob(*this, root_position, iterations, stop, mask);
  return absl::OkStatus();
}

}  // namespace ik
