// Benchmarks of the dynamic-bone step (StepDynamicsJob::Run) on a 16-joint
// strand (the root and 15 simulated joints, 5 cm bones) in gusty wind, its root
// circling (8 cm at about 1 Hz) so the strand keeps moving. Arguments:
//  - substeps: substeps per call (delta_time = substeps / 120 s);
//  - colliders: 0 = none, 1 = 2 spheres and 2 capsules around the strand,
//    fixed in the world while the root circles, so joints keep meeting and
//    leaving them (about 11% of the joints touch one after a call; contacts
//    are the expensive case), 2 = the same colliders placed 5 m away (every
//    test is culled: what colliders on the far side of the body cost);
//  - smoothing: 0 = rotation_blend 1 (the default), 1 = rotation_blend 0.5;
//  - prepared: 0 = the job names the chain (StepDynamicsJob::chain: every
//    call validates the whole chain description and resolves its
//    overrides), 1 = the chain prepared once before timing
//    (StepDynamicsJob::prepared_chain, PreparedDynamicChain::Create): each
//    call still validates everything that changes between calls (the
//    animated pose, the colliders, delta_time, the state, the outputs),
//    prepares the colliders and converts the positions to rotations. The
//    target of <= 25 ns per joint-substep (one substep per call with the
//    four colliders, per-call preparation amortised) is measured by
//    substeps:1/colliders:1/smoothing:0/prepared:1.
// Counters: time_per_joint_substep, the target's measure (CPU time per call /
// (16 joints x substeps), the per-call work -- validation, the rotations,
// collider preparation -- included and spread over the substeps; the same
// as 1 / items_per_second); contacts_per_call, the joints touching a
// collider after a call, averaged over one pass over the root's path before
// timing.
//
//   build/bench/dynamics_bench --benchmark_repetitions=5
//       --benchmark_report_aggregates_only=true   (one command line)
#include <cmath>
#include <cstdlib>
#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "benchmark/benchmark.h"
#include "dynamics_fixtures.h"
#include "ik/dynamics/colliders.h"
#include "ik/dynamics/dynamic_chain.h"
#include "ik/dynamics/dynamics.h"
#include "ik/dynamics/prepared_dynamic_chain.h"

namespace ik {
namespace {

constexpr int kJoints = 16;

DynamicChain Strand(bool smoothing) {
  DynamicChain chain = testing::StraightChain(kJoints, 0.05, 0.01);
  chain.drag = 0.05;
  chain.stiffness = 0.01;
  chain.rotation_blend = smoothing ? 0.5 : 1.0;
  chain.wind.strength = 3.0;
  chain.wind.direction = Vec3(1.0, 0.0, 0.3);
  chain.wind.turbulence = 0.5;
  chain.wind.seed = 17;
  chain.max_substeps = 64;
  return chain;
}

std::vector<Collider> Colliders(int kind, const Vec3& root_in) {
  if (kind == 0) return {};
  const Vec3 root = kind == 1 ? root_in : root_in + Vec3(5.0, 0.0, 0.0);
  return {
      SphereCollider(root + Vec3(0.06, -0.25, 0.04), 0.08),
      SphereCollider(root + Vec3(-0.05, -0.45, -0.03), 0.06),
      CapsuleCollider(root + Vec3(-0.3, -0.6, 0.05),
                      root + Vec3(0.3, -0.6, 0.05), 0.04),
      CapsuleCollider(root + Vec3(0.08, -0.2, -0.1),
                      root + Vec3(0.08, -0.7, -0.1), 0.05),
  };
}

// How many of the chain's simulated joints touch a collider (within 1e-6 m
// of its grown surface).
int JointsTouching(const DynamicChain& chain,
                   const std::vector<Vec3>& positions,
                   const std::vector<Collider>& colliders) {
  int touching = 0;
  for (size_t j = 1; j < positions.size(); ++j) {
    const Vec3& p = positions[j];
    for (const Collider& c : colliders) {
      const double reach = c.radius + chain.joints[j].radius;
      if (glm::length(p - ClosestPointOnSegment(p, c.start, c.end)) <
          reach + 1e-6) {
        ++touching;
        break;
      }
    }
  }
  return touching;
}

// The animated pose: the rest pose moved by `offset`.
void MovePose(const std::vector<Transform>& rest, const Vec3& offset,
              std::vector<Transform>& animated) {
  for (size_t j = 0; j < rest.size(); ++j) {
    animated[j].translation = rest[j].translation + offset;
  }
}

// Steps of the root's path (one per call).
constexpr int kPathLength = 1024;

// The root's offsets along its path, a circle of 8 cm at about 1 Hz in
// steps of `call_time` seconds: precomputed, so the timed loop does no
// trigonometry of its own.
std::vector<Vec3> RootPath(double call_time) {
  std::vector<Vec3> offsets(kPathLength);
  for (int i = 0; i < kPathLength; ++i) {
    const double angle = 2.0 * kPi * i * call_time;
    offsets[i] = 0.08 * Vec3(std::cos(angle), 0.0, std::sin(angle));
  }
  return offsets;
}

// The counters of a run of `substeps` substeps per call of `characters`
// strands, `contacts` the joints touching a collider summed over one pass
// over the root's path (per strand).
void SetCounters(benchmark::State& state, int substeps, int contacts,
                 int characters = 1) {
  const int joint_substeps = kJoints * substeps * characters;
  state.SetItemsProcessed(state.iterations() * joint_substeps);
  // CPU seconds per joint-substep (the inverted rate: CPU time /
  // (iterations x joint_substeps)); the console shows it as e.g. "25.1ns".
  state.counters["time_per_joint_substep"] = benchmark::Counter(
      joint_substeps, benchmark::Counter::kIsIterationInvariantRate |
                          benchmark::Counter::kInvert);
  state.counters["contacts_per_call"] =
      static_cast<double>(contacts) / (kPathLength * characters);
  state.counters["substeps/call"] = substeps;
}

// One character's strand: its root at `root`, the colliders of `kind`
// (Colliders) about it, its state and outputs, and the job stepping it on
// `prepared` (null: on `chain`, named per call).
struct StrandCharacter {
  StrandCharacter(const DynamicChain& chain,
                  const PreparedDynamicChain* prepared, const Vec3& root,
                  int substeps, int kind)
      : rest(testing::StraightPose(chain, root, Vec3(0.0, -1.0, 0.0))),
        animated(rest),
        colliders(Colliders(kind, root)),
        corrections(kJoints) {
    job.prepared_chain = prepared;
    if (prepared == nullptr) job.chain = &chain;
    job.animated_world = animated;
    job.colliders_world = colliders;
    job.delta_time = substeps * chain.substep;
    job.state = &dynamic_state;
    job.corrections_local = absl::MakeSpan(corrections);
    job.report = &report;
  }
  StrandCharacter(const StrandCharacter&) = delete;
  StrandCharacter& operator=(const StrandCharacter&) = delete;

  std::vector<Transform> rest;
  std::vector<Transform> animated;
  std::vector<Collider> colliders;
  std::vector<Quat> corrections;
  DynamicState dynamic_state;
  DynamicsReport report;
  StepDynamicsJob job;
};

void BM_StepDynamics(benchmark::State& state) {
  const int substeps = static_cast<int>(state.range(0));
  const DynamicChain chain = Strand(state.range(2) != 0);
  const absl::StatusOr<PreparedDynamicChain> prepared =
      PreparedDynamicChain::Create(chain);
  if (!prepared.ok()) std::abort();
  StrandCharacter c(chain, state.range(3) != 0 ? &*prepared : nullptr,
                    Vec3(0.0, 1.6, 0.0), substeps,
                    static_cast<int>(state.range(1)));
  const std::vector<Vec3> offsets = RootPath(c.job.delta_time);
  int next = 0;
  const auto step = [&] {
    MovePose(c.rest, offsets[next], c.animated);
    next = (next + 1) & (kPathLength - 1);
    const absl::Status status = c.job.Run();
    if (!status.ok() || c.report.substeps != substeps) std::abort();
  };
  // One untimed pass over the root's path: it warms the state up and counts
  // how many joints end each call touching a collider.
  int contacts = 0;
  for (int call = 0; call < kPathLength; ++call) {
    step();
    contacts += JointsTouching(chain, c.dynamic_state.positions, c.colliders);
  }
  for (auto _ : state) {
    step();
    benchmark::DoNotOptimize(c.corrections.data());
    benchmark::ClobberMemory();
  }
  SetCounters(state, substeps, contacts);
}
BENCHMARK(BM_StepDynamics)
    ->ArgNames({"substeps", "colliders", "smoothing", "prepared"})
    ->ArgsProduct({{1, 4, 16}, {0, 1, 2}, {0}, {0, 1}})
    ->Args({1, 1, 1, 0})
    ->Args({16, 1, 1, 0})
    ->Args({1, 1, 1, 1})
    ->Args({16, 1, 1, 1});

// Four characters' strands of one prepared chain stepped by one call of
// RunStepDynamicsJobs, their substeps side by side in SIMD lanes: each
// strand as BM_StepDynamics's with colliders:1/smoothing:0/prepared:1, its
// root a quarter of the path ahead of the one before. The per-call work
// (validation, collider preparation, rotations) is each strand's own;
// time_per_joint_substep divides by all four strands' joint-substeps.
void BM_StepDynamicsJobs(benchmark::State& state) {
  constexpr int kCharacters = 4;
  const int substeps = static_cast<int>(state.range(0));
  const DynamicChain chain = Strand(false);
  const absl::StatusOr<PreparedDynamicChain> prepared =
      PreparedDynamicChain::Create(chain);
  if (!prepared.ok()) std::abort();
  std::vector<std::unique_ptr<StrandCharacter>> characters;
  std::vector<const StepDynamicsJob*> jobs;
  for (int k = 0; k < kCharacters; ++k) {
    characters.push_back(std::make_unique<StrandCharacter>(
        chain, &*prepared, Vec3(0.6 * k, 1.6, 0.0), substeps, 1));
    jobs.push_back(&characters.back()->job);
  }
  std::vector<absl::Status> statuses(kCharacters);
  const std::vector<Vec3> offsets = RootPath(substeps * chain.substep);
  int next = 0;
  const auto step = [&] {
    for (int k = 0; k < kCharacters; ++k) {
      StrandCharacter& c = *characters[k];
      MovePose(
          c.rest,
          offsets[(next + k * kPathLength / kCharacters) & (kPathLength - 1)],
          c.animated);
    }
    next = (next + 1) & (kPathLength - 1);
    if (!RunStepDynamicsJobs(jobs, absl::MakeSpan(statuses)).ok()) {
      std::abort();
    }
    for (int k = 0; k < kCharacters; ++k) {
      if (!statuses[k].ok() || characters[k]->report.substeps != substeps) {
        std::abort();
      }
    }
  };
  int contacts = 0;
  for (int call = 0; call < kPathLength; ++call) {
    step();
    for (const auto& c : characters) {
      contacts +=
          JointsTouching(chain, c->dynamic_state.positions, c->colliders);
    }
  }
  for (auto _ : state) {
    step();
    benchmark::ClobberMemory();
  }
  SetCounters(state, substeps, contacts, kCharacters);
}
BENCHMARK(BM_StepDynamicsJobs)->ArgNames({"substeps"})->Arg(1)->Arg(16);

}  // namespace
}  // namespace ik
