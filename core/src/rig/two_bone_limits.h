// The analytic two-bone solve held to a rig's joint limits: what SolveChainJob
// does for a two-bone chain (solve_chain.cc) and the grounding pass for a
// leg (grounding.cc). Not part of the public API.
#ifndef IK_SRC_RIG_TWO_BONE_LIMITS_H_
#define IK_SRC_RIG_TWO_BONE_LIMITS_H_

#include <cstdint>
#include <optional>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "base/swing.h"
#include "ik/base/joint_limits.h"
#include "ik/base/math.h"
#include "ik/rig/rig.h"
#include "ik/solvers/solve_report.h"
#include "ik/solvers/two_bone.h"

namespace ik::internal {

// The centre the continuity rule swings an incoming limb through
// (base/swing.h; model space, unit): the limb bent as solved (`mid_local`,
// the middle joint's solved local transform, and `tip_translation`, the
// tip's) with its root `root` at its rest rotation, under the model
// rotation `parent_rotation`, where the root has a ball-and-socket limit:
// from the rest pose the swing is the shortest arc, and its singular
// direction, opposite the rest limb, is one a limited limb hardly reaches.
// nullopt for any other root, whose incoming limb swings onto the target
// by the shortest arc (a free limb reaches every direction).
std::optional<Vec3> SwingCentre(const JointDefinition& root,
                                const Transform& mid_local,
                                const Vec3& tip_translation,
                                const Quat& parent_rotation);

// The angle from the swing's singular direction (SwingSingularity of
// base/swing.h) for the incoming limb's root -> tip `bent_tip` and the root
// -> target `to_target`, the limb swung through `centre` (SwingCentre).
AngleArguments LimbSwingSingularity(const Vec3& bent_tip, const Vec3& to_target,
                                    const std::optional<Vec3>& centre);

// A rig joint's limit as the solvers take it.
inline JointConstraint JointConstraintOf(const JointDefinition& joint) {
  JointConstraint constraint;
  if (joint.limit.kind != JointLimit::Kind::kNone) {
    constraint.limit = &joint.limit;
  }
  constraint.rest_rotation = joint.rest.rotation;
  return constraint;
}

// Bits of SolveTwoBoneWithLimits's `limited_mask`.
inline constexpr std::uint64_t kRootLimited = 1;
inline constexpr std::uint64_t kMidLimited = 2;

// The joints of a two-bone solve: `root` -> `mid` -> `tip` of a rig, each
// the parent of the next.
struct TwoBoneJoints {
  int root = -1;
  int mid = -1;
  int tip = -1;
};

// Solves `joints` of `rig` with TwoBoneJob so that the tip heads for
// `target_model`, the middle joint bending towards `pole_model` when set
// (both model space):
//   - the middle joint starts within its limit, so a hinge's bend stays on
//     the hinge and its turn range is known: a hinge turns only about its
//     axis and within its range, and is not clamped again afterwards;
//   - any other middle joint is held to its limit after the solve;
//   - a ball-and-socket root turns the limb about the root -> target axis
//     to a point of the circle of exact solutions its limit allows
//     (rig/limb_circle.h; the tip stays where the solve put it). Unless
//     `history_free`, by the continuity rule: of the allowed arcs the one
//     that holds the incoming pose's swivel (else the one with the end
//     nearest it), and in it the turn nearest the solver's own plane
//     (NearestAllowedTurn with the incoming swivel); report->branch_switch
//     says when no arc continues the pose. `history_free`: only when the
//     limit would move the solved root, the allowed turn nearest the
//     solver's plane. Only when no turn is allowed is the root clamped,
//     which may pull the tip off the target (the caller measures).
//     kRootLimited is set when the limit clamped the root or the turn is
//     not the solver's plane (it then ends on the limit).
// `root_model` is the root joint's model transform under `locals` (the
// root's parent's model transform composed with locals[root]). `tolerance`
// (finite, >= 0) only decides report->reached. Updates the local rotations
// of the root and middle joints in `locals`, sets `*report` (TwoBoneJob's,
// before the root's limit) and ORs into `*limited_mask` kRootLimited and
// kMidLimited for the joints a limit clamped. TwoBoneJob's error, with
// `locals` unchanged, when it refuses the pose (coordinates beyond
// kMaxCoordinate, bones of zero length).
absl::Status SolveTwoBoneWithLimits(
    const Rig& rig, const TwoBoneJoints& joints, const Transform& root_model,
    const Vec3& target_model, const std::optional<Vec3>& pole_model,
    double tolerance, bool history_free, absl::Span<Transform> locals,
    SolveReport* report, std::uint64_t* limited_mask);

// The continuity rule for the last limb of an iterative chain solve (FABRIK,
// CCD, torque): turning the limb's root about the root -> tip axis keeps
// the tip where the solve put it, and the answer's own turn about that
// axis is whatever the iterations drifted to. The limb is turned to the
// incoming pose's swivel (the incoming root rotation `incoming_root` with
// the solved bend, swung onto the tip by the shortest arc: the two-bone
// solver's plane near the goal), or, where the root's ball-and-socket
// limit forbids that, to the end of the allowed arc nearest it
// (NearestAllowedTurn with the swivel as the solver's plane); a break from
// the incoming pose (its tip `incoming_angle` radians from the target
// about the chain's start) is flagged as the two-bone solver flags it. `root`
// is the limb root's definition, `root_model` its model transform in the
// answer, `root_local` its solved local rotation (turned in place), `mid_local`
// the middle joint's solved local transform and `tip_translation` the tip's
// local translation. A hinge root (no turn about the axis keeps it on its
// hinge) and a limb straight along the axis are left alone.
struct LimbSwivelHold {
  bool turned = false;         // root_local changed
  bool branch_switch = false;  // no allowed arc continues the pose
  // The angle, radians, from the root -> tip direction to the opposite of
  // the incoming limb's (bent as solved): where the shortest-arc swing flips
  // (pi when there is no incoming swivel).
  double singularity_angle = kPi;
};
LimbSwivelHold HoldIncomingLimbSwivel(
    const JointDefinition& root, const Transform& root_model,
    const Quat& incoming_root, double incoming_angle,
    const Transform& mid_local, const Vec3& tip_translation, Quat& root_local);

// The middle joint's local rotation before the solve, within its limit, and
// for a hinge its angle (one decomposition serves the check and the angle).
struct MidStart {
  Quat rotation = IdentityQuat();
  bool hinge = false;
  double hinge_angle = 0.0;
  bool clamped = false;  // the limit moved the incoming rotation
};

// SolveTwoBoneWithLimits's start: `mid_rotation`, the middle joint `mid`'s
// incoming local rotation, within `mid_constraint` (JointConstraintOf(mid)).
MidStart StartMidWithinLimit(const JointDefinition& mid,
                             const JointConstraint& mid_constraint,
                             const Quat& mid_rotation);

// When a TwoBoneLimbSolve of a limited limb builds its job: at once, or
// when started (Start, or StartLimbs of rig/limb_start.h, which starts a
// group's middle joints side by side in SIMD lanes).
enum class LimbStart { kNow, kLater };

// SolveTwoBoneWithLimits in two halves around its TwoBoneJob, so a caller
// with two limbs can solve both jobs at once (RunTwoBoneJobs) between them:
// the constructor reads `locals` and builds the job (arguments as
// SolveTwoBoneWithLimits's; with LimbStart::kLater a limited limb's job
// waits for Start), Finish takes the job's status and writes `locals`.
// Construct, (start,) run job(), Finish: the same bits and status as
// SolveTwoBoneWithLimits. Not copyable, and not to be declared const: the
// job writes its outputs into it.
class TwoBoneLimbSolve {
 public:
  TwoBoneLimbSolve(const Rig& rig, const TwoBoneJoints& joints,
                   const Transform& root_model, const Vec3& target_model,
                   const std::optional<Vec3>& pole_model, double tolerance,
                   bool history_free, absl::Span<const Transform> locals,
                   SolveReport* report, LimbStart when = LimbStart::kNow);
  TwoBoneLimbSolve(const TwoBoneLimbSolve&) = delete;
  TwoBoneLimbSolve& operator=(const TwoBoneLimbSolve&) = delete;

  // Whether job() waits for Start: built with LimbStart::kLater, a limb
  // with a limit, not started yet.
  bool awaiting_start() const { return awaiting_start_; }
  // The middle joint and its incoming local rotation, what Start's `start`
  // is StartMidWithinLimit's for.
  const JointDefinition& mid_joint() const { return rig_.joint(joints_.mid); }
  const Quat& mid_rotation() const { return mid_local_.rotation; }
  // Builds the job from `start`: StartMidWithinLimit(mid_joint(),
  // JointConstraintOf(mid_joint()), mid_rotation()), or its bits.
  void Start(const MidStart& start);

  const TwoBoneJob& job() const { return job_; }
  // `solved`: job()'s status. Returns it when not OK (locals unchanged);
  // else applies the corrections within the limits.
  absl::Status Finish(const absl::Status& solved, absl::Span<Transform> locals,
                      std::uint64_t* limited_mask) const;

 private:
  const Rig& rig_;
  TwoBoneJoints joints_;
  Transform root_model_;
  Vec3 target_model_;
  bool history_free_;
  bool free_;  // neither joint limited
  bool awaiting_start_ = false;
  JointConstraint mid_constraint_;
  Transform mid_local_;  // the middle joint's incoming local transform
  Vec3 tip_local_{0.0};  // the tip's local translation
  MidStart start_;
  TwoBoneJob job_;
  Quat root_correction_ = IdentityQuat();
  Quat mid_correction_ = IdentityQuat();
  bool turn_clamped_ = false;
};

}  // namespace ik::internal

#endif  // IK_SRC_RIG_TWO_BONE_LIMITS_H_
