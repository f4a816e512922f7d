// StepDynamicsJob::Validate (declared in ik/dynamics/dynamics.h): every input
// of a step, each error naming its field.
#include <cmath>
#include <cstddef>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "dynamics/dynamics_internal.h"
#include "ik/base/validate.h"
#include "ik/dynamics/colliders.h"
#include "ik/dynamics/dynamic_chain.h"
#include "ik/dynamics/dynamics.h"
#include "ik/dynamics/prepared_dynamic_chain.h"
#include "ik/dynamics/wind_noise.h"

namespace ik {
namespace {

bool IsUnitRotation(const Quat& q) {
  const double norm_squared = q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w;
  return std::abs(norm_squared - 1.0) <= kUnitNormSquaredTolerance;
}

// IsWithinRange without a branch per component (& rather than &&), for
// the quick whole-array checks below; false for NaN too.
inline bool WithinRangeBits(const Vec3& v) {
  bool within = std::abs(v.x) <= kMaxCoordinate;
  within &= std::abs(v.y) <= kMaxCoordinate;
  within &= std::abs(v.z) <= kMaxCoordinate;
  return within;
}

absl::Status CheckRotation(const Quat& q, absl::string_view path) {
  if (!IsFinite(q)) {
    return InvalidField(path, "not finite");
  }
  if (!IsUnitRotation(q)) {
    return InvalidField(
        path, absl::StrCat("not a unit quaternion (norm ", Norm(q), ")"));
  }
  return absl::OkStatus();
}

absl::Status CheckSize(size_t size, size_t joints, absl::string_view path) {
  if (size == joints) return absl::OkStatus();
  return InvalidField(path,
                      absl::StrCat(size, " entries for ", joints, " joints"));
}

// Every error names "<path>.<field>" (path: where the state came from).
absl::Status ValidateState(const DynamicState& state, const DynamicChain& chain,
                           absl::string_view path) {
  const size_t count = chain.joints.size();
  const bool empty = state.positions.empty() &&
                     state.previous_positions.empty() &&
                     state.rotations.empty();
  if (!empty) {
    if (absl::Status status = CheckSize(state.positions.size(), count,
                                        FieldPath(path, "positions"));
        !status.ok()) {
      return status;
    }
    if (absl::Status status = CheckSize(state.previous_positions.size(), count,
                                        FieldPath(path, "previous_positions"));
        !status.ok()) {
      return status;
    }
    if (absl::Status status = CheckSize(state.rotations.size(), count,
                                        FieldPath(path, "rotations"));
        !status.ok()) {
      return status;
    }
    for (size_t i = 0; i < count; ++i) {
      if (!IsWithinRange(state.positions[i])) {
        return CheckPoint(state.positions[i],
                          absl::StrCat(path, ".positions[", i, "]"));
      }
      if (!IsWithinRange(state.previous_positions[i])) {
        return CheckPoint(state.previous_positions[i],
                          absl::StrCat(path, ".previous_positions[", i, "]"));
      }
      if (!IsUnitRotation(state.rotations[i])) {  // false for NaN too
        return CheckRotation(state.rotations[i],
                             absl::StrCat(path, ".rotations[", i, "]"));
      }
    }
  }
  if (!(state.time_remainder >= 0.0 && state.time_remainder <= chain.substep)) {
    return InvalidField(
        FieldPath(path, "time_remainder"),
        absl::StrCat("must be within [0, ", chain.substep,
                     "] s (chain.substep), got ", state.time_remainder));
  }
  if (!(state.noise_time >= 0.0 && state.noise_time <= kMaxWindTime)) {
    return InvalidField(FieldPath(path, "noise_time"),
                        absl::StrCat("must be within [0, ", kMaxWindTime,
                                     "] s, got ", state.noise_time));
  }
  return absl::OkStatus();
}

bool ClocksLookValid(const DynamicState& state, const DynamicChain& chain) {
  return (state.time_remainder >= 0.0) &
         (state.time_remainder <= chain.substep) & (state.noise_time >= 0.0) &
         (state.noise_time <= kMaxWindTime);
}

// Every check of StepDynamicsJob::Validate after the chain's, in one pass
// that builds no string: true implies they all pass, false that the
// field-by-field checks will name the problem. Validate runs on every step,
// so the common case stays short: & rather than && keeps the loops free of
// a branch per value.
bool JobLooksValid(const StepDynamicsJob& job, const DynamicChain& chain) {
  const size_t count = chain.joints.size();
  const DynamicState* const state = job.state;
  if (job.animated_world.size() != count ||
      job.colliders_world.size() > static_cast<size_t>(kMaxDynamicColliders) ||
      !(job.delta_time >= 0.0 && IsFinite(job.delta_time)) ||
      state == nullptr || !ClocksLookValid(*state, chain) ||
      (!job.rotations_world.empty() && job.rotations_world.size() != count) ||
      (!job.corrections_local.empty() &&
       job.corrections_local.size() != count) ||
      job.report == nullptr) {
    return false;
  }
  bool valid = true;
  const Transform* const animated = job.animated_world.data();
  for (size_t i = 0; i < count; ++i) {
    valid &= WithinRangeBits(animated[i].translation);
    valid &= IsUnitRotation(animated[i].rotation);
  }
  for (const Collider& collider : job.colliders_world) {
    valid &= WithinRangeBits(collider.start);
    valid &= WithinRangeBits(collider.end);
    valid &= collider.radius >= 0.0;
    valid &= collider.radius <= kMaxColliderRadius;
  }
  if (job.reset) return valid;  // the state's vectors are not checked
  if (state->positions.empty() && state->previous_positions.empty() &&
      state->rotations.empty()) {
    return valid;
  }
  if (state->positions.size() != count ||
      state->previous_positions.size() != count ||
      state->rotations.size() != count) {
    return false;
  }
  const Vec3* const positions = state->positions.data();
  const Vec3* const previous = state->previous_positions.data();
  const Quat* const rotations = state->rotations.data();
  for (size_t i = 0; i < count; ++i) {
    valid &= WithinRangeBits(positions[i]);
    valid &= WithinRangeBits(previous[i]);
    valid &= IsUnitRotation(rotations[i]);
  }
  return valid;
}

absl::Status CheckAnimated(absl::Span<const Transform> animated_world,
                           size_t count) {
  if (animated_world.size() != count) {
    return absl::InvalidArgumentError(
        absl::StrCat("animated_world: ", animated_world.size(),
                     " transforms for ", count, " joints"));
  }
  for (size_t i = 0; i < count; ++i) {
    const Transform& animated = animated_world[i];
    if (!IsWithinRange(animated.translation)) {
      return CheckPoint(animated.translation,
                        absl::StrCat("animated_world[", i, "].translation"));
    }
    if (!IsUnitRotation(animated.rotation)) {
      return CheckRotation(animated.rotation,
                           absl::StrCat("animated_world[", i, "].rotation"));
    }
  }
  return absl::OkStatus();
}

absl::Status CheckColliders(absl::Span<const Collider> colliders_world) {
  if (colliders_world.size() > static_cast<size_t>(kMaxDynamicColliders)) {
    return absl::ResourceExhaustedError(
        absl::StrCat("colliders_world: ", colliders_world.size(),
                     " colliders, at most ", kMaxDynamicColliders, " allowed"));
  }
  for (size_t i = 0; i < colliders_world.size(); ++i) {
    const Collider& collider = colliders_world[i];
    if (!IsWithinRange(collider.start) || !IsWithinRange(collider.end) ||
        !(collider.radius >= 0.0 && collider.radius <= kMaxColliderRadius)) {
      return ValidateCollider(collider,
                              absl::StrCat("colliders_world[", i, "]"));
    }
  }
  return absl::OkStatus();
}

// delta_time, then the state (only its clocks on a reset, which replaces
// the rest).
absl::Status CheckTimeAndState(const StepDynamicsJob& job,
                               const DynamicChain& chain) {
  if (!(job.delta_time >= 0.0 && IsFinite(job.delta_time))) {
    return absl::InvalidArgumentError(absl::StrCat(
        "delta_time: must be finite and >= 0 s, got ", job.delta_time));
  }
  if (job.state == nullptr) {
    return absl::InvalidArgumentError("state: null input/output");
  }
  if (job.reset) {
    DynamicState clocks;
    clocks.time_remainder = job.state->time_remainder;
    clocks.noise_time = job.state->noise_time;
    return ValidateState(clocks, chain, job.state_path);
  }
  return ValidateState(*job.state, chain, job.state_path);
}

absl::Status CheckOutputs(const StepDynamicsJob& job, size_t count) {
  if (!job.rotations_world.empty() && job.rotations_world.size() != count) {
    return absl::InvalidArgumentError(
        absl::StrCat("rotations_world: ", job.rotations_world.size(),
                     " entries for ", count, " joints (or none)"));
  }
  if (!job.corrections_local.empty() && job.corrections_local.size() != count) {
    return absl::InvalidArgumentError(
        absl::StrCat("corrections_local: ", job.corrections_local.size(),
                     " entries for ", count, " joints (or none)"));
  }
  if (job.report == nullptr) {
    return absl::InvalidArgumentError("report: null output");
  }
  return absl::OkStatus();
}

}  // namespace

namespace dynamics_internal {

absl::Status ValidateStepInputs(const StepDynamicsJob& job,
                                const DynamicChain& chain) {
  if (JobLooksValid(job, chain)) return absl::OkStatus();
  // Something is wrong: find the first field at fault, in order.
  const size_t count = chain.joints.size();
  if (absl::Status status = CheckAnimated(job.animated_world, count);
      !status.ok()) {
    return status;
  }
  if (absl::Status status = CheckColliders(job.colliders_world); !status.ok()) {
    return status;
  }
  if (absl::Status status = CheckTimeAndState(job, chain); !status.ok()) {
    return status;
  }
  return CheckOutputs(job, count);
}

}  // namespace dynamics_internal

absl::Status StepDynamicsJob::Validate() const {
  if (prepared_chain != nullptr) {
    if (chain != nullptr) {
      return absl::InvalidArgumentError(
          "chain: set chain or prepared_chain, not both");
    }
    if (prepared_chain->empty()) {
      return absl::InvalidArgumentError(
          "prepared_chain: empty (PreparedDynamicChain::Create makes one)");
    }
    return dynamics_internal::ValidateStepInputs(*this,
                                                 prepared_chain->chain());
  }
  if (chain == nullptr) {
    return absl::InvalidArgumentError("chain: null input");
  }
  if (absl::Status status = chain->Validate(); !status.ok()) {
    return absl::Status(status.code(),
                        absl::StrCat("chain.", status.message()));
  }
  return dynamics_internal::ValidateStepInputs(*this, *chain);
}

}  // namespace ik
