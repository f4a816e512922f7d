#include "ik/dynamics/rig_dynamics.h"

#include <algorithm>
#include <cstddef>
#include <new>
#include <optional>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "dynamics/dynamics_internal.h"
#include "ik/base/field_error.h"
#include "ik/dynamics/colliders.h"
#include "ik/dynamics/prepared_dynamic_chain.h"

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

// Room for `N` values of T on the stack, none constructed until Put: the
// step gathers a few of the chain's transforms and colliders into buffers
// sized for the largest chain it takes, and constructing them all would
// cost more than the step.
template <typename T, size_t N>
class StackBuffer {
 public:
  T* Put(size_t index, const T& value) {
    return new (bytes_ + index * sizeof(T)) T(value);
  }
  T* data() { return reinterpret_cast<T*>(bytes_); }

 private:
  alignas(T) unsigned char bytes_[N * sizeof(T)];
};

// What the chain's step takes, gathered from the whole pose: the chain's
// animated world transforms and its colliders placed on their joints; for
// a binding without a prepared chain and a wind in the step, the chain with
// its wind replaced. Room for a chain of kJoints joints and kColliders
// colliders.
template <size_t kJoints, size_t kColliders>
struct Gathered {
  StackBuffer<Transform, kJoints> animated;
  StackBuffer<Collider, kColliders> colliders;
  StackBuffer<Quat, kJoints> corrections;
  std::optional<DynamicChain> with_wind;
};
// Room for any chain.
using GatheredStep = Gathered<kMaxDynamicJoints, kMaxDynamicColliders>;

// The largest chain whose steps run side by side (RunGroup): a larger one
// steps on its own, so that a group's four gathered steps stay small on the
// stack (a few KB each, where room for any chain is some 32 KB).
constexpr size_t kGroupJoints = 32;
constexpr size_t kGroupColliders = 16;

// The chain's step job on `gathered` (filled here; it has room for the
// chain): its chain the binding's prepared one when it has one (the step's
// wind then replaces the chain's in Run, and was checked by
// CheckStepInputs).
template <size_t kJoints, size_t kColliders>
StepDynamicsJob Gather(const RigDynamicsStep& step,
                       Gathered<kJoints, kColliders>& gathered) {
  const DynamicChainBinding& chain = *step.chain;
  const size_t count = chain.joints.size();
  for (size_t k = 0; k < count; ++k) {
    gathered.animated.Put(k, step.models_world[chain.joints[k]]);
    gathered.corrections.Put(k, IdentityQuat());
  }
  const size_t collider_count = chain.colliders.size();
  for (size_t c = 0; c < collider_count; ++c) {
    const AttachedCollider& attached = step.colliders[chain.colliders[c]];
    gathered.colliders.Put(
        c, PlaceCollider(attached.shape, step.models_world[attached.joint]));
  }
  StepDynamicsJob job;
  if (!chain.prepared.empty()) {
    job.prepared_chain = &chain.prepared;
  } else if (step.wind != nullptr) {
    gathered.with_wind = chain.chain;
    gathered.with_wind->wind = *step.wind;
    job.chain = &*gathered.with_wind;
  } else {
    job.chain = &chain.chain;
  }
  job.animated_world = absl::MakeConstSpan(gathered.animated.data(), count);
  job.colliders_world =
      absl::MakeConstSpan(gathered.colliders.data(), collider_count);
  job.delta_time = step.delta_time;
  job.reset = step.reset;
  job.state = step.state;
  job.state_path = step.state_path;
  job.corrections_local = absl::MakeSpan(gathered.corrections.data(), count);
  job.report = step.report;
  return job;
}

// A step of a prepared chain of at most kGroupJoints joints and
// kGroupColliders colliders checked and gathered, with the view of its
// chain that RunSteps takes. Not copyable or movable: the job points into
// it.
struct ReadyStep {
  ReadyStep() {}  // gathers nothing
  ReadyStep(const ReadyStep&) = delete;
  ReadyStep& operator=(const ReadyStep&) = delete;

  Gathered<kGroupJoints, kGroupColliders> gathered;
  StepDynamicsJob job;
  dynamics_internal::ChainView view;
};

absl::Status Ready(const RigDynamicsStep& step, ReadyStep& ready) {
  if (absl::Status status = CheckStepInputs(step); !status.ok()) {
    return status;
  }
  ready.job = Gather(step, ready.gathered);
  if (absl::Status status = ready.job.Validate(); !status.ok()) return status;
  ready.view = ready.job.prepared_chain->layout().view;
  if (step.wind != nullptr) ready.view.wind = step.wind;
  return absl::OkStatus();
}

// After the step: the chain's new local rotations into the step's output.
void SetRotations(const RigDynamicsStep& step, const Quat* corrections) {
  for (size_t k = 0; k < step.chain->joints.size(); ++k) {
    step.rotations_local[k] = glm::normalize(
        step.locals[step.chain->joints[k]].rotation * corrections[k]);
  }
}

// Up to kStepLanes steps: those of prepared chains within the group's room
// side by side (dynamics_internal::RunSteps), any other on its own.
void RunGroup(const RigDynamicsStep* const steps[], size_t count,
              absl::Status* statuses, dynamics_internal::LaneRoom& room) {
  ReadyStep ready[dynamics_internal::kStepLanes];
  const dynamics_internal::ChainView* views[dynamics_internal::kStepLanes] = {};
  const StepDynamicsJob* jobs[dynamics_internal::kStepLanes] = {};
  size_t slots[dynamics_internal::kStepLanes];
  int running = 0;
  for (size_t k = 0; k < count; ++k) {
    const RigDynamicsStep& step = *steps[k];
    if (step.chain == nullptr || step.chain->prepared.empty() ||
        step.chain->joints.size() > kGroupJoints ||
        step.chain->colliders.size() > kGroupColliders) {
      statuses[k] = step.Run();
      continue;
    }
    statuses[k] = Ready(step, ready[running]);
    if (!statuses[k].ok()) continue;
    views[running] = &ready[running].view;
    jobs[running] = &ready[running].job;
    slots[running++] = k;
  }
  dynamics_internal::RunSteps(views, jobs, running, room);
  for (int r = 0; r < running; ++r) {
    SetRotations(*steps[slots[r]], ready[r].gathered.corrections.data());
  }
}

}  // namespace

namespace dynamics_internal {

void RunRigDynamicsSteps(absl::Span<const RigDynamicsStep* const> steps,
                         absl::Status* statuses) {
  LaneRoom room;
  for (size_t first = 0; first < steps.size(); first += kStepLanes) {
    RunGroup(&steps[first],
             std::min(steps.size() - first, static_cast<size_t>(kStepLanes)),
             &statuses[first], room);
  }
}

}  // namespace dynamics_internal

absl::Status RigDynamicsStep::Validate() const {
  if (absl::Status status = CheckStepInputs(*this); !status.ok()) {
    return status;
  }
  GatheredStep gathered;
  return Gather(*this, gathered).Validate();
}

absl::Status RigDynamicsStep::Run() const {
  if (absl::Status status = CheckStepInputs(*this); !status.ok()) {
    return status;
  }
  GatheredStep gathered;
  const StepDynamicsJob job = Gather(*this, gathered);
  if (absl::Status status = job.Validate(); !status.ok()) return status;
  dynamics_internal::PreparedJoint joints[kMaxDynamicJoints];
  dynamics_internal::ChainView view;
  if (job.prepared_chain != nullptr) {
    view = job.prepared_chain->layout().view;
    if (wind != nullptr) view.wind = wind;
  } else {
    dynamics_internal::PrepareJoints(*job.chain, joints, &view);
  }
  dynamics_internal::RunStep(view, job);
  SetRotations(*this, gathered.corrections.data());
  return absl::OkStatus();
}

}  // namespace ik
