#include "solvers/chain_internal.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>

#include "ik/base/joint_limits.h"
#include "ik/base/trig.h"

namespace ik {
namespace {

// Renormalises `q` in place; true when that changed it.
bool Renormalize(Quat& q) {
  const double norm_squared = glm::dot(q, q);
  if (std::abs(norm_squared - 1.0) <= 4.0 * 2.220446049250313e-16) {
    return false;
  }
  q = q * (1.0 / std::sqrt(norm_squared));
  return true;
}

}  // namespace

namespace internal {

Vec3 PrepareChain(const ChainJob& job) {
  ChainWorkspace& ws = *job.workspace;
  const int count = static_cast<int>(job.locals.size());
  for (int i = 0; i + 1 < count; ++i) {
    job.locals[i].rotation = Renormalized(job.locals[i].rotation);
  }
  const Transform& parent = job.parent_model;
  ws.parent_rotation = Renormalized(parent.rotation);
  Vec3 scale = parent.scale * job.locals[0].scale;
  for (int i = 0; i + 1 < count; ++i) {
    ws.bones[i] = scale * job.locals[i + 1].translation;
    ws.lengths[i] = glm::length(ws.bones[i]);
    scale *= job.locals[i + 1].scale;
  }
  return parent.translation +
         ws.parent_rotation * (parent.scale * job.locals[0].translation);
}

void ChainForwardKinematics(const ChainJob& job, const Vec3& root_position,
                            int from) {
  ChainWorkspace& ws = *job.workspace;
  const int count = static_cast<int>(job.locals.size());
  // The running position and rotation stay in registers: reading back what
  // was just stored (a rotation straddling two stores) stalls.
  Vec3 position;
  Quat rotation;
  if (from == 0) {
    position = root_position;
    rotation = ws.parent_rotation * job.locals[0].rotation;
    ws.positions[0] = position;
    ws.rotations[0] = rotation;
    from = 1;
  } else {
    position = ws.positions[from - 1];
    rotation = ws.rotations[from - 1];
  }
  // The tip's rotation moves nothing: not computed.
  for (int i = from; i < count; ++i) {
    position = position + rotation * ws.bones[i - 1];
    ws.positions[i] = position;
    if (i + 1 < count) {
      rotation = rotation * job.locals[i].rotation;
      ws.rotations[i] = rotation;
    }
  }
}

bool HasAnyLimit(const ChainJob& job) {
  const int count = static_cast<int>(job.locals.size());
  for (int i = 0; i + 1 < count; ++i) {
    if (ConstraintOf(job, i) != nullptr) return true;
  }
  return false;
}

std::uint64_t ApplyAllLimits(const ChainJob& job) {
  std::uint64_t mask = 0;
  const int count = static_cast<int>(job.locals.size());
  for (int i = 0; i + 1 < count; ++i) {
    const JointConstraint* constraint = ConstraintOf(job, i);
    if (constraint == nullptr) continue;
    const LimitedRotation limited =
        ApplyJointConstraint(*constraint, job.locals[i].rotation);
    job.locals[i].rotation = limited.rotation;
    if (limited.clamped) mask |= std::uint64_t{1} << i;
  }
  return mask;
}

std::uint64_t HeldAtLimits(const ChainJob& job, std::uint64_t joints) {
  std::uint64_t held = 0;
  const int count = static_cast<int>(job.locals.size());
  for (int i = 0; i + 1 < count; ++i) {
    const std::uint64_t bit = std::uint64_t{1} << i;
    const JointConstraint* constraint = ConstraintOf(job, i);
    if ((joints & bit) == 0 || constraint == nullptr ||
        constraint->limit == nullptr) {
      continue;
    }
    if (OnJointLimitBoundary(*constraint->limit, constraint->rest_rotation,
                             job.locals[i].rotation)) {
      held |= bit;
    }
  }
  return held;
}

Quat AimCorrection(const JointConstraint* constraint, const Vec3& from_local,
                   const Vec3& to_local) {
  if (constraint == nullptr ||
      constraint->limit->kind != JointLimit::Kind::kHinge) {
    return ShortestArc(from_local, to_local);
  }
  // Within the hinge's plane the shortest arc turns about the axis itself;
  // half turns too (FromTo's fallback axis would leave the plane).
  const Vec3& axis = constraint->limit->hinge.axis;
  Vec3 from = from_local - glm::dot(from_local, axis) * axis;
  Vec3 to = to_local - glm::dot(to_local, axis) * axis;
  const double from_length = glm::length(from);
  const double to_length = glm::length(to);
  if (!(from_length >= kMinDirectionLength) ||
      !(to_length >= kMinDirectionLength)) {
    return IdentityQuat();
  }
  from /= from_length;
  to /= to_length;
  const double w = 1.0 + glm::dot(from, to);
  if (w < 1e-12) return Quat(0.0, axis.x, axis.y, axis.z);
  const Vec3 v = glm::cross(from, to);
  return glm::normalize(Quat(w, v.x, v.y, v.z));
}

void SaveRotations(const ChainJob& job) {
  const int count = static_cast<int>(job.locals.size());
  for (int i = 0; i + 1 < count; ++i) {
    job.workspace->saved_rotations[i] = job.locals[i].rotation;
  }
}

void RestoreRotations(const ChainJob& job) {
  const int count = static_cast<int>(job.locals.size());
  for (int i = 0; i + 1 < count; ++i) {
    job.locals[i].rotation = job.workspace->saved_rotations[i];
  }
}

namespace {

// BeginChainJob's work once the chain is prepared.
void MeasureStart(const ChainJob& job, const Vec3& root_position,
                  bool apply_limits, ChainStart* start) {
  start->root_position = root_position;
  if (apply_limits && !job.constraints.empty()) {
    start->limits.Keep(ApplyAllLimits(job));
  }
  ChainForwardKinematics(job, root_position);
  const int tip = static_cast<int>(job.locals.size()) - 1;
  start->tolerance_squared = job.tolerance * job.tolerance;
  start->best_squared =
      SquaredDistance(job.workspace->positions[tip], job.target_model);
  if (start->best_squared <= start->tolerance_squared) {
    FinishChainJob(job, root_position, 0, StopReason::kReached, start->limits,
                   /*pose_current=*/true);
    start->done = true;
  }
}

}  // namespace

ChainStart BeginChainJob(const ChainJob& job, bool apply_limits) {
  ChainStart start;
  MeasureStart(job, PrepareChain(job), apply_limits, &start);
  return start;
}

absl::Status ValidateAndBeginChainJob(const ChainJob& job, ChainStart* start) {
  Vec3 root_position;
  if (!PrepareValidChain(job, &root_position)) {
    // The detailed checks name what is wrong; PrepareValidChain tests the
    // same conditions, so they fail too (and if not, the chain is valid).
    if (absl::Status status = job.Validate(); !status.ok()) return status;
    root_position = PrepareChain(job);
  }
  MeasureStart(job, root_position, /*apply_limits=*/true, start);
  return absl::OkStatus();
}

void FinishChainJob(const ChainJob& job, const Vec3& root_position,
                    int iterations, StopReason stop_reason,
                    const LimitMasks& limits, bool pose_current) {
  const int count = static_cast<int>(job.locals.size());
  bool renormalized = false;
  for (int i = 0; i + 1 < count; ++i) {
    renormalized |= Renormalize(job.locals[i].rotation);
  }
  // Forward kinematics of unchanged rotations would give the same bits.
  if (renormalized || !pose_current) {
    ChainForwardKinematics(job, root_position);
  }
  const int tip = static_cast<int>(job.locals.size()) - 1;
  // Which joints sit on their limit is measured only for a caller that
  // asks (a boundary test per limited joint).
  const std::uint64_t turned = (std::uint64_t{1} << (count - 1)) - 1;
  ReportChainJob(job, job.workspace->positions[tip], iterations, stop_reason,
                 job.limited_mask == nullptr
                     ? limits.kept
                     : limits.kept | HeldAtLimits(job, turned));
}

void ReportChainJob(const ChainJob& job, const Vec3& tip_model, int iterations,
                    StopReason stop_reason, std::uint64_t limited_mask) {
  SolveReport& report = *job.report;
  report.tip_model = tip_model;
  report.residual = glm::length(tip_model - job.target_model);
  report.reached = stop_reason == StopReason::kReached;
  report.iterations = iterations;
  if (job.stop_reason != nullptr) *job.stop_reason = stop_reason;
  if (job.limited_mask != nullptr) *job.limited_mask = limited_mask;
}

std::optional<double> NearestFeasibleSwivel(const BallSocketLimit& limit,
                                            const Quat& relative,
                                            const Vec3& axis) {
  // Candidates: where the swivel crosses a boundary of the limit.
  double candidates[4];
  int count = 0;
  auto add = [&](double psi) {
    psi = std::remainder(psi, 2.0 * kPi);  // (-pi, pi]
    if (psi <= -kPi) psi += 2.0 * kPi;
    candidates[count++] = psi;
  };
  const double w0 = relative.w;
  const Vec3 v0(relative.x, relative.y, relative.z);
  const Vec3& bone = limit.twist_axis;
  if (limit.has_twist) {
    // With (c, s) = (cos, sin)(psi / 2) the twist part of R * relative is
    // (W, S) = (c w0 - s a.v0, c v0.t + s (w0 a.t + (a x v0).t)); its angle
    // is the bound 2 theta where W sin(theta) = S cos(theta), linear in
    // (c, s).
    const double w_c = w0;
    const double w_s = -glm::dot(axis, v0);
    const double s_c = glm::dot(v0, bone);
    const double s_s =
        w0 * glm::dot(axis, bone) + glm::dot(glm::cross(axis, v0), bone);
    for (const double bound : {limit.twist.min, limit.twist.max}) {
      const double half = 0.5 * bound;
      const double alpha = w_c * Sin(half) - s_c * Cos(half);
      const double beta = w_s * Sin(half) - s_s * Cos(half);
      if (std::abs(alpha) + std::abs(beta) > 1e-15) {
        add(2.0 * Atan2(-alpha, beta));
      }
    }
  }
  if (limit.swing_max < kPi) {
    // The bone's direction d(psi) = R * d0 against the cone's axis:
    // d . axis = P + Q cos(psi) + R sin(psi) = cos(swing_max) at the edge.
    const Vec3 d0 = relative * bone;
    const double along = glm::dot(axis, d0);
    const double p = along * glm::dot(axis, limit.axis);
    const double q = glm::dot(d0, limit.axis) - p;
    const double r = glm::dot(glm::cross(axis, d0), limit.axis);
    const double amplitude = std::sqrt(q * q + r * r);
    const double level = Cos(limit.swing_max) - p;
    if (amplitude > 1e-15 && std::abs(level) <= amplitude) {
      const double phase = Atan2(r, q);
      const double spread = Acos(level / amplitude);
      add(phase + spread);
      add(phase - spread);
    }
  }
  std::optional<double> best;
  for (int k = 0; k < count; ++k) {
    const double psi = candidates[k];
    if (best.has_value() && std::abs(psi) >= std::abs(*best)) continue;
    const Quat swivelled = AngleAxis(psi, axis) * relative;
    if (!ApplyBallSocketLimit(limit, swivelled).clamped) best = psi;
  }
  return best;
}

}  // namespace internal
}  // namespace ik
