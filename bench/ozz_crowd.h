// The example crowd's whole character for bench/ozz_bench.cc, solved by
// both libraries from the same inputs: the 1,000 humanoids of
// bench/crowd_fixture.h (the bundled humanoid walking the bundled stairs
// mesh, both legs grounded, two hand goals, the ponytail stepped once from
// the states of the tick before), converted once for the core
// (bench/crowd_core.h).
//
//   ikd: ik::TickBatchJob over the crowd, as crowd_core's RunBatch runs it,
//     in doubles: GroundFeetJob (leg and toe rays, pelvis drop, two-bone
//     legs within their limits, the knee's pole pushed out from the
//     hip-ankle line, feet turned to the ground), SolveChainJob per hand
//     goal (two-bone arms within their limits, no pole: the incoming bend
//     plane swung onto the target), RigDynamicsStep for the ponytail.
//   ozz (OzzCrowd): per character, in floats, ozz-animation's jobs where it
//     has one: LocalToModelJob for the pose; the same leg and toe rays
//     through ik::Ground::Raycast with the same goal, drop and foot-turn
//     arithmetic (ik/ground/grounding.h steps 1-3 and 5, in doubles);
//     IKTwoBoneJob per leg, then LocalToModelJob from the hip to the ankle
//     and IKAimJob turning the foot as ikd turns it; IKTwoBoneJob per hand
//     goal; each limb's pole on the side its middle joint's hinge bends to
//     (the side of ikd's knee pole wherever the animated knee is bent); the
//     ponytail through ik::RigDynamicsStep on the world transforms of ozz's
//     matrices. No joint limits: ozz has none.
//
//   std::unique_ptr<CrowdCharacters> crowd = CrowdCharacters::Create();
//   if (crowd == nullptr || !crowd->CheckAnswers(1e-9, 1e-3)) return 1;
//   crowd->Measure(state, CrowdCharacters::Side::kOzz);  // in a benchmark
#ifndef IK_BENCH_OZZ_CROWD_H_
#define IK_BENCH_OZZ_CROWD_H_

#include <cstddef>
#include <memory>
#include <optional>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "benchmark/benchmark.h"
#include "crowd_core.h"
#include "crowd_fixture.h"
#include "ik/base/math.h"
#include "ik/character/tick_batch.h"
#include "ik/dynamics/dynamics.h"
#include "ik/geometry/ray.h"
#include "ik/ground/leg.h"
#include "ik/ground/terrain.h"
#include "ik/rig/rig.h"
#include "ozz/animation/runtime/skeleton.h"
#include "ozz/base/maths/simd_math.h"
#include "ozz/base/maths/soa_transform.h"
#include "ozz/base/memory/unique_ptr.h"
#include "ozz/base/span.h"

namespace ik::bench {

// Three joints of ozz's skeleton (its indices) solved by IKTwoBoneJob.
struct OzzLimb {
  int start = 0;
  int mid = 0;
  int end = 0;
  // The middle joint's hinge axis negated, in its own space: a positive turn
  // about it opens the limb, as IKTwoBoneJob::mid_axis wants it.
  ozz::math::SimdFloat4 mid_axis = ozz::math::simd_float4::z_axis();
};

struct OzzLeg {
  const Leg* leg = nullptr;  // ikd's: its settings
  OzzLimb limb;
  int toe = 0;
  // IKAimJob's axes in the ankle's space: the sole's up (level in the rest
  // pose) and the ankle -> toe run flattened into the sole.
  ozz::math::SimdFloat4 up = ozz::math::simd_float4::y_axis();
  ozz::math::SimdFloat4 forward = ozz::math::simd_float4::z_axis();
};

// A character's inputs beside its SoA pose, and what its tick planned.
struct OzzCharacter {
  Transform root;  // model -> world
  ozz::math::Float4x4 root_matrix;
  struct Goal {
    OzzLimb limb;
    Vec3 target_world{0.0};
  };
  std::vector<Goal> goals;
  // Outputs: how far the character is lowered, and per leg the ankle's
  // goal (world, where the animation puts the character) and whether the
  // drop lets the leg reach it.
  double drop = 0.0;
  std::vector<Vec3> ankle_goals;
  std::vector<bool> reachable;
};

// What a leg's rays give (world, where the animation puts the character).
struct FootPlan {
  Vec3 goal{0.0};
  double drop = 0.0;  // the drop the leg needs
  // Whether the toe point gives the foot a direction; then IKAimJob aims
  // the toe run at aim_target and the sole's up towards sole_up.
  bool aims = false;
  Vec3 aim_target{0.0};
  Vec3 sole_up{0.0};
};

// The ozz side of the crowd. Thread-compatible; Tick allocates nothing.
class OzzCrowd {
 public:
  // Builds ozz's skeleton of the crowd's rig and every character's SoA
  // pose from `crowd` (kept alive by the caller). INVALID_ARGUMENT for what
  // this side does not do: smoothing, a character that does not ground and
  // step, a goal other than a position on a hinged two-bone chain, a leg
  // without a toe below its ankle.
  absl::Status Build(const server::CrowdCoreInputs& crowd);
  // Every pose and dynamics state as converted.
  void Restore();
  // One tick of every character; false when an ozz job or a dynamics step
  // failed.
  bool Tick();

  const OzzCharacter& character(size_t k) const { return characters_[k]; }
  // Character k's local pose, widened, in ikd's joint order.
  std::vector<Transform> Locals(size_t k) const;

 private:
  absl::StatusOr<OzzLimb> MakeLimb(int start, int mid, int end) const;
  absl::Status BuildLegs();
  absl::Status BuildCharacter(size_t k);
  bool TickCharacter(size_t k);
  RayHit CastDown(const Vec3& through, double top,
                  const LegSettings& settings) const;
  FootPlan PlanFoot(const OzzLeg& leg, double weight) const;
  bool SolveLimb(const OzzLimb& limb, const Vec3& target,
                 ozz::span<ozz::math::SoaTransform> locals);
  bool AimFoot(const OzzLeg& leg, const FootPlan& plan, const Vec3& raise,
               const ozz::math::Float4x4& root,
               ozz::span<ozz::math::SoaTransform> locals);
  bool StepDynamics(size_t k, double drop,
                    ozz::span<ozz::math::SoaTransform> locals);

  const server::CrowdCoreInputs* crowd_ = nullptr;
  const Rig* rig_ = nullptr;
  Ground ground_;
  std::optional<Ray> down_;
  ozz::unique_ptr<ozz::animation::Skeleton> skeleton_;
  std::vector<int> ozz_index_;  // per ikd joint
  size_t soa_count_ = 0;        // SoA transforms per character
  std::vector<OzzLeg> legs_;
  std::vector<OzzCharacter> characters_;
  // Every character's SoA pose as converted, and the working copies.
  std::vector<ozz::math::SoaTransform> animated_;
  std::vector<ozz::math::SoaTransform> locals_;
  std::vector<std::vector<DynamicState>> states_;
  // Scratch of one character's tick.
  std::vector<ozz::math::Float4x4> models_;
  std::vector<Transform> world_;
  std::vector<Transform> chain_locals_;
  std::vector<Quat> rotations_;
  DynamicsReport report_;
};

// The worst values the checks found over the crowd, metres.
struct CrowdErrors {
  // Each ankle from its goal (ikd's FootResult::goal; the ozz side's own,
  // computed the same way from its float pose): the worst, and every one.
  double ankle_to_goal = 0.0;
  std::vector<double> ankles_to_goals;
  // Each hand goal's tip (the wrist) from its target.
  double tip_to_target = 0.0;
  // Legs whose goal is out of reach (ikd: FootResult::reached false; ozz: a
  // drop clamped short of what the leg needs), left out of ankle_to_goal.
  int unreached_legs = 0;
};

// Both sides of the crowd. Built once, then ticked any number of times,
// each tick from the crowd's converted poses and states again. Not copyable.
class CrowdCharacters {
 public:
  enum class Side { kIkd, kOzz };

  // Loads the examples, absorbs the crowd's first three ticks through
  // ikd's handlers (bench/crowd_fixture.h, which stops the program if that
  // fails), converts the fourth for the core and builds the ozz side; null
  // (printing why) when the ozz side cannot be built.
  static std::unique_ptr<CrowdCharacters> Create();

  int characters() const { return static_cast<int>(core_.inputs.size()); }

  // Ticks each side once and checks both with the bench's own
  // double-precision forward kinematics (ozz_arms.h's WorldPose); prints
  // the worst errors and how far the ozz side's goals, drops, knees and
  // elbows are from ikd's. False (printing why) when a job failed, ikd is
  // off by more than `ikd_bound` or the ozz side by more than `ozz_bound`
  // metres.
  bool CheckAnswers(double ikd_bound, double ozz_bound);
  const CrowdErrors& errors(Side side) const {
    return side == Side::kIkd ? ikd_errors_ : ozz_errors_;
  }

  // Google Benchmark's loop: each iteration restores every pose and state
  // (not timed), then ticks every character of `side`. Items processed:
  // characters.
  void Measure(benchmark::State& state, Side side);

 private:
  struct Apart;  // how far the sides' answers are apart (ozz_crowd.cc)

  CrowdCharacters() = default;
  // Character k's answers on both sides into the errors and `apart`.
  void CheckCharacter(size_t k, Apart& apart);

  server::CrowdTickFixture fixture_;
  server::CrowdCoreInputs core_;
  std::optional<server::CrowdRun> run_;
  TickScratch scratch_;
  OzzCrowd ozz_;
  CrowdErrors ikd_errors_;
  CrowdErrors ozz_errors_;
};

}  // namespace ik::bench

#endif  // IK_BENCH_OZZ_CROWD_H_
