// The grounding pass: puts a walking character's feet on uneven ground, by
// rays and a two-bone leg solve with a pelvis drop (the foot grounding of
// Szauer, "Hands-On C++ Game Animation Programming" (2020), ch. 13).
//
// For every leg of the rig (ik/ground/leg.h), on the animated pose in world
// space:
//   1. the leg ray, straight down through the animated ankle from
//      ray_above_hip above the hip to ray_below_ankle below the ankle, finds
//      the ground under the foot (the nearest hit, point P, normal n);
//   2. the ankle's clearance c = (ankle - P).n - ankle_height says how far
//      the sole is above the ground (negative: the animation sinks it in).
//      The clamped goal (Szauer's "current" IK target) lifts a sunk ankle out,
//      the planted goal (his "future" one) puts the sole on the ground, and the
//      leg's planted weight w (the caller samples its stride curve: 1 = foot
//      on the ground, 0 = in the air) blends the animated ankle towards the
//      planted goal:
//        goal = ankle - n * (c <= 0 ? c : w * c);
//      no hit within the ray leaves the animated ankle. The clearance is
//      measured along n, as if the foot were turned to the ground (step 5),
//      so a planted foot ends with its sole on the ground on slopes too (on
//      level ground this is Szauer's goal: the hit raised by the ankle height);
//   3. the pelvis drop: the character is lowered along world up (Szauer's
//      vertical placement) just enough that every goal is within reach: no
//      further from its hip than the animation already stretches the leg,
//      or (thigh + shin) * (1 - kLegReachMargin) if that is more. The drop
//      is the largest any leg needs, clamped to the smallest
//      max_pelvis_drop; a leg it cannot serve is reported unreached;
//   4. each leg is solved with the analytic two-bone solver
//      (ik/solvers/two_bone.h) in the lowered character, hip -> knee ->
//      ankle, the pole in the animated leg's plane on the side the knee
//      bends to (for a hinge knee, where the knee is with the knee bent to
//      the middle of its range and the hip as animated: Leg::knee_bent; a
//      knee animated past straight bends forward in that plane), the knee's
//      hinge limit respected and the hip clamped to its limit as
//      SolveChainJob does (ik/rig/solve_chain.h); the foot keeps its
//      animated world orientation (the ankle turns back against the shin);
//   5. the toe ray aligns the foot: cast straight down, from ray_above_hip
//      above the knee, through the animated foot's toe point (the toe
//      joint, moved into the sole's plane through the ankle; without a toe
//      joint, or when it sits on the ankle in plan view, toe_forward ahead
//      along the character's forward axis as the foot carries it), it gives
//      the toe point a goal the same way (same clearance rule, same
//      weight). The ankle turns by the from-to between ankle -> toe point
//      and ankle goal -> toe goal (goals before smoothing, which does not
//      turn the foot), clamped to max_foot_tilt, then held to the ankle's
//      joint limit. On a plane, a planted foot's sole then lies on the
//      ground; the toe ray turns the foot along its length (pitch), not
//      sideways (roll).
//
//   std::vector<ik::FootResult> feet(legs.size());
//   const double weights[] = {left_stride_curve(t), right_stride_curve(t)};
//   ik::GroundFeetReport report;
//   ik::GroundFeetJob job;
//   job.rig = &rig;
//   job.root = character_to_world;
//   job.locals = absl::MakeSpan(locals);
//   job.ground = ground;
//   job.weights = weights;
//   job.feet = absl::MakeSpan(feet);
//   job.report = &report;
//   if (absl::Status status = job.Run(); !status.ok()) return status;
//   character_to_world.translation += report.root_offset;
//
// Units: metres, radians, seconds; world space is right-handed with +Y up
// (ik/ground/terrain.h); a rig's model space has +Y up and faces
// Rig::forward(). Distances in LegSettings are world-space metres (the root's
// scale does not apply to them).
//
// Stateless smoothing: the caller may send back the previous answer's pelvis
// drop and foot offsets with the time since; each then moves at most a
// configured speed, so grounding is jitter-free without the server keeping
// state.
#ifndef IK_GROUNDING_H_
#define IK_GROUNDING_H_

#include <optional>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "ik/base/math.h"
#include "ik/ground/leg.h"
#include "ik/ground/terrain.h"
#include "ik/rig/rig.h"

namespace ik {

// A leg may reach this fraction of thigh + shin short of fully straight
// (unless the animation stretches it further): a human knee keeps about 5
// degrees of bend, so a leg never snaps straight.
inline constexpr double kLegReachMargin = 1e-3;
// A toe joint closer than this to the ankle in the sole's plane (world
// metres) gives no direction: the toe ray then goes toe_forward ahead.
inline constexpr double kMinToeRun = 0.01;
// Defaults of the smoothing speeds, metres per second.
inline constexpr double kDefaultMaxPelvisSpeed = 1.0;
inline constexpr double kDefaultMaxFootSpeed = 2.0;

// The previous answer and how fast this one may leave it.
struct GroundSmoothing {
  // The previous answer's GroundFeetReport::pelvis_drop, metres, finite and
  // >= 0.
  double previous_pelvis_drop = 0.0;
  // The previous answer's FootResult::foot_offset per leg of the rig (same
  // order), world space, metres; each within +-kMaxCoordinate.
  absl::Span<const Vec3> previous_foot_offsets;
  // Seconds since the previous answer, finite and >= 0.
  double delta_time = 0.0;
  // Most the pelvis drop and each foot offset may change per second, metres
  // per second, >= 0 (+infinity: no limit, NaN is rejected).
  double max_pelvis_speed = kDefaultMaxPelvisSpeed;
  double max_foot_speed = kDefaultMaxFootSpeed;
};

// What the pass did to one leg (world space, the lowered character).
struct FootResult {
  // Whether the leg ray found ground (contact_point and contact_normal are
  // set only then; zero otherwise).
  bool ground_found = false;
  // The point of the ground's tangent plane under the answer's ankle (the
  // foot of the perpendicular from the ankle onto the plane through the
  // leg ray's hit): where the sole rests when the foot is grounded.
  Vec3 contact_point{0.0};
  // Unit normal of the ground at the leg ray's hit, facing up.
  Vec3 contact_normal{0.0};
  // Whether the ground gave the goal: the ray found ground and either the
  // animation sank the sole into it (clamped) or the weight is > 0
  // (planted).
  bool grounded = false;
  // The ankle's goal, world space: the animated ankle + foot_offset. Goals
  // stay put in the world while the character is lowered.
  Vec3 goal{0.0};
  // Whether the answer's ankle is within the job's tolerance of `goal`.
  bool reached = false;
  // Distance from the animated ankle to the answer's ankle, metres.
  double moved = 0.0;
  // goal - animated ankle, world space (after smoothing): what the caller
  // sends back as GroundSmoothing::previous_foot_offsets.
  Vec3 foot_offset{0.0};
  // Angle the toe ray turned the foot by, radians, in [0, max_foot_tilt].
  double tilt = 0.0;
  // Whether max_foot_tilt cut the turn short, or the ankle's joint limit
  // held the foot away from its aligned orientation.
  bool tilt_clamped = false;
  // The leg's solve found no allowed arc of its exact solutions that
  // continues the incoming leg (SolveReport::branch_switch): expect a jump.
  bool branch_switch = false;
};

// What the pass did to the whole character.
struct GroundFeetReport {
  // How far the character was lowered along world up, metres, >= 0 (after
  // smoothing).
  double pelvis_drop = 0.0;
  // The drop the legs' goals (their offsets smoothed) ask for, clamped to
  // the smallest max_pelvis_drop: what pelvis_drop moves towards.
  double pelvis_drop_target = 0.0;
  // Whether a leg asked for more than the smallest max_pelvis_drop (that
  // leg is then unreached).
  bool pelvis_drop_clamped = false;
  // What to add to the root's translation: (0, -pelvis_drop, 0).
  Vec3 root_offset{0.0};
};

// Inputs and outputs of one grounding pass. Owns nothing and
// allocates nothing. Thread-compatible: distinct jobs may run concurrently
// on the same rig and ground. Deterministic: the same inputs give the same
// bits.
struct GroundFeetJob {
  // The character's rig; it must outlive Run().
  const Rig* rig = nullptr;
  // The character's legs (BuildLegs on `rig`), at least one; the caller
  // keeps them alive while Run() runs.
  absl::Span<const Leg> legs;
  // Model -> world transform of the character (validated like any
  // transform: finite, unit rotation, positive scale).
  Transform root;
  // The animated pose in, the grounded pose out: one local transform per
  // rig joint, rotations unit length (as Rig::Create and the server leave
  // them). Only the joints the legs read are checked (each leg's joints,
  // the hip's ancestors, the joints from the ankle to the toe); the others
  // pass through as they came. Only the local rotations of each leg's hip,
  // knee and ankle change. The answer's pose is these locals under `root` moved
  // by report->root_offset. Legs are solved in `legs` order; goals and the drop
  // come from the animated pose.
  absl::Span<Transform> locals;
  // Where `locals` and `root` came from in the caller's input: errors about
  // them name it ("pose: ...", "pose.root.scale: ..."). Empty: "locals" and
  // "root".
  absl::string_view pose_path;
  // Where the rays look (ik/ground/terrain.h); an empty ground leaves the pose
  // as animated. The caller keeps it alive while Run() runs.
  Ground ground;
  // Planted weight per leg (`legs` order), each in [0, 1].
  absl::Span<const double> weights;
  // Unset: no smoothing (the answer is the target).
  std::optional<GroundSmoothing> smoothing;
  // Distance, metres, within which an ankle counts as having reached its
  // goal; finite and >= 0.
  double tolerance = kDefaultTolerance;

  // Output, one per leg.
  absl::Span<FootResult> feet;
  // Output.
  GroundFeetReport* report = nullptr;

  // Checks every input and output, naming the first offending field:
  // INVALID_ARGUMENT "rig: null", "locals: 3 transforms for rig 'humanoid'
  // of 21 joints", "locals[4].rotation: not a unit quaternion (norm 0)",
  // "root.scale: ...", "ground.meshes[0]: null", "weights: 1 values for
  // rig 'humanoid' of 2 legs", "weights[1]: 1.5 is not in [0, 1]",
  // "smoothing.previous_pelvis_drop: ...",
  // "smoothing.previous_foot_offsets: ...", "smoothing.delta_time: ...",
  // "smoothing.max_pelvis_speed: ...", "smoothing.max_foot_speed: ...",
  // "tolerance: ...", "feet: ...", "report: null output";
  // FAILED_PRECONDITION "legs: rig 'arm' has no legs".
  absl::Status Validate() const;
  // Validates, then grounds the feet. INVALID_ARGUMENT "locals: leg
  // 'left_leg' cannot be solved in this pose: ..." when the pose puts a
  // leg's joints beyond kMaxCoordinate or on top of each other. Never
  // produces NaN for valid input.
  absl::Status Run() const;
};

}  // namespace ik

#endif  // IK_GROUNDING_H_
