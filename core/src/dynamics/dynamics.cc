#include "ik/dynamics/dynamics.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

#include "absl/status/status.h"
#include "base/job_spans.h"
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

StepRun::StepRun(const ChainView& view, const StepDynamicsJob& job)
    : view_(view), job_(job) {
  const DynamicChain& chain = *view.chain;
  DynamicState* const state = job.state;
  absl::Span<const Transform> animated_world = job.animated_world;
  const Vec3 root_animated = animated_world[0].translation;
  if (job.reset) {
    report_.reset = DynamicsReset::kRequested;
  } else if (state->positions.empty()) {
    report_.reset = DynamicsReset::kEmptyState;
  } else if (!(glm::length(root_animated - state->positions[0]) <=
               chain.teleport_distance)) {
    report_.reset = DynamicsReset::kTeleport;
  }
  if (report_.reset != DynamicsReset::kNone) {
    StartAtRest(animated_world, state);
  }

  const SubstepPlan plan = PlanSubsteps(state->time_remainder, job.delta_time,
                                        chain.substep, chain.max_substeps);
  report_.substeps = plan.substeps;
  report_.clamped = plan.clamped;
  remainder_ = plan.remainder;
  // The root slides from where the last substep left it to its animated
  // position over the time the substeps cover.
  root_start_ = state->positions[0];
  root_travel_ = root_animated - root_start_;
  covered_ = plan.clamped ? plan.substeps * chain.substep
                          : state->time_remainder + job.delta_time;
  PrepareColliders(view, job.colliders_world, root_animated, &colliders_);
  // A steady wind (no turbulence, or no wind) is the same at every substep.
  const WindSettings& wind = *view.wind;
  steady_wind_ = wind.turbulence == 0.0 || wind.strength == 0.0;
  steady_ = steady_wind_ ? WindAcceleration(wind, 0.0) : Vec3(0.0);
}

void StepRun::Advance(int k, Vec3* root, Vec3* wind) const {
  const DynamicChain& chain = *view_.chain;
  DynamicState* const state = job_.state;
  const double fraction = std::min(1.0, (k + 1) * chain.substep / covered_);
  state->noise_time += chain.substep;
  if (state->noise_time > kMaxWindTime) state->noise_time -= kMaxWindTime;
  *root = root_start_ + root_travel_ * fraction;
  *wind =
      steady_wind_ ? steady_ : WindAcceleration(*view_.wind, state->noise_time);
}

void StepRun::Substeps() const {
  for (int k = 0; k < substeps(); ++k) {
    Vec3 root, wind;
    Advance(k, &root, &wind);
    Substep(view_, job_.animated_world.data(), colliders_, root, wind,
            job_.state);
  }
}

void StepRun::Finish() const {
  DynamicState* const state = job_.state;
  state->time_remainder = remainder_;
  UpdateRotations(
      view_, job_.animated_world.data(), state->positions.data(), substeps(),
      state->rotations.data(),
      job_.rotations_world.empty() ? nullptr : job_.rotations_world.data(),
      job_.corrections_local.empty() ? nullptr : job_.corrections_local.data());
  *job_.report = report_;
}

void RunStep(const ChainView& view, const StepDynamicsJob& job) {
  const StepRun run(view, job);
  run.Substeps();
  run.Finish();
}

}  // namespace dynamics_internal

absl::Status RunStepDynamicsJobs(absl::Span<const StepDynamicsJob* const> jobs,
                                 absl::Span<absl::Status> statuses) {
  if (absl::Status status = internal::CheckJobSpans(jobs, statuses.size());
      !status.ok()) {
    return status;
  }
  dynamics_internal::LaneRoom room;
  for (size_t first = 0; first < jobs.size();
       first += dynamics_internal::kStepLanes) {
    const dynamics_internal::ChainView* views[dynamics_internal::kStepLanes];
    const StepDynamicsJob* ready[dynamics_internal::kStepLanes];
    int count = 0;
    const size_t end =
        std::min(jobs.size(), first + dynamics_internal::kStepLanes);
    for (size_t k = first; k < end; ++k) {
      const StepDynamicsJob& job = *jobs[k];
      if (job.prepared_chain == nullptr) {
        statuses[k] = job.Run();
        continue;
      }
      statuses[k] = job.Validate();
      if (!statuses[k].ok()) continue;
      views[count] = &job.prepared_chain->layout().view;
      ready[count++] = &job;
    }
    dynamics_internal::RunSteps(views, ready, count, room);
  }
  return absl::OkStatus();
}

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
