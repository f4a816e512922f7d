#include "ik/dynamics/rig_dynamics.h"

#include <array>
#include <optional>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "ik/dynamics/colliders.h"

namespace ik {

absl::Status RigDynamicsStep::Run() const {
  if (rig == nullptr || chain == nullptr || state == nullptr ||
      report == nullptr) {
    return absl::InvalidArgumentError("rig, chain, state and report: required");
  }
  const size_t joint_count = static_cast<size_t>(rig->joint_count());
  if (models_world.size() != joint_count || locals.size() != joint_count) {
    return absl::InvalidArgumentError(absl::StrCat(
        "models_world, locals: ", models_world.size(), " and ", locals.size(),
        " transforms for ", joint_count, " joints"));
  }
  const size_t count = chain->joints.size();
  if (rotations_local.size() != count) {
    return absl::InvalidArgumentError(
        absl::StrCat("rotations_local: ", rotations_local.size(),
                     " entries for ", count, " chain joints"));
  }
  if (chain->colliders.size() > static_cast<size_t>(kMaxDynamicColliders)) {
    return absl::ResourceExhaustedError(
        absl::StrCat("colliders: ", chain->colliders.size(), ", at most ",
                     kMaxDynamicColliders));
  }
  std::optional<DynamicChain> with_wind;
  if (wind != nullptr) {
    if (absl::Status status = wind->Validate(); !status.ok()) {
      return absl::Status(status.code(),
                          absl::StrCat("wind.", status.message()));
    }
    with_wind = chain->chain;
    with_wind->wind = *wind;
  }
  std::vector<Transform> animated(count);
  for (size_t k = 0; k < count; ++k) {
    animated[k] = models_world[chain->joints[k]];
  }
  std::array<Collider, kMaxDynamicColliders> colliders;
  const size_t collider_count = chain->colliders.size();
  for (size_t c = 0; c < collider_count; ++c) {
    const AttachedCollider& attached = rig->colliders()[chain->colliders[c]];
    colliders[c] = PlaceCollider(attached.shape, models_world[attached.joint]);
  }
  std::vector<Quat> corrections(count);
  StepDynamicsJob job;
  job.chain = with_wind.has_value() ? &*with_wind : &chain->chain;
  job.animated_world = animated;
  job.colliders_world = absl::MakeConstSpan(colliders.data(), collider_count);
  job.delta_time = delta_time;
  job.reset = reset;
  job.state = state;
  job.state_path = state_path;
  job.corrections_local = absl::MakeSpan(corrections);
  job.report = report;
  if (absl::Status status = job.Run(); !status.ok()) return status;
  for (size_t k = 0; k < count; ++k) {
    rotations_local[k] =
        glm::normalize(locals[chain->joints[k]].rotation * corrections[k]);
  }
  return absl::OkStatus();
}

}  // namespace ik
