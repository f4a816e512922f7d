#include "ik/dynamics/dynamics.h"

#include <algorithm>
#include <cmath>
#include <cstddef>

#include "absl/status/status.h"
#include "dynamics/dynamics_internal.h"
#include "ik/dynamics/prepared_dynamic_chain.h"
#include "ik/dynamics/wind_noise.h"

namespace ik {
namespace {

// A step within this fraction of a substep of a whole number of substeps
// counts as that whole number: 1/30 s is four 1/120 s substeps even though
// neither is exact in binary.
constexpr double kSubstepRounding = 1e-9;

// How many substeps a step runs and what time it leaves over.
struct SubstepPlan {
  int substeps = 0;
  bool clamped = false;
  double remainder = 0.0;
};

SubstepPlan PlanSubsteps(double remainder, double delta_time, double substep,
                         int max_substeps) {
  const double total = remainder + delta_time;
  double count = std::floor(total / substep);
  double rest = total - count * substep;
  if (rest >= substep * (1.0 - kSubstepRounding)) {
    count += 1.0;
    rest = 0.0;
  }
  SubstepPlan plan;
  if (count > static_cast<double>(max_substeps)) {
    plan.substeps = max_substeps;
    plan.clamped = true;  // the excess time is dropped
    return plan;
  }
  plan.substeps = static_cast<int>(count);
  plan.remainder = std::max(rest, 0.0);
  return plan;
}

// Starts the chain at rest in the animated pose.
void StartAtRest(absl::Span<const Transform> animated, DynamicState* state) {
  const size_t count = animated.size();
  state->positions.resize(count);
  state->previous_positions.resize(count);
  state->rotations.assign(count, IdentityQuat());
  for (size_t i = 0; i < count; ++i) {
    state->positions[i] = animated[i].translation;
    state->previous_positions[i] = animated[i].translation;
  }
  state->time_remainder = 0.0;
}

}  // namespace

namespace dynamics_internal {

void RunStep(const ChainView& view, const StepDynamicsJob& job) {
  const DynamicChain& chain = *view.chain;
  DynamicState* const state = job.state;
  absl::Span<const Transform> animated_world = job.animated_world;
  DynamicsReport result;
  const Vec3 root_animated = animated_world[0].translation;
  if (job.reset) {
    result.reset = DynamicsReset::kRequested;
  } else if (state->positions.empty()) {
    result.reset = DynamicsReset::kEmptyState;
  } else if (!(glm::length(root_animated - state->positions[0]) <=
               chain.teleport_distance)) {
    result.reset = DynamicsReset::kTeleport;
  }
  if (result.reset != DynamicsReset::kNone) {
    StartAtRest(animated_world, state);
  }

  const SubstepPlan plan = PlanSubsteps(state->time_remainder, job.delta_time,
                                        chain.substep, chain.max_substeps);
  result.substeps = plan.substeps;
  result.clamped = plan.clamped;
  // The root slides from where the last substep left it to its animated
  // position over the time the substeps cover.
  const Vec3 root_start = state->positions[0];
  const Vec3 root_travel = root_animated - root_start;
  const double covered = plan.clamped ? plan.substeps * chain.substep
                                      : state->time_remainder + job.delta_time;
  // Collision culling (see Clearance), on the stack: at most
  // kMaxDynamicColliders colliders and kMaxDynamicJoints joints.
  PreparedColliders colliders;
  PrepareColliders(view, job.colliders_world, root_animated, &colliders);
  // A steady wind (no turbulence, or no wind) is the same at every substep.
  const WindSettings& wind = *view.wind;
  const bool steady_wind = wind.turbulence == 0.0 || wind.strength == 0.0;
  const Vec3 steady = steady_wind ? WindAcceleration(wind, 0.0) : Vec3(0.0);
  for (int k = 0; k < plan.substeps; ++k) {
    const double fraction = std::min(1.0, (k + 1) * chain.substep / covered);
    state->noise_time += chain.substep;
    if (state->noise_time > kMaxWindTime) state->noise_time -= kMaxWindTime;
    Substep(view, animated_world.data(), colliders,
            root_start + root_travel * fraction,
            steady_wind ? steady : WindAcceleration(wind, state->noise_time),
            state);
  }
  state->time_remainder = plan.remainder;
  UpdateRotations(
      view, animated_world.data(), state->positions.data(), plan.substeps,
      state->rotations.data(),
      job.rotations_world.empty() ? nullptr : job.rotations_world.data(),
      job.corrections_local.empty() ? nullptr : job.corrections_local.data());
  *job.report = result;
}

}  // namespace dynamics_internal

absl::Status StepDynamicsJob::Run() const {
  if (absl::Status status = Validate(); !status.ok()) return status;
  if (prepared_chain != nullptr) {
    dynamics_internal::RunStep(prepared_chain->layout().view, *this);
    return absl::OkStatus();
  }
  // The chain prepared for this call only, on the stack.
  dynamics_internal::PreparedJoint joints[kMaxDynamicJoints];
  dynamics_internal::ChainView view;
  dynamics_internal::PrepareJoints(*chain, joints, &view);
  dynamics_internal::RunStep(view, *this);
  return absl::OkStatus();
}

}  // namespace ik
