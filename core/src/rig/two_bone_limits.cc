// SolveTwoBoneWithLimits (two_bone_limits.h): TwoBoneJob between the rig's
// joint limits.
#include "rig/two_bone_limits.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>

#include "absl/status/status.h"
#include "ik/base/joint_limits.h"
#include "ik/base/math.h"
#include "ik/base/trig.h"
#include "ik/base/validate.h"
#include "ik/solvers/two_bone.h"
#include "rig/hinge_bend.h"
#include "rig/limb_circle.h"

namespace ik::internal {
namespace {

// A middle joint nearer the root -> target axis than this sine of the upper
// bone's angle to it has no side of the axis (no swivel).
constexpr double kOnAxisSine = 1e-6;

// The largest angle, radians, between the incoming limb's root -> tip and
// root -> target directions at which the incoming pose counts as pointing
// at the target (BreaksFromIncoming).
constexpr double kContinuingAngle = 0.25;

// The cosine of kBranchSwitchAngle.
const double kCosBranchSwitchAngle = Cos(kBranchSwitchAngle);

// A hinge joint whose axis its rotation moves by less than this (radians,
// about) counts as on the hinge: turning about the axis keeps it there.
constexpr double kOnHingeSlack = 1e-12;

// A turn of the circle as its cosine and sine times a positive factor.
struct TurnDirection {
  double x = 1.0;
  double y = 0.0;
  // The swing went along the route through a centre (base/swing.h).
  bool centred = false;
};

// The incoming pose's swivel on `circle`: the turn about its axis from
// the solved limb's middle joint to where keeping the incoming bend plane
// puts it -- the incoming limb, bent as solved (`bent_tip`, root -> tip
// with the incoming root rotation; `upper`, root -> middle joint), swung
// onto the target by the shortest arc (TwoBoneJob's answer without a
// pole), or with a `centre` along the route through its waypoint
// (base/swing.h). nullopt when either middle joint lies on the axis (a limb
// straight along it).
std::optional<TurnDirection> IncomingSwivel(const LimbCircle& circle,
                                            const Vec3& upper,
                                            const Vec3& bent_tip,
                                            const Vec3& upper_local,
                                            const std::optional<Vec3>& centre) {
  const Vec3& axis = circle.axis_model;
  const auto across = [&](const Vec3& middle) {
    return middle - glm::dot(middle, axis) * axis;
  };
  const Vec3 solved =
      across(circle.parent_rotation * (circle.root_solved * upper_local));
  const double floor = kOnAxisSine * kOnAxisSine * glm::dot(upper, upper);
  const Vec3 kept = across(FromTo(bent_tip, axis) * upper);
  Vec3 through = kept;
  if (centre.has_value()) {
    const Vec3 from = glm::normalize(bent_tip);
    const Vec3 waypoint =
        SwingWaypoint(from, axis, *centre, SwingCentreWeight(bent_tip, axis));
    through = across(FromTo(waypoint, axis) * (FromTo(from, waypoint) * upper));
  }
  if (!(glm::dot(solved, solved) > floor && glm::dot(kept, kept) > floor &&
        glm::dot(through, through) > floor)) {
    return std::nullopt;
  }
  return TurnDirection{glm::dot(solved, through),
                       glm::dot(axis, glm::cross(solved, through)),
                       centre.has_value()};
}

// IncomingSwivel for the limb of `joints` bent by `mid_turned`, swung
// through `centre` (SwingCentre).
std::optional<TurnDirection> IncomingSwivelOf(
    const LimbCircle& circle, const std::optional<Vec3>& centre,
    const TwoBoneJoints& joints, const Transform& root_model,
    const Quat& mid_turned, absl::Span<const Transform> locals) {
  Transform mid_local = locals[joints.mid];
  mid_local.rotation = mid_turned;
  const Transform mid_model = Compose(root_model, mid_local);
  return IncomingSwivel(
      circle, mid_model.translation - root_model.translation,
      TransformPoint(mid_model, locals[joints.tip].translation) -
          root_model.translation,
      locals[joints.mid].translation, centre);
}

// Whether the continuity rule, from the incoming swivel `turn`, surely
// takes the solver's own plane, the root there being within the limit: the
// limit allows the whole shorter way from the swivel to it, and the way is
// not nearly a half turn (where it is ambiguous).
bool KeepsTheSolversPlane(const LimbCircle& circle,
                          const BallSocketLimit& limit,
                          const TurnDirection& turn) {
  const double length = std::sqrt(turn.x * turn.x + turn.y * turn.y);
  const double c = turn.x / length;
  return c > -kCosBranchSwitchAngle &&
         AllowsTheWayToZero(circle, limit, c, turn.y / length);
}

// The circle of the limb's exact solutions about root -> target
// (`to_target`, not zero) for `root` at `root_model` under its local
// rotation `root_local`, solved to `root_solved`.
LimbCircle CircleOf(const JointDefinition& root, const Transform& root_model,
                    const Quat& root_local, const Quat& root_solved,
                    const Vec3& to_target) {
  LimbCircle circle;
  circle.parent_rotation = root_model.rotation * glm::conjugate(root_local);
  circle.rest_rotation = root.rest.rotation;
  circle.root_solved = root_solved;
  circle.axis_model = to_target / glm::length(to_target);
  return circle;
}

// What the incoming pose tells the continuity rule: `keep`, the solver's
// own plane surely (KeepsTheSolversPlane, the root there within the
// limit: `clamped` false), else the incoming swivel's angle (nullopt when
// it has none).
struct IncomingChoice {
  bool keep = false;
  std::optional<double> incoming;
};
IncomingChoice ChooseFromIncoming(
    const LimbCircle& circle, const JointDefinition& root,
    const std::optional<Vec3>& centre, const TwoBoneJoints& joints,
    const Transform& root_model, const Quat& mid_turned, bool pole,
    bool clamped, absl::Span<const Transform> locals) {
  IncomingChoice choice;
  // Without a pole the solver's plane is already the incoming swivel
  // (HoldSwivelWithoutPole).
  const std::optional<TurnDirection> swivel =
      pole ? IncomingSwivelOf(circle, centre, joints, root_model, mid_turned,
                              locals)
           : TurnDirection{};
  if (!swivel.has_value()) return choice;
  choice.keep =
      !clamped && KeepsTheSolversPlane(circle, root.limit.ball_socket, *swivel);
  if (!choice.keep) choice.incoming = Atan2(swivel->y, swivel->x);
  return choice;
}

// The angle, radians, between the incoming limb's root -> tip and root ->
// target directions: small when the caller fed its previous answer back (by
// about the target's step) or an animation close to the goal.
double IncomingAngle(const Transform& root_model,
                     absl::Span<const Transform> locals,
                     const TwoBoneJoints& joints, const Vec3& to_target) {
  const Vec3 tip = TransformPoint(Compose(root_model, locals[joints.mid]),
                                  locals[joints.tip].translation) -
                   root_model.translation;
  return Atan2(glm::length(glm::cross(tip, to_target)),
               glm::dot(tip, to_target));
}

// Whether the answer breaks from an incoming pose `incoming_angle` from the
// target: that pose points the limb at the target (within
// kContinuingAngle), so it is history worth continuing, and the limb's root
// turns from `root_in` to `root_out` (local rotations, unit) by more than
// it may for the target's step: 3 x that angle, at least 2 x
// kBranchSwitchAngle. (The middle joint's bend follows the target's
// distance, not the choice of swivel.)
bool BreaksFromIncoming(double incoming_angle, const Quat& root_in,
                        const Quat& root_out) {
  if (!(incoming_angle < kContinuingAngle)) return false;
  // A turn by more than `bound` has |cos(half the turn)| below its cosine.
  return std::abs(glm::dot(root_in, root_out)) <
         Cos(0.5 * std::max(2.0 * kBranchSwitchAngle, 3.0 * incoming_angle));
}

// The turn of the circle of exact solutions the root takes (the continuity
// rule, or history-free the allowed turn nearest the solver's plane), into
// `root_limited` (kept when no turn is allowed); sets *branch_switch.
// False when the limit clamped the root and allows no turn of the circle.
bool TurnOnCircle(const JointDefinition& root,
                  const JointConstraint& root_constraint,
                  const std::optional<Vec3>& centre,
                  const TwoBoneJoints& joints, const Transform& root_model,
                  const Vec3& to_target, const Quat& root_solved,
                  const Quat& mid_turned, bool pole, bool history_free,
                  absl::Span<const Transform> locals,
                  LimitedRotation& root_limited, bool* branch_switch,
                  double* edge_angle) {
  const LimbCircle circle = CircleOf(
      root, root_model, locals[joints.root].rotation, root_solved, to_target);
  const IncomingChoice choice =
      history_free
          ? IncomingChoice{}
          : ChooseFromIncoming(circle, root, centre, joints, root_model,
                               mid_turned, pole, root_limited.clamped, locals);
  if (!choice.keep && (root_limited.clamped || choice.incoming)) {
    if (const std::optional<AllowedTurn> turn = NearestAllowedTurn(
            circle, root.limit.ball_socket, root_constraint, choice.incoming)) {
      // Within the limit up to its clamp slack (kLimitClampSlack): kept as
      // found, so the tip stays on the circle through the target. A turn
      // off the solver's plane ends on the limit: the limit held it.
      if (root_limited.clamped || turn->angle != 0.0) {
        root_limited.rotation = turn->root;
        root_limited.clamped = turn->on_limit;
      }
      *edge_angle = std::min(*edge_angle, turn->edge_angle);
      *branch_switch =
          turn->ambiguous ||
          (!history_free && turn->distance > 0.0 &&
           BreaksFromIncoming(
               IncomingAngle(root_model, locals, joints, to_target),
               locals[joints.root].rotation, root_limited.rotation));
    } else if (root_limited.clamped) {
      return false;
    }
  }
  return true;
}

// Without a pole, the solved root `root_solved` turned about the root ->
// target line onto the incoming swivel (IncomingSwivelOf): the job swings
// the incoming limb onto the target by the shortest arc, and an incoming
// limb far from the target swings through SwingCentre instead.
Quat HoldSwivelWithoutPole(const JointDefinition& root,
                           const std::optional<Vec3>& centre,
                           const TwoBoneJoints& joints,
                           const Transform& root_model, const Vec3& to_target,
                           const Quat& root_solved, const Quat& mid_turned,
                           absl::Span<const Transform> locals) {
  const LimbCircle circle = CircleOf(
      root, root_model, locals[joints.root].rotation, root_solved, to_target);
  const std::optional<TurnDirection> swivel =
      IncomingSwivelOf(circle, centre, joints, root_model, mid_turned, locals);
  if (!swivel.has_value() || !swivel->centred) return root_solved;
  return TurnedRoot(circle, Atan2(swivel->y, swivel->x));
}

// No allowed solution with the bend the job chose (`mid_turned`): the
// mirrored bend's circle (MirroredBend), the root `root_solved` turned so
// its tip lands where the job's did. Where the root's limit allows a point
// of that circle, takes it into `mid_turned` and `root_limited`, flagged.
void TakeMirroredBend(const Rig& rig, const JointConstraint& root_constraint,
                      const std::optional<Vec3>& centre,
                      const TwoBoneJoints& joints, const Transform& root_model,
                      const Vec3& to_target, const Quat& root_solved, bool pole,
                      bool history_free, absl::Span<const Transform> locals,
                      Quat& mid_turned, LimitedRotation& root_limited,
                      bool* branch_switch, double* edge_angle) {
  const Transform& mid_local = locals[joints.mid];
  const Vec3& tip = locals[joints.tip].translation;
  const std::optional<Quat> mirrored = MirroredBend(
      rig.joint(joints.mid), mid_local.translation, tip, mid_turned);
  if (!mirrored.has_value()) return;
  const Vec3 bent = TransformPoint(
      Transform{mid_local.translation, mid_turned, mid_local.scale}, tip);
  const Vec3 bent_other = TransformPoint(
      Transform{mid_local.translation, *mirrored, mid_local.scale}, tip);
  const Quat other_solved =
      NormalizeNearUnit(root_solved * FromTo(bent_other, bent));
  LimitedRotation other = ApplyJointConstraint(root_constraint, other_solved);
  bool other_switch = false;
  if (other.clamped &&
      !TurnOnCircle(rig.joint(joints.root), root_constraint, centre, joints,
                    root_model, to_target, other_solved, *mirrored, pole,
                    history_free, locals, other, &other_switch, edge_angle)) {
    return;
  }
  root_limited = other;
  mid_turned = *mirrored;
  *branch_switch = !history_free;
}

// Applies the corrections, then holds the joints to their limits; returns
// the mask of the joints a limit clamped (the root too when it chose another
// point of the circle for it). A hinge's turn stays on it and in range (up to
// rounding): no second clamp.
std::uint64_t ApplyCorrectionsWithinLimits(
    const Rig& rig, const TwoBoneJoints& joints,
    const JointConstraint& mid_constraint, const MidStart& start,
    const Transform& root_model, const Vec3& target_model,
    const Quat& root_correction, const Quat& mid_correction, bool pole,
    bool history_free, absl::Span<Transform> locals, bool* branch_switch,
    double* edge_angle) {
  Quat mid_turned = NormalizeNearUnit(start.rotation * mid_correction);
  const JointDefinition& root = rig.joint(joints.root);
  const JointConstraint root_constraint = JointConstraintOf(root);
  const Vec3 to_target = target_model - root_model.translation;
  const bool on_circle = root.limit.kind == JointLimit::Kind::kBallSocket &&
                         glm::length(to_target) >= kMinDirectionLength;
  Quat root_solved =
      NormalizeNearUnit(locals[joints.root].rotation * root_correction);
  const std::optional<Vec3> centre =
      on_circle ? SwingCentre(root,
                              Transform{locals[joints.mid].translation,
                                        mid_turned, locals[joints.mid].scale},
                              locals[joints.tip].translation,
                              root_model.rotation *
                                  glm::conjugate(locals[joints.root].rotation))
                : std::nullopt;
  if (on_circle && !pole && !history_free) {
    root_solved =
        HoldSwivelWithoutPole(root, centre, joints, root_model, to_target,
                              root_solved, mid_turned, locals);
  }
  LimitedRotation root_limited =
      ApplyJointConstraint(root_constraint, root_solved);
  // The circle of exact solutions: where the limit would pull the tip off,
  // another point of it may be within the limit; and with a pole, the point
  // the continuity rule keeps to may not be the pole's. (Without a pole the
  // solver's plane now holds the incoming swivel: a root the limit leaves
  // alone keeps it.)
  if (on_circle && (root_limited.clamped || (pole && !history_free)) &&
      !TurnOnCircle(root, root_constraint, centre, joints, root_model,
                    to_target, root_solved, mid_turned, pole, history_free,
                    locals, root_limited, branch_switch, edge_angle) &&
      start.hinge) {
    TakeMirroredBend(rig, root_constraint, centre, joints, root_model,
                     to_target, root_solved, pole, history_free, locals,
                     mid_turned, root_limited, branch_switch, edge_angle);
  }
  locals[joints.root].rotation = root_limited.rotation;
  std::uint64_t mask = root_limited.clamped ? kRootLimited : 0;
  if (start.hinge) {
    locals[joints.mid].rotation = mid_turned;
  } else {
    const LimitedRotation mid_limited =
        ApplyJointConstraint(mid_constraint, mid_turned);
    locals[joints.mid].rotation = mid_limited.rotation;
    if (mid_limited.clamped) mask |= kMidLimited;
  }
  return mask;
}

}  // namespace

std::optional<Vec3> SwingCentre(const JointDefinition& root,
                                const Transform& mid_local,
                                const Vec3& tip_translation,
                                const Quat& parent_rotation) {
  if (root.limit.kind != JointLimit::Kind::kBallSocket) return std::nullopt;
  const Vec3 rest_tip = TransformPoint(mid_local, tip_translation);
  const double length = glm::length(rest_tip);
  if (!(length >= kMinDirectionLength)) return std::nullopt;
  return parent_rotation * (root.rest.rotation * (rest_tip / length));
}

AngleArguments LimbSwingSingularity(const Vec3& bent_tip, const Vec3& to_target,
                                    const std::optional<Vec3>& centre) {
  return SwingSingularity(
      bent_tip, to_target, centre.has_value() ? &*centre : nullptr,
      centre.has_value() ? SwingCentreWeight(bent_tip, to_target) : 0.0);
}

MidStart StartMidWithinLimit(const JointDefinition& mid,
                             const JointConstraint& mid_constraint,
                             const Quat& mid_rotation) {
  MidStart start;
  start.hinge = mid.limit.kind == JointLimit::Kind::kHinge;
  start.rotation = mid_rotation;
  bool mid_within = false;
  if (start.hinge) {
    const HingeLimit& hinge = mid.limit.hinge;
    const Quat relative = glm::conjugate(mid.rest.rotation) * start.rotation;
    start.hinge_angle = TwistAngleAbout(relative, hinge.axis);
    mid_within =
        ClampAngleToRange(start.hinge_angle, hinge.range) ==
            start.hinge_angle &&
        glm::length(relative * hinge.axis - hinge.axis) <= kOnHingeSlack;
  }
  if (!mid_within) {  // a hinge off its range or axis, or any other limit
    const LimitedRotation limited =
        ApplyJointConstraint(mid_constraint, start.rotation);
    start.rotation = limited.rotation;
    start.clamped = limited.clamped;
    if (start.hinge) {
      start.hinge_angle =
          ClampAngleToRange(start.hinge_angle, mid.limit.hinge.range);
    }
  }
  return start;
}

TwoBoneLimbSolve::TwoBoneLimbSolve(const Rig& rig, const TwoBoneJoints& joints,
                                   const Transform& root_model,
                                   const Vec3& target_model,
                                   const std::optional<Vec3>& pole_model,
                                   double tolerance, bool history_free,
                                   absl::Span<const Transform> locals,
                                   SolveReport* report, LimbStart when)
    : rig_(rig),
      joints_(joints),
      root_model_(root_model),
      target_model_(target_model),
      history_free_(history_free) {
  const JointDefinition& mid = rig.joint(joints.mid);
  free_ = mid.limit.kind == JointLimit::Kind::kNone &&
          rig.joint(joints.root).limit.kind == JointLimit::Kind::kNone;
  job_.root_model = root_model;
  job_.target_model = target_model;
  job_.pole_model = pole_model;
  job_.tolerance = tolerance;
  job_.root_correction = &root_correction_;
  job_.mid_correction = &mid_correction_;
  job_.report = report;
  if (free_) {
    // Neither joint limited: the job and the corrections applied, nothing
    // to hold or search.
    job_.mid_model = Compose(root_model, locals[joints.mid]);
    job_.tip_model.translation =
        TransformPoint(job_.mid_model, locals[joints.tip].translation);
    return;
  }
  mid_constraint_ = JointConstraintOf(mid);
  mid_local_ = locals[joints.mid];
  tip_local_ = locals[joints.tip].translation;
  job_.mid_turn_clamped = &turn_clamped_;
  awaiting_start_ = true;
  if (when == LimbStart::kNow) {
    Start(StartMidWithinLimit(mid, mid_constraint_, mid_local_.rotation));
  }
}

void TwoBoneLimbSolve::Start(const MidStart& start) {
  start_ = start;
  Transform mid_local = mid_local_;
  mid_local.rotation = start.rotation;
  job_.mid_model = Compose(root_model_, mid_local);
  job_.tip_model.translation = TransformPoint(job_.mid_model, tip_local_);
  if (start.hinge) {
    // The hinge axis lives in the middle joint's rest local frame; the
    // parent (the root) carries that frame into model space. Turning about
    // it keeps the pose on the hinge, and the turn may take the hinge angle
    // to either end of its range.
    const JointDefinition& mid = rig_.joint(joints_.mid);
    const HingeLimit& hinge = mid.limit.hinge;
    job_.mid_axis_model =
        root_model_.rotation * (mid.rest.rotation * hinge.axis);
    job_.mid_turn_range = AngleRange{hinge.range.min - start.hinge_angle,
                                     hinge.range.max - start.hinge_angle};
  }
  awaiting_start_ = false;
}

absl::Status TwoBoneLimbSolve::Finish(const absl::Status& solved,
                                      absl::Span<Transform> locals,
                                      std::uint64_t* limited_mask) const {
  if (!solved.ok()) return solved;
  job_.report->branch_switch = false;
  job_.report->limit_edge_angle = kPi;
  if (free_) {
    Quat& root_rotation = locals[joints_.root].rotation;
    Quat& mid_rotation = locals[joints_.mid].rotation;
    root_rotation = NormalizeNearUnit(root_rotation * root_correction_);
    mid_rotation = NormalizeNearUnit(mid_rotation * mid_correction_);
    return absl::OkStatus();
  }
  std::uint64_t mask = turn_clamped_ ? kMidLimited : 0;
  mask |= ApplyCorrectionsWithinLimits(
      rig_, joints_, mid_constraint_, start_, root_model_, target_model_,
      root_correction_, mid_correction_, job_.pole_model.has_value(),
      history_free_, locals, &job_.report->branch_switch,
      &job_.report->limit_edge_angle);
  // A middle joint that started outside its limit was held by it only if
  // it ends on the limit's boundary (the turn may take it well inside).
  const JointDefinition& mid = rig_.joint(joints_.mid);
  if (start_.clamped && OnJointLimitBoundary(mid.limit, mid.rest.rotation,
                                             locals[joints_.mid].rotation)) {
    mask |= kMidLimited;
  }
  *limited_mask |= mask;
  return absl::OkStatus();
}

LimbSwivelHold HoldIncomingLimbSwivel(
    const JointDefinition& root, const Transform& root_model,
    const Quat& incoming_root, double incoming_angle,
    const Transform& mid_local, const Vec3& tip_translation, Quat& root_local) {
  LimbSwivelHold hold;
  const Transform mid_model = Compose(root_model, mid_local);
  const Vec3 to_tip =
      TransformPoint(mid_model, tip_translation) - root_model.translation;
  if (root.limit.kind == JointLimit::Kind::kHinge ||
      !(glm::length(to_tip) >= kMinDirectionLength)) {
    return hold;
  }
  LimbCircle circle =
      CircleOf(root, root_model, root_local, root_local, to_tip);
  // The incoming limb, bent as solved, under the answer's parent.
  const Quat incoming_model = circle.parent_rotation * incoming_root;
  const Vec3 upper = incoming_model * mid_local.translation;
  const Vec3 bent_tip = incoming_model * (mid_local.translation +
                                          mid_local.rotation * tip_translation);
  const std::optional<TurnDirection> swivel = IncomingSwivel(
      circle, upper, bent_tip, mid_local.translation, std::nullopt);
  if (!swivel.has_value()) return hold;
  const AngleArguments singularity =
      LimbSwingSingularity(bent_tip, to_tip, std::nullopt);
  hold.singularity_angle = Atan2(singularity.y, singularity.x);
  const double incoming = Atan2(swivel->y, swivel->x);
  if (incoming == 0.0) return hold;
  Quat turned = TurnedRoot(circle, incoming);
  if (root.limit.kind == JointLimit::Kind::kBallSocket) {
    // The swivel as the solver's plane: kept when the limit allows it, else
    // the nearest end of an allowed arc.
    circle.root_solved = turned;
    const std::optional<AllowedTurn> turn = NearestAllowedTurn(
        circle, root.limit.ball_socket, JointConstraintOf(root), 0.0);
    if (!turn.has_value()) return hold;
    turned = turn->root;
    hold.branch_switch =
        turn->ambiguous ||
        (turn->distance > 0.0 &&
         BreaksFromIncoming(incoming_angle, incoming_root, turn->root));
  }
  root_local = turned;
  hold.turned = true;
  return hold;
}

absl::Status SolveTwoBoneWithLimits(
    const Rig& rig, const TwoBoneJoints& joints, const Transform& root_model,
    const Vec3& target_model, const std::optional<Vec3>& pole_model,
    double tolerance, bool history_free, absl::Span<Transform> locals,
    SolveReport* report, std::uint64_t* limited_mask) {
  TwoBoneLimbSolve solve(rig, joints, root_model, target_model, pole_model,
                         tolerance, history_free, locals, report);
  return solve.Finish(solve.job().Run(), locals, limited_mask);
}

}  // namespace ik::internal
