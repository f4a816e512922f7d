// GroundFeetJob::Run: the grounding pass (ik/ground/grounding.h), whose
// validation is in grounding_validate.cc, rays and foot turns in
// grounding_rays.cc and small arithmetic in grounding_leg.cc.
#include "ik/ground/grounding.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <new>
#include <optional>
#include <type_traits>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "base/trig_lanes.h"
#include "ground/grounding_internal.h"
#include "ik/base/joint_limits.h"
#include "ik/base/trig.h"
#include "ik/base/validate.h"
#include "ik/geometry/ray.h"
#include "rig/limb_lanes.h"
#include "rig/two_bone_limits.h"
#include "solvers/two_bone_lanes.h"

namespace ik {
namespace {

using internal::AlignFoot;
using internal::CastDown;
using internal::Clearance;
using internal::DropNeeded;
using internal::FootTurn;
using internal::GoalOffset;
using internal::JointConstraintOf;
using internal::kClampSlack;
using internal::LegPose;
using internal::MaxStep;
using internal::MoveTowards;
using internal::ToeOffset;

// The poses of up to this many legs are kept from the goals' pass for the
// solves (on the stack); further legs' are computed again.
constexpr size_t kKeptLegPoses = 8;

// A leg's pose under `locals`, model space, its joints in world space under
// `root`, and its toe point's offset. Built in place (it is a few hundred
// bytes).
struct LegFrame {
  LegFrame(const Rig& rig, absl::Span<const Transform> locals, const Leg& leg,
           const Transform& root)
      : pose(internal::PoseOfLeg(rig.parents(), locals, leg)),
        hip_world(TransformPoint(root, pose.hip.translation)),
        knee_world(TransformPoint(root, pose.knee.translation)),
        ankle_world(TransformPoint(root, pose.ankle.translation)),
        toe_offset(ToeOffset(rig, leg, root, pose, ankle_world)) {}

  LegPose pose;
  Vec3 hip_world;
  Vec3 knee_world;
  Vec3 ankle_world;
  Vec3 toe_offset;  // see ToeOffset
};

// The frames of the first kKeptLegPoses legs in the animated pose, built in
// place as the goals' pass computes them and kept for the solves. Raw
// storage: zeroing room for every frame per character (as a std::array of
// std::optional is, 3.4 KB) costs more than a leg's forward kinematics.
class KeptFrames {
 public:
  KeptFrames() {}  // constructs no frame
  const LegFrame& Emplace(size_t l, const Rig& rig,
                          absl::Span<const Transform> locals, const Leg& leg,
                          const Transform& root) {
    return *new (&frames_[l]) LegFrame(rig, locals, leg, root);
  }
  // Only for a frame Emplace built.
  const LegFrame& operator[](size_t l) const { return frames_[l]; }

 private:
  static_assert(std::is_trivially_destructible_v<LegFrame>,
                "frames are never destroyed");
  union {
    LegFrame frames_[kKeptLegPoses];
  };
};

// Where the feet should go and how far the pelvis must drop for them.
struct GroundingPlan {
  double drop_needed = 0.0;
  double drop_limit = kInfinity;
  KeptFrames kept_frames;
};

// Casts leg `l`'s ray and sets its foot's goal (world space, where the
// animation puts the character), smoothed; returns the drop it needs.
double PlanFoot(const GroundFeetJob& job, size_t l, const LegFrame& frame) {
  const Leg& leg = job.legs[l];
  const Vec3& hip_world = frame.hip_world;
  const Vec3& knee_world = frame.knee_world;
  const Vec3& ankle_world = frame.ankle_world;
  FootResult& foot = job.feet[l];
  foot = FootResult();
  Vec3 offset(0.0);
  const RayHit hit =
      CastDown(job.ground, ankle_world, std::max(hip_world.y, ankle_world.y),
               leg.settings);
  if (hit.hit) {
    foot.ground_found = true;
    foot.contact_point = hit.point;
    foot.contact_normal = hit.normal;
    const double clearance = Clearance(hit, ankle_world, leg.settings);
    foot.grounded = clearance <= 0.0 || job.weights[l] > 0.0;
    offset = GoalOffset(hit, clearance, job.weights[l]);
  }
  if (job.smoothing.has_value()) {
    const double foot_step =
        MaxStep(job.smoothing->max_foot_speed, job.smoothing->delta_time);
    offset =
        MoveTowards(job.smoothing->previous_foot_offsets[l], offset, foot_step);
  }
  foot.foot_offset = offset;
  foot.goal = ankle_world + offset;
  // The leg may stretch as far as the animation does, or to the margin.
  const double reach = std::max(glm::length(ankle_world - hip_world),
                                (glm::length(knee_world - hip_world) +
                                 glm::length(ankle_world - knee_world)) *
                                    (1.0 - kLegReachMargin));
  return DropNeeded(foot.goal - hip_world, reach);
}

void PlanFeet(const GroundFeetJob& job, GroundingPlan& plan) {
  const size_t kept = std::min(job.legs.size(), kKeptLegPoses);
  // The kept legs' frames first, so that the ground can start loading what
  // their ankle and toe rays will read: each leg's first loads while the
  // next leg's pose is computed, then the rest for all of them at once.
  Vec3 ray_points[2 * kKeptLegPoses];
  size_t point_count = 0;
  for (size_t l = 0; l < kept; ++l) {
    const LegFrame& frame = plan.kept_frames.Emplace(l, *job.rig, job.locals,
                                                     job.legs[l], job.root);
    const size_t first = point_count;
    ray_points[point_count++] = frame.ankle_world;
    if (frame.toe_offset != Vec3(0.0)) {
      ray_points[point_count++] = frame.ankle_world + frame.toe_offset;
    }
    job.ground.PrefetchVerticalFirst(
        absl::MakeConstSpan(ray_points + first, point_count - first));
  }
  job.ground.PrefetchVerticalRest(absl::MakeConstSpan(ray_points, point_count));
  for (size_t l = 0; l < job.legs.size(); ++l) {
    const Leg& leg = job.legs[l];
    const double drop =
        l < kept
            ? PlanFoot(job, l, plan.kept_frames[l])
            : PlanFoot(job, l, LegFrame(*job.rig, job.locals, leg, job.root));
    plan.drop_needed = std::max(plan.drop_needed, drop);
    plan.drop_limit = std::min(plan.drop_limit, leg.settings.max_pelvis_drop);
  }
}

// The pelvis drop (clamped, smoothed) into the report; returns the lowered
// root.
Transform DropPelvis(const GroundFeetJob& job, const GroundingPlan& plan) {
  GroundFeetReport& out = *job.report;
  out = GroundFeetReport();
  out.pelvis_drop_clamped = plan.drop_needed > plan.drop_limit + kClampSlack;
  out.pelvis_drop_target = std::min(plan.drop_needed, plan.drop_limit);
  out.pelvis_drop = out.pelvis_drop_target;
  if (job.smoothing.has_value()) {
    out.pelvis_drop = MoveTowards(
        job.smoothing->previous_pelvis_drop, out.pelvis_drop_target,
        MaxStep(job.smoothing->max_pelvis_speed, job.smoothing->delta_time));
  }
  out.root_offset = Vec3(0.0, -out.pelvis_drop, 0.0);
  Transform lowered = job.root;
  lowered.translation += out.root_offset;
  return lowered;
}

// How the toe ray turns leg `l`'s foot (no turn without a toe offset).
FootTurn TurnFoot(const GroundFeetJob& job, size_t l, const LegFrame& frame) {
  const Leg& leg = job.legs[l];
  const FootResult& foot = job.feet[l];
  const Vec3& toe_offset = frame.toe_offset;
  if (toe_offset == Vec3(0.0)) return FootTurn();
  Vec3 ankle_offset(0.0);
  if (foot.ground_found) {
    RayHit ankle_hit;
    ankle_hit.point = foot.contact_point;
    ankle_hit.normal = foot.contact_normal;
    ankle_offset = GoalOffset(
        ankle_hit, Clearance(ankle_hit, frame.ankle_world, leg.settings),
        job.weights[l]);
  }
  return AlignFoot(job.ground, leg.settings, job.weights[l], frame.ankle_world,
                   frame.knee_world, toe_offset, ankle_offset);
}

// Leg `l`'s hip model transform under the job's locals as they are now:
// `pose`'s, unless an earlier leg's solve has written the hip's local since
// (legs sharing a joint), when it is composed again.
Transform HipModel(const GroundFeetJob& job, size_t l, const LegPose& pose) {
  const int hip = job.legs[l].hip;
  for (size_t earlier = 0; earlier < l; ++earlier) {
    const Leg& other = job.legs[earlier];
    if (hip == other.hip || hip == other.knee || hip == other.ankle) {
      return Compose(pose.parent, job.locals[hip]);
    }
  }
  return pose.hip;
}

// Leg `l`'s hip and knee solve for its goal in the lowered character, the
// knee bending towards where it was (pushed out from the hip-ankle line),
// as SolveChainJob solves a two-bone chain: the hip's limit may pull the
// ankle off its goal, which `reached` measures. Built from the pose as the
// legs before it left it; Finish writes the leg's hip and knee.
class LegSolve {
 public:
  LegSolve(const GroundFeetJob& job, size_t l, const LegPose& pose,
           const Transform& lowered, internal::LimbStart when)
      : job_(job),
        l_(l),
        solve_(*job.rig, {job.legs[l].hip, job.legs[l].knee, job.legs[l].ankle},
               HipModel(job, l, pose),
               InverseTransformPoint(lowered, job.feet[l].goal),
               pose.knee.translation + PoleOffset(job, l, pose),
               kDefaultTolerance,
               /*history_free=*/false, job.locals, &report_, when) {}

  internal::TwoBoneLimbSolve& limb() { return solve_; }
  const TwoBoneJob& job() const { return solve_.job(); }

  // `solved`: job()'s status.
  absl::Status Finish(const absl::Status& solved) {
    std::uint64_t limited_mask = 0;
    absl::Status status = solve_.Finish(solved, job_.locals, &limited_mask);
    if (status.ok()) {
      job_.feet[l_].branch_switch = report_.branch_switch;
      return status;
    }
    return InvalidField(
        job_.pose_path.empty() ? absl::string_view("locals") : job_.pose_path,
        absl::StrCat("leg '", job_.legs[l_].name,
                     "' cannot be solved in this pose: ", status.message()));
  }

 private:
  // The knee's offset from the hip-ankle line, the ankle at `ankle`.
  static Vec3 Bend(const LegPose& pose, const Vec3& ankle) {
    const Vec3 leg_axis = ankle - pose.hip.translation;
    const double axis_sq = glm::dot(leg_axis, leg_axis);
    Vec3 bend = pose.knee.translation - pose.hip.translation;
    if (axis_sq > 0.0) bend -= leg_axis * (glm::dot(bend, leg_axis) / axis_sq);
    return bend;
  }

  // Where the pole is from the knee: towards the side the knee bends to, in
  // the animated leg's plane. For a hinge knee, the knee's offset from the
  // hip-ankle line with the knee bent to the middle of its range
  // (Leg::knee_bent), the hip as animated: the plane the hinge bends the
  // leg in, on its bending side, however the animation bends the knee -- a
  // knee animated past straight (hyperextended, in or out of its range)
  // lies behind the line, where its hinge cannot take it, and a nearly
  // straight one lies on the line, where the offset gives no plane at all.
  // Other knees: the animated knee's own offset from the line.
  static Vec3 PoleOffset(const GroundFeetJob& job, size_t l,
                         const LegPose& pose) {
    const Leg& leg = job.legs[l];
    if (!leg.knee_bent.has_value()) {
      return Bend(pose, pose.ankle.translation);
    }
    return Bend(pose,
                pose.knee.translation + (pose.hip.rotation * *leg.knee_bent) *
                                            job.locals[leg.ankle].translation);
  }

  const GroundFeetJob& job_;
  size_t l_;
  SolveReport report_;
  internal::TwoBoneLimbSolve solve_;
};

// Gives leg `l`'s foot its posed world orientation turned by `turn` (held
// to the ankle's limit) and measures where the ankle ended.
void PlaceFoot(const GroundFeetJob& job, size_t l, const LegFrame& frame,
               const FootTurn& turn, const Transform& lowered) {
  const Leg& leg = job.legs[l];
  const LegPose& pose = frame.pose;
  FootResult& foot = job.feet[l];
  const Transform knee_solved =
      Compose(Compose(pose.parent, job.locals[leg.hip]), job.locals[leg.knee]);
  const Quat ankle_rotation_model = glm::conjugate(lowered.rotation) *
                                    turn.rotation * lowered.rotation *
                                    pose.ankle.rotation;
  const LimitedRotation ankle_limited =
      ApplyJointConstraint(JointConstraintOf(job.rig->joint(leg.ankle)),
                           glm::normalize(glm::conjugate(knee_solved.rotation) *
                                          ankle_rotation_model));
  job.locals[leg.ankle].rotation = ankle_limited.rotation;
  foot.tilt_clamped = turn.clamped || ankle_limited.clamped;

  const Vec3 ankle_final = TransformPoint(
      lowered, TransformPoint(knee_solved, job.locals[leg.ankle].translation));
  foot.reached = glm::length(ankle_final - foot.goal) <= job.tolerance;
  foot.moved = glm::length(ankle_final - frame.ankle_world);
  if (foot.ground_found) {
    foot.contact_point =
        ankle_final -
        foot.contact_normal *
            glm::dot(ankle_final - foot.contact_point, foot.contact_normal);
  }
}

// Grounds leg `l` in the lowered character, on the pose as the legs before
// it left it (`frame`): turns the foot by the toe ray, solves the leg, gives
// the foot its posed world orientation turned by that.
absl::Status GroundLeg(const GroundFeetJob& job, size_t l,
                       const LegFrame& frame, const Transform& lowered) {
  const FootTurn turn = TurnFoot(job, l, frame);
  job.feet[l].tilt = turn.angle;
  LegSolve solve(job, l, frame.pose, lowered, internal::LimbStart::kNow);
  if (absl::Status status = solve.Finish(solve.job().Run()); !status.ok()) {
    return status;
  }
  PlaceFoot(job, l, frame, turn, lowered);
  return absl::OkStatus();
}

// Legs `l` and `l + 1` at once, both from kept frames of the animated pose
// and sharing no joint (so neither reads what the other writes), in two
// halves about their solves' jobs, which the caller runs together (two SIMD
// lanes, or four with another pair's): everything else, and every write, in
// GroundLeg's order for `l`, then for `l + 1`: the same bits, and on an
// error the same legs left untouched. The caller starts the limbs (with
// other pairs', internal::StartLimbs) before it runs the jobs. Not copyable
// or movable: the jobs point into it.
class LegPairSolve {
 public:
  LegPairSolve(const GroundFeetJob& job, size_t l, const LegFrame& first,
               const LegFrame& second, const Transform& lowered)
      : job_(job),
        l_(l),
        first_(first),
        second_(second),
        lowered_(lowered),
        first_turn_(TurnFoot(job, l, first)) {
    job.feet[l].tilt = first_turn_.angle;
    first_solve_.emplace(job, l, first.pose, lowered,
                         internal::LimbStart::kLater);
    second_solve_.emplace(job, l + 1, second.pose, lowered,
                          internal::LimbStart::kLater);
  }
  LegPairSolve(const LegPairSolve&) = delete;
  LegPairSolve& operator=(const LegPairSolve&) = delete;

  internal::TwoBoneLimbSolve* first_limb() { return &first_solve_->limb(); }
  internal::TwoBoneLimbSolve* second_limb() { return &second_solve_->limb(); }
  const TwoBoneJob& first_job() const { return first_solve_->job(); }
  const TwoBoneJob& second_job() const { return second_solve_->job(); }

  // `solved`: the two jobs' statuses.
  absl::Status Finish(const absl::Status solved[2]) {
    if (absl::Status status = first_solve_->Finish(solved[0]); !status.ok()) {
      return status;
    }
    PlaceFoot(job_, l_, first_, first_turn_, lowered_);
    const FootTurn second_turn = TurnFoot(job_, l_ + 1, second_);
    job_.feet[l_ + 1].tilt = second_turn.angle;
    if (absl::Status status = second_solve_->Finish(solved[1]); !status.ok()) {
      return status;
    }
    PlaceFoot(job_, l_ + 1, second_, second_turn, lowered_);
    return absl::OkStatus();
  }

 private:
  const GroundFeetJob& job_;
  size_t l_;
  const LegFrame& first_;
  const LegFrame& second_;
  const Transform& lowered_;
  FootTurn first_turn_;
  std::optional<LegSolve> first_solve_;
  std::optional<LegSolve> second_solve_;
};

// Whether leg `l` is grounded from a frame kept from the animated pose:
// one of the first kKeptLegPoses, and no earlier leg's solve moved it.
bool KeptFrame(const GroundFeetJob& job, size_t l) {
  return l < kKeptLegPoses && !internal::BelowEarlierLegs(job.legs, l);
}

// Whether legs `l` and `l + 1` go as a LegPairSolve.
bool PairsWithNext(const GroundFeetJob& job, size_t l) {
  return l + 1 < job.legs.size() && KeptFrame(job, l) &&
         KeptFrame(job, l + 1) &&
         !internal::ShareJoints(job.legs[l], job.legs[l + 1]);
}

// The legs from `first` on, in order, each pair that can go as a
// LegPairSolve, its jobs in two SIMD lanes.
absl::Status GroundLegs(const GroundFeetJob& job, const GroundingPlan& plan,
                        const Transform& lowered, size_t first) {
  for (size_t l = first; l < job.legs.size(); ++l) {
    absl::Status status;
    if (PairsWithNext(job, l)) {
      LegPairSolve pair(job, l, plan.kept_frames[l], plan.kept_frames[l + 1],
                        lowered);
      internal::TwoBoneLimbSolve* const limbs[2] = {pair.first_limb(),
                                                    pair.second_limb()};
      internal::StartLimbs(limbs);
      absl::Status solved[2];
      internal::RunTwoBoneJobPair(pair.first_job(), pair.second_job(), solved);
      status = pair.Finish(solved);
      ++l;
    } else if (KeptFrame(job, l)) {
      status = GroundLeg(job, l, plan.kept_frames[l], lowered);
    } else {
      status = GroundLeg(job, l,
                         LegFrame(*job.rig, job.locals, job.legs[l], job.root),
                         lowered);
    }
    if (!status.ok()) return status;
  }
  return absl::OkStatus();
}

// Up to kGroupJobs jobs of distinct characters: each planned and its pelvis
// dropped, then the solves of every job's first two legs together (four
// SIMD lanes for two jobs), then each job's legs finished in order.
constexpr size_t kGroupJobs = 2;
void GroundGroup(absl::Span<const GroundFeetJob* const> jobs,
                 absl::Status* statuses) {
  GroundingPlan plans[kGroupJobs];
  Transform lowered[kGroupJobs];
  std::optional<LegPairSolve> pairs[kGroupJobs];
  internal::TwoBoneLimbSolve* limbs[2 * kGroupJobs];
  const TwoBoneJob* lane_jobs[2 * kGroupJobs];
  size_t lanes = 0;
  for (size_t k = 0; k < jobs.size(); ++k) {
    const GroundFeetJob& job = *jobs[k];
    statuses[k] = job.Validate();
    if (!statuses[k].ok()) continue;
    PlanFeet(job, plans[k]);
    lowered[k] = DropPelvis(job, plans[k]);
    if (!PairsWithNext(job, 0)) continue;
    pairs[k].emplace(job, 0, plans[k].kept_frames[0], plans[k].kept_frames[1],
                     lowered[k]);
    limbs[lanes] = pairs[k]->first_limb();
    lane_jobs[lanes++] = &pairs[k]->first_job();
    limbs[lanes] = pairs[k]->second_limb();
    lane_jobs[lanes++] = &pairs[k]->second_job();
  }
  internal::StartLimbs(absl::MakeConstSpan(limbs, lanes));
  absl::Status solved[2 * kGroupJobs];
  internal::RunTwoBoneJobGroup(absl::MakeConstSpan(lane_jobs, lanes), solved);
  lanes = 0;
  for (size_t k = 0; k < jobs.size(); ++k) {
    if (!statuses[k].ok()) continue;
    size_t first = 0;
    if (pairs[k].has_value()) {
      statuses[k] = pairs[k]->Finish(&solved[lanes]);
      lanes += 2;
      first = 2;
      if (!statuses[k].ok()) continue;
    }
    statuses[k] = GroundLegs(*jobs[k], plans[k], lowered[k], first);
  }
}

}  // namespace

namespace internal {

void RunGroundFeetJobs(absl::Span<const GroundFeetJob* const> jobs,
                       absl::Status* statuses) {
  // Two jobs' pairs fill four lanes; without AVX a pair fills the two.
  const size_t group = HasAvxLanes() ? kGroupJobs : 1;
  for (size_t i = 0; i < jobs.size(); i += group) {
    GroundGroup(jobs.subspan(i, group), statuses + i);
  }
}

}  // namespace internal

absl::Status GroundFeetJob::Run() const {
  if (absl::Status status = Validate(); !status.ok()) return status;
  GroundingPlan plan;
  PlanFeet(*this, plan);
  const Transform lowered = DropPelvis(*this, plan);
  return GroundLegs(*this, plan, lowered, 0);
}

}  // namespace ik
