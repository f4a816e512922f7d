#include "ik/dynamics/rig_dynamics.h"

#include <array>
#include <optional>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "ik/base/field_error.h"
#include "ik/dynamics/colliders.h"

namespace ik {
namespace {

// The step's own fields: pointers, sizes and the chain's colliders.
absl::Status CheckStepInputs(const RigDynamicsStep& step) {
  if (step.rig == nullptr) return InvalidField("rig", "not set");
  if (step.chain == nullptr) return InvalidField("chain", "not set");
  if (step.state == nullptr) return InvalidField("state", "not set");
  if (step.report == nullptr) return InvalidField("report", "not set");
  const size_t joint_count = static_cast<size_t>(step.rig->joint_count());
  if (step.models_world.size() != joint_count) {
    return InvalidField("models_world", absl::StrCat(step.models_world.size(),
                                                     " transforms for ",
                                                     joint_count, " joints"));
  }
  if (step.locals.size() != joint_count) {
    return InvalidField("locals",
                        absl::StrCat(step.locals.size(), " transforms for ",
                                     joint_count, " joints"));
  }
  const size_t count = step.chain->joints.size();
  if (step.rotations_local.size() != count) {
    return InvalidField("rotations_local",
                        absl::StrCat(step.rotations_local.size(),
                                     " entries for ", count, " chain joints"));
  }
  if (step.chain->colliders.size() >
      static_cast<size_t>(kMaxDynamicColliders)) {
    return FieldError(absl::StatusCode::kResourceExhausted, "chain.colliders",
                      absl::StrCat(step.chain->colliders.size(), ", at most ",
                                   kMaxDynamicColliders));
  }
  for (const int collider : step.chain->colliders) {
    if (collider < 0 ||
        static_cast<size_t>(collider) >= step.colliders.size()) {
      return InvalidField(
          "colliders",
          absl::StrCat(step.colliders.size(),
                       " colliders; the chain uses collider ", collider));
    }
  }
  if (step.wind != nullptr) return step.wind->Validate("wind");
  return absl::OkStatus();
}

// What the chain's step job takes, gathered from the whole pose: the
// chain's animated world transforms, its colliders placed on their joints
// and the chain's settings with the wind replaced.
struct PreparedStep {
  std::optional<DynamicChain> with_wind;
  std::vector<Transform> animated;
  std::array<Collider, kMaxDynamicColliders> colliders;
  std::vector<Quat> corrections;
  StepDynamicsJob job;
};

void Prepare(const RigDynamicsStep& step, PreparedStep& prepared) {
  const DynamicChainBinding& chain = *step.chain;
  if (step.wind != nullptr) {
    prepared.with_wind = chain.chain;
    prepared.with_wind->wind = *step.wind;
  }
  const size_t count = chain.joints.size();
  prepared.animated.resize(count);
  for (size_t k = 0; k < count; ++k) {
    prepared.animated[k] = step.models_world[chain.joints[k]];
  }
  const size_t collider_count = chain.colliders.size();
  for (size_t c = 0; c < collider_count; ++c) {
    const AttachedCollider& attached = step.colliders[chain.colliders[c]];
    prepared.colliders[c] =
        PlaceCollider(attached.shape, step.models_world[attached.joint]);
  }
  prepared.corrections.resize(count);
  StepDynamicsJob& job = prepared.job;
  job.chain =
      prepared.with_wind.has_value() ? &*prepared.with_wind : &chain.chain;
  job.animated_world = prepared.animated;
  job.colliders_world =
      absl::MakeConstSpan(prepared.colliders.data(), collider_count);
  job.delta_time = step.delta_time;
  job.reset = step.reset;
  job.state = step.state;
  job.state_path = step.state_path;
  job.corrections_local = absl::MakeSpan(prepared.corrections);
  job.report = step.report;
}

}  // namespace

absl::Status RigDynamicsStep::Validate() const {
  if (absl::Status status = CheckStepInputs(*this); !status.ok()) {
    return status;
  }
  PreparedStep prepared;
  Prepare(*this, prepared);
  return prepared.job.Validate();
}

absl::Status RigDynamicsStep::Run() const {
  if (absl::Status status = CheckStepInputs(*this); !status.ok()) {
    return status;
  }
  PreparedStep prepared;
  Prepare(*this, prepared);
  if (absl::Status status = prepared.job.Run(); !status.ok()) return status;
  for (size_t k = 0; k < chain->joints.size(); ++k) {
    rotations_local[k] = glm::normalize(locals[chain->joints[k]].rotation *
                                        prepared.corrections[k]);
  }
  return absl::OkStatus();
}

}  // namespace ik
