#include "ik/solvers/torque.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>

#include "absl/status/status.h"
#include "ik/base/trig.h"
#include "ik/base/validate.h"
#include "solvers/chain_internal.h"
#include "solvers/torque_step.h"

namespace ik {

namespace {

using torque_internal::BaseMu;
using torque_internal::ChainProfile;
using torque_internal::ProfileJoints;
using torque_internal::Restore;
using torque_internal::StepOutcome;
using torque_internal::StepParameters;
using torque_internal::TakeClampedStep;
using torque_internal::TorqueScratch;

// An iteration whose step leaves the tip no closer is retried this many
// times (see Run) before the stopping rule judges it.
constexpr int kMaxRetries = 8;

// A failed attempt's successor (see Run): without the springs, then more
// damped, or (plain) half as long.
void EscalateRetry(bool springs, bool damped, StepParameters* step) {
  if (springs && step->spring_weight > 0.0) {
    step->spring_weight = 0.0;
  } else if (damped) {
    step->mu *= 10.0;
  } else {
    step->halving *= 0.5;
  }
}

struct IterationOutcome {
  internal::Verdict verdict = internal::Verdict::kRevertAndStop;
  std::uint64_t clamped = 0;  // the last step's limit mask
  bool moved = false;         // some attempt turned a joint
};

// One iteration from the saved pose: a step, retried up to kMaxRetries
// times while the stopping rule rejects it. Updates `*mu` and
// start.best_squared as the step is kept.
IterationOutcome IterateWithRetries(const TorqueJob& job, bool springs,
                                    double base_mu, double* mu,
                                    internal::ChainStart& start,
                                    TorqueScratch& scratch) {
  const int tip = static_cast<int>(job.locals.size()) - 1;
  const bool damped = base_mu > 0.0;
  StepParameters step;
  step.mu = *mu;
  IterationOutcome result;
  for (int attempt = 0; attempt <= kMaxRetries; ++attempt) {
    if (attempt > 0) {
      EscalateRetry(springs, damped, &step);
      Restore(job, start.root_position);
    }
    const StepOutcome outcome =
        TakeClampedStep(job, start.root_position, step, springs, scratch);
    if (!outcome.moved) {
      // No joint can bring the tip closer; the pose is the one the
      // iteration started at.
      result.verdict = internal::Verdict::kRevertAndStop;
      break;
    }
    result.moved = true;
    result.clamped = outcome.clamped;
    const double residual_squared = internal::SquaredDistance(
        job.workspace->positions[tip], job.target_model);
    result.verdict = internal::Judge(residual_squared, start.best_squared,
                                     start.tolerance_squared);
    if (result.verdict == internal::Verdict::kContinue ||
        result.verdict == internal::Verdict::kReached) {
      start.best_squared = residual_squared;
      *mu = attempt == 0 ? std::max(base_mu, 0.1 * step.mu) : step.mu;
      break;
    }
    if (attempt == kMaxRetries &&
        result.verdict == internal::Verdict::kKeepAndStop) {
      start.best_squared = residual_squared;
    }
  }
  return result;
}

}  // namespace

absl::Status TorqueJob::Run() const {
  if (absl::Status status = Validate(); !status.ok()) return status;
  internal::ChainStart start =
      internal::BeginChainJob(*this, /*apply_limits=*/true);
  if (start.done) return absl::OkStatus();
  TorqueScratch scratch;
  const ChainProfile profile = ProfileJoints(*this, scratch);
  // An iteration that leaves the tip no closer is retried from the pose it
  // started at: first without the springs (their null-space turn is only
  // first-order neutral; near the target its second-order pull can
  // outweigh the step's progress), then, damped, with mu = lambda^2 raised
  // tenfold each time (Levenberg-Marquardt: the step turns towards the
  // plain torques and shortens; a larger mu that succeeded is kept for
  // the next iteration, and one that succeeds at once falls back towards
  // the base tenfold), plain, with the step halved each time.
  const double base_mu = BaseMu(*this, profile);
  double mu = base_mu;

  int iterations = 0;
  internal::LimitMasks& limits = start.limits;
  StopReason stop = StopReason::kIterationCap;
  while (iterations < max_iterations) {
    ++iterations;
    internal::SaveRotations(*this);
    const IterationOutcome outcome = IterateWithRetries(
        *this, profile.springs, base_mu, &mu, start, scratch);
    if (outcome.verdict == internal::Verdict::kContinue) {
      limits.Keep(outcome.clamped);
      continue;
    }
    if (outcome.verdict == internal::Verdict::kRevertAndStop) {
      if (outcome.moved) {
        Restore(*this, start.root_position);
        limits.Reject(outcome.clamped);
      }
    } else {
      limits.Keep(outcome.clamped);
    }
    stop = outcome.verdict == internal::Verdict::kReached
               ? StopReason::kReached
               : StopReason::kNoImprovement;
    break;
  }
  internal::FinishChainJob(*this, start.root_position, iterations, stop, limits,
                           /*pose_current=*/true);
  return absl::OkStatus();
}

}  // namespace ik
