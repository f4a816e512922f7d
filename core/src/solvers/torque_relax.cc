// RelaxTowardsPreferred (torque_relax.h): the torque solver's steps with
// springs, from the incoming pose or an answer at the target.
#include "solvers/torque_relax.h"

#include <algorithm>
#include <cmath>

#include "absl/status/status.h"
#include "ik/base/math.h"
#include "ik/base/trig.h"
#include "solvers/chain_internal.h"
#include "solvers/torque_step.h"

namespace ik {
namespace {

using torque_internal::BaseMu;
using torque_internal::ChainProfile;
using torque_internal::ProfileJoints;
using torque_internal::QuatChord;
using torque_internal::StepOutcome;
using torque_internal::StepParameters;
using torque_internal::TakeClampedStep;
using torque_internal::TakeGradedStep;
using torque_internal::TorqueScratch;

// The relaxation (RelaxTowardsPreferred) stops once an iteration moves no
// joint by kRelaxedTurn radians (as far as its limit let it: the turn a
// step asks of a joint held at its limit does not die out); then at most
// kMaxRelaxFinishSteps steps bring the tip within kRelaxFinishShare of
// the squared tolerance. On the path tests' seeded paths (the limited arm
// and tail, FABRIK, every incoming pose) 2e-3 rad gave as few steps over
// the continuity bound as 1e-3 in about three quarters of the time. The
// graded clamping loop leaves a joint that barely touches its limit nearly
// its whole share of the springs' part, which then pull the tip off a
// little more than the all-or-nothing loop would: on the same paths (every
// solver) 8 finishing steps left the walk short of 811 of 50,472 targets,
// 32 of 126.
constexpr double kRelaxedTurn = 2e-3;
constexpr int kMaxRelaxFinishSteps = 32;
constexpr double kRelaxFinishShare = 0.01;

// One relaxation iteration (see RelaxTowardsPreferred): a step with the
// springs, which also pulls the tip towards the target, its clamping loop
// graded (TakeGradedStep: the relaxed pose then moves continuously with
// the target where a joint meets its limit). Returns it, its largest turn
// the largest angle a joint moved (about twice the distance between its
// rotations before and after).
StepOutcome RelaxOnce(const TorqueJob& job, const internal::ChainStart& start,
                      double mu, internal::LimitMasks& limits,
                      TorqueScratch& scratch) {
  StepParameters relax;
  relax.mu = mu;
  internal::SaveRotations(job);
  const StepOutcome sprung =
      TakeGradedStep(job, start.root_position, relax, scratch);
  if (sprung.moved) limits.Keep(sprung.clamped);
  StepOutcome moved = sprung;
  double largest = 0.0;
  for (size_t j = 0; j + 1 < job.locals.size(); ++j) {
    largest =
        std::max(largest, 2.0 * QuatChord(job.workspace->saved_rotations[j],
                                          job.locals[j].rotation));
  }
  moved.largest = largest;
  return moved;
}

// The approach's stages (ApproachAlongArc): one for every kArcStageAngle
// radians the tip's direction turns about the chain's start, and for
// every kArcStageShare of the chain's length its distance from there
// changes, whichever needs more. On the path tests' seeded paths (every
// chain and incoming pose, FABRIK) stages of 0.1 rad and 1/32 gave the same
// figures within a few hundredths of the bound; 0.4 rad and 1/8 left the
// free chains from a fixed pose up to 2.5 times the bound 60 degrees clear
// of the singular direction, where these stay within it.
constexpr double kArcStageAngle = 0.2;
constexpr double kArcStageShare = 1.0 / 16.0;
// At most this many (a target beyond the chain's reach asks for more).
constexpr int kMaxArcStages = 64;

}  // namespace

namespace internal {

absl::Status ApproachAlongArc(const TorqueJob& job) {
  if (absl::Status status = job.Validate(); !status.ok()) return status;
  const ChainStart start = BeginChainJob(job, /*apply_limits=*/true);
  TorqueScratch scratch;
  const ChainProfile profile = ProfileJoints(job, scratch);
  const int tip = static_cast<int>(job.locals.size()) - 1;
  const Vec3 from = job.workspace->positions[tip] - start.root_position;
  const Vec3 to = job.target_model - start.root_position;
  const double from_length = Length(from);
  const double to_length = Length(to);
  if (!(from_length > 0.0 && to_length > 0.0 && profile.chain_length > 0.0)) {
    return absl::OkStatus();
  }
  // The shortest arc from the tip's direction to the target's (FromTo
  // picks the axis when they are opposite).
  const Vec3 from_direction = from / from_length;
  const Quat turn = FromTo(from_direction, to / to_length);
  const Vec3 axis(turn.x, turn.y, turn.z);
  const double axis_length = Length(axis);
  const double angle = 2.0 * Atan2(axis_length, turn.w);
  const double wanted = std::ceil(std::max(
      angle / kArcStageAngle, std::abs(to_length - from_length) /
                                  (kArcStageShare * profile.chain_length)));
  const int stages = wanted >= kMaxArcStages ? kMaxArcStages
                     : wanted >= 1.0         ? static_cast<int>(wanted)
                                             : 1;
  StepParameters step;
  step.mu = BaseMu(job, profile);
  step.spring_weight = 0.0;
  TorqueJob stage = job;
  for (int i = 1; i < stages; ++i) {
    const double share = static_cast<double>(i) / stages;
    const Vec3 direction =
        axis_length > 0.0
            ? AngleAxis(share * angle, axis / axis_length) * from_direction
            : from_direction;
    stage.target_model =
        start.root_position +
        direction * (from_length + share * (to_length - from_length));
    SaveRotations(stage);
    TakeClampedStep(stage, start.root_position, step, /*springs=*/false,
                    scratch);
  }
  return absl::OkStatus();
}

absl::Status RelaxTowardsPreferred(const TorqueJob& job) {
  if (absl::Status status = job.Validate(); !status.ok()) return status;
  ChainStart start = BeginChainJob(job, /*apply_limits=*/true);
  TorqueScratch scratch;
  const ChainProfile profile = ProfileJoints(job, scratch);
  const double mu = BaseMu(job, profile);
  const int tip = static_cast<int>(job.locals.size()) - 1;
  const auto miss_squared = [&] {
    return SquaredDistance(job.workspace->positions[tip], job.target_model);
  };
  int iterations = 0;
  while (iterations < job.max_iterations) {
    ++iterations;
    if (!(RelaxOnce(job, start, mu, start.limits, scratch).largest >=
          kRelaxedTurn)) {
      break;
    }
  }
  // Back onto the target: the relaxation's steps leave it within a
  // fraction of the tolerance, the first-order springs a little off.
  StepParameters pull;
  pull.mu = mu;
  pull.spring_weight = 0.0;
  for (int step = 0;
       step < kMaxRelaxFinishSteps &&
       miss_squared() > kRelaxFinishShare * start.tolerance_squared;
       ++step) {
    SaveRotations(job);
    const StepOutcome outcome =
        TakeClampedStep(job, start.root_position, pull, false, scratch);
    if (!outcome.moved) break;
    start.limits.Keep(outcome.clamped);
  }
  FinishChainJob(job, start.root_position, iterations,
                 miss_squared() <= start.tolerance_squared
                     ? StopReason::kReached
                     : StopReason::kNoImprovement,
                 start.limits, /*pose_current=*/true);
  return absl::OkStatus();
}

}  // namespace internal

}  // namespace ik
