#include "ozz_crowd.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/types/span.h"
#include "ik/character/character.h"
#include "ik/dynamics/rig_dynamics.h"
#include "ik/ground/grounding.h"
#include "ozz/animation/runtime/ik_aim_job.h"
#include "ozz/animation/runtime/ik_two_bone_job.h"
#include "ozz/animation/runtime/local_to_model_job.h"
#include "ozz/animation/runtime/skeleton_utils.h"
#include "ozz/base/maths/simd_quaternion.h"
#include "ozz_arms.h"

namespace ik::bench {
namespace {

namespace om = ::ozz::math;
namespace oa = ::ozz::animation;
using server::CrowdCoreInputs;

constexpr size_t kMaxLegs = 8;
const Vec3 kUp(0.0, 1.0, 0.0);

// The grounding's arithmetic (ik/ground/grounding.h), in doubles.
// The goal's offset from an animated point over `hit`: along the ground's
// normal by the sole's clearance, all of it when the animation sinks the
// sole in, else the planted weight's share.
Vec3 GoalOffset(const RayHit& hit, const Vec3& point,
                const LegSettings& settings, double weight) {
  const double clearance =
      glm::dot(point - hit.point, hit.normal) - settings.ankle_height;
  return hit.normal * -(clearance <= 0.0 ? clearance : weight * clearance);
}

// The smallest drop along world up that brings the goal within `reach`
// of the hip; +infinity when none can.
double DropNeeded(const Vec3& hip_to_goal, double reach) {
  const double horizontal_sq =
      hip_to_goal.x * hip_to_goal.x + hip_to_goal.z * hip_to_goal.z;
  if (horizontal_sq > reach * reach) return kInfinity;
  return std::max(0.0,
                  -hip_to_goal.y - std::sqrt(reach * reach - horizontal_sq));
}

// `turn` held to `max_tilt` radians about its own axis.
Quat ClampedTurn(const Quat& turn, double max_tilt) {
  const Vec3 axis(turn.x, turn.y, turn.z);
  const double half_sine = glm::length(axis);
  if (2.0 * std::atan2(half_sine, std::abs(turn.w)) <= max_tilt) return turn;
  return AngleAxis(max_tilt, axis * ((turn.w < 0.0 ? -1.0 : 1.0) / half_sine));
}

}  // namespace

absl::StatusOr<OzzLimb> OzzCrowd::MakeLimb(int start, int mid, int end) const {
  const JointLimit& limit = rig_->joint(mid).limit;
  if (limit.kind != JointLimit::Kind::kHinge) {
    return absl::InvalidArgumentError(absl::StrCat(
        "joint '", rig_->joint(mid).name, "' is not a hinge: no mid_axis"));
  }
  OzzLimb limb;
  limb.start = ozz_index_[start];
  limb.mid = ozz_index_[mid];
  limb.end = ozz_index_[end];
  limb.mid_axis = ToSimd(-limit.hinge.axis);
  return limb;
}

absl::Status OzzCrowd::BuildLegs() {
  for (const Leg& leg : crowd_->character().legs) {
    absl::StatusOr<OzzLimb> limb = MakeLimb(leg.hip, leg.knee, leg.ankle);
    if (!limb.ok()) return limb.status();
    if (legs_.size() == kMaxLegs || leg.toe == kNoParent ||
        rig_->parents()[leg.toe] != leg.ankle) {
      return absl::InvalidArgumentError(absl::StrCat(
          "leg '", leg.name, "': no toe below the ankle, or too many legs"));
    }
    OzzLeg& out = legs_.emplace_back();
    out.leg = &leg;
    out.limb = *limb;
    out.toe = ozz_index_[leg.toe];
    const Vec3 up = glm::conjugate(leg.ankle_rest_model) * kUp;
    const Vec3 toe = rig_->rest_pose()[leg.toe].translation;
    out.up = ToSimd(up);
    out.forward = ToSimd(glm::normalize(toe - up * glm::dot(toe, up)));
  }
  return absl::OkStatus();
}

absl::Status OzzCrowd::BuildCharacter(size_t k) {
  const server::CrowdCharacterInput& in = crowd_->inputs[k];
  if (!in.grounds || !in.steps || in.smoothing.has_value() ||
      in.weights.size() != legs_.size()) {
    return absl::InvalidArgumentError(
        "each character grounds (no smoothing) and steps");
  }
  OzzCharacter& out = characters_[k];
  out.root = in.pose.root;
  out.root_matrix = ToMatrix(in.pose.root);
  out.ankle_goals.resize(legs_.size());
  out.reachable.resize(legs_.size());
  for (const ChainGoal& goal : in.goals) {
    const std::vector<int>& joints = goal.chain->joints;
    if (joints.size() != 3 || goal.pole_world.has_value() ||
        goal.swivel.has_value() || goal.orientation_world.has_value()) {
      return absl::InvalidArgumentError("goals: two-bone positions only");
    }
    absl::StatusOr<OzzLimb> limb = MakeLimb(joints[0], joints[1], joints[2]);
    if (!limb.ok()) return limb.status();
    out.goals.push_back({*limb, goal.target_world});
  }
  SetPose(in.pose.locals, ozz_index_, {&animated_[k * soa_count_], soa_count_});
  return absl::OkStatus();
}

absl::Status OzzCrowd::Build(const CrowdCoreInputs& crowd) {
  crowd_ = &crowd;
  rig_ = &crowd.character().rig;
  ground_ = crowd.ground.view();
  down_ = Ray::Make(Vec3(0.0), -kUp);
  skeleton_ = MakeSkeleton(*rig_);
  if (skeleton_ == nullptr) return absl::InternalError("ozz's skeleton");
  for (int j = 0; j < rig_->joint_count(); ++j) {
    ozz_index_.push_back(
        oa::FindJoint(*skeleton_, rig_->joint(j).name.c_str()));
  }
  soa_count_ = static_cast<size_t>(skeleton_->num_soa_joints());
  models_.resize(static_cast<size_t>(skeleton_->num_joints()));
  world_.resize(static_cast<size_t>(rig_->joint_count()));
  chain_locals_.resize(world_.size());
  for (const DynamicChainBinding& chain : crowd.character().dynamic_chains) {
    rotations_.resize(std::max(rotations_.size(), chain.joints.size()));
  }
  if (absl::Status legs = BuildLegs(); !legs.ok()) return legs;
  const size_t count = crowd.inputs.size();
  characters_.resize(count);
  states_.resize(count);
  animated_.assign(count * soa_count_, om::SoaTransform::identity());
  for (size_t k = 0; k < count; ++k) {
    if (absl::Status built = BuildCharacter(k); !built.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("characters[", k, "]: ", built.message()));
    }
  }
  Restore();
  return absl::OkStatus();
}

void OzzCrowd::Restore() {
  locals_ = animated_;
  for (size_t k = 0; k < states_.size(); ++k) {
    states_[k] = crowd_->inputs[k].states;
  }
}

std::vector<Transform> OzzCrowd::Locals(size_t k) const {
  return PoseOf({&locals_[k * soa_count_], soa_count_}, ozz_index_);
}

bool OzzCrowd::Tick() {
  bool ok = true;
  for (size_t k = 0; k < characters_.size(); ++k) ok &= TickCharacter(k);
  return ok;
}

// Forward kinematics, the legs' plans and the drop, each leg's solve and
// foot, each hand goal, the ponytail. The matrices stay where the animation
// puts the character: the goals are raised by the drop instead.
bool OzzCrowd::TickCharacter(size_t k) {
  OzzCharacter& c = characters_[k];
  const ozz::span<om::SoaTransform> locals(&locals_[k * soa_count_],
                                           soa_count_);
  oa::LocalToModelJob pose;
  pose.skeleton = skeleton_.get();
  pose.root = &c.root_matrix;
  pose.input = locals;
  pose.output = ozz::make_span(models_);
  if (!pose.Run()) return false;
  FootPlan plans[kMaxLegs];
  double needed = 0.0;
  double limit = kInfinity;
  for (size_t l = 0; l < legs_.size(); ++l) {
    plans[l] = PlanFoot(legs_[l], crowd_->inputs[k].weights[l]);
    needed = std::max(needed, plans[l].drop);
    limit = std::min(limit, legs_[l].leg->settings.max_pelvis_drop);
  }
  c.drop = std::min(needed, limit);
  const Vec3 raise(0.0, c.drop, 0.0);
  for (size_t l = 0; l < legs_.size(); ++l) {
    c.ankle_goals[l] = plans[l].goal;
    c.reachable[l] = plans[l].drop <= c.drop;
    if (!SolveLimb(legs_[l].limb, plans[l].goal + raise, locals) ||
        (plans[l].aims &&
         !AimFoot(legs_[l], plans[l], raise, c.root_matrix, locals))) {
      return false;
    }
  }
  for (const OzzCharacter::Goal& goal : c.goals) {
    if (!SolveLimb(goal.limb, goal.target_world + raise, locals)) return false;
  }
  return StepDynamics(k, c.drop, locals);
}

// A ray straight down through `through`, from ray_above_hip above `top` to
// ray_below_ankle below `through` (GroundFeetJob's leg and toe rays).
RayHit OzzCrowd::CastDown(const Vec3& through, double top,
                          const LegSettings& settings) const {
  const Vec3 origin(through.x, top + settings.ray_above_hip, through.z);
  const std::optional<Ray> ray = down_->WithOrigin(origin);
  if (!ray.has_value()) return RayHit();
  return ground_.Raycast(*ray,
                         (origin.y - through.y) + settings.ray_below_ankle);
}

// Steps 1-3 and 5 of ik/ground/grounding.h on ozz's matrices (widened).
FootPlan OzzCrowd::PlanFoot(const OzzLeg& leg, double weight) const {
  const LegSettings& settings = leg.leg->settings;
  const Vec3 hip = ToVec3(models_[leg.limb.start].cols[3]);
  const Vec3 knee = ToVec3(models_[leg.limb.mid].cols[3]);
  const Vec3 ankle = ToVec3(models_[leg.limb.end].cols[3]);
  FootPlan plan;
  Vec3 offset(0.0);
  const RayHit hit = CastDown(ankle, std::max(hip.y, ankle.y), settings);
  if (hit.hit) offset = GoalOffset(hit, ankle, settings, weight);
  plan.goal = ankle + offset;
  const double reach =
      std::max(glm::length(ankle - hip),
               (glm::length(knee - hip) + glm::length(ankle - knee)) *
                   (1.0 - kLegReachMargin));
  plan.drop = DropNeeded(plan.goal - hip, reach);
  // The toe point: the toe flattened into the sole's plane through the
  // ankle. (ikd falls back on toe_forward when it sits on the ankle; the
  // example's feet never do.)
  const Vec3 sole_up =
      ToVec3(om::TransformVector(models_[leg.limb.end], leg.up));
  Vec3 run = ToVec3(models_[leg.toe].cols[3]) - ankle;
  run -= sole_up * glm::dot(run, sole_up);
  if (!(glm::length(run) >= kMinToeRun)) return plan;
  const Vec3 toe = ankle + run;
  const RayHit toe_hit = CastDown(toe, std::max(toe.y, knee.y), settings);
  Quat turn = IdentityQuat();
  if (toe_hit.hit) {
    const Vec3 toe_offset = GoalOffset(toe_hit, toe, settings, weight);
    turn = ClampedTurn(FromTo(run, run + (toe_offset - offset)),
                       settings.max_foot_tilt);
  }
  plan.aims = true;
  plan.aim_target = plan.goal + turn * run;
  plan.sole_up = turn * sole_up;
  return plan;
}

// IKTwoBoneJob, the pole on the side the middle joint's hinge bends to
// (mid_axis x start->mid, model space, as ozz's foot IK sample takes the
// knee's axis): for a knee bent at least as at rest, the plane and side of
// ikd's pole (the knee pushed out from the hip-ankle line). ikd's pole on
// a knee the animation overstretches points behind it, where no hinged
// answer is: ozz would turn the whole leg round to reach it.
bool OzzCrowd::SolveLimb(const OzzLimb& limb, const Vec3& target,
                         ozz::span<om::SoaTransform> locals) {
  const om::Float4x4& mid = models_[limb.mid];
  oa::IKTwoBoneJob job;
  job.target = ToSimd(target, 1.0);
  job.pole_vector = om::Cross3(om::TransformVector(mid, limb.mid_axis),
                               mid.cols[3] - models_[limb.start].cols[3]);
  job.mid_axis = limb.mid_axis;
  job.start_joint = &models_[limb.start];
  job.mid_joint = &models_[limb.mid];
  job.end_joint = &models_[limb.end];
  om::SimdQuaternion start_correction;
  om::SimdQuaternion mid_correction;
  job.start_joint_correction = &start_correction;
  job.mid_joint_correction = &mid_correction;
  if (!job.Run()) return false;
  MultiplyRotation(locals, limb.start, start_correction);
  MultiplyRotation(locals, limb.mid, mid_correction);
  return true;
}

// The leg's matrices again (hip to ankle), then IKAimJob: the toe run at
// the turned toe direction, the sole's up towards the turned up. That is
// the foot's animated world orientation turned by the plan's turn.
bool OzzCrowd::AimFoot(const OzzLeg& leg, const FootPlan& plan,
                       const Vec3& raise, const om::Float4x4& root,
                       ozz::span<om::SoaTransform> locals) {
  oa::LocalToModelJob update;
  update.skeleton = skeleton_.get();
  update.root = &root;
  update.input = locals;
  update.output = ozz::make_span(models_);
  update.from = leg.limb.start;
  update.to = leg.limb.end;
  if (!update.Run()) return false;
  oa::IKAimJob aim;
  aim.target = ToSimd(plan.aim_target + raise, 1.0);
  aim.forward = leg.forward;
  aim.up = leg.up;
  aim.pole_vector = ToSimd(plan.sole_up);
  aim.joint = &models_[leg.limb.end];
  om::SimdQuaternion correction;
  aim.joint_correction = &correction;
  if (!aim.Run()) return false;
  MultiplyRotation(locals, leg.limb.end, correction);
  return true;
}

// ik::RigDynamicsStep per dynamic chain on the world transforms of ozz's
// matrices (widened, lowered by the drop; the limbs' solves do not move
// the joints dynamics reads), the new rotations rounded back. The chains
// are disjoint and read `world_` only: TickBatchJob's answer.
bool OzzCrowd::StepDynamics(size_t k, double drop,
                            ozz::span<om::SoaTransform> locals) {
  const Character& character = crowd_->character();
  const Vec3 lower(0.0, drop, 0.0);
  for (const int j : character.dynamics_joints) {
    const om::Float4x4& model = models_[ozz_index_[j]];
    world_[j].translation = ToVec3(model.cols[3]) - lower;
    world_[j].rotation = ToQuat({om::ToQuaternion(model)});
  }
  for (size_t c = 0; c < character.dynamic_chains.size(); ++c) {
    const DynamicChainBinding& chain = character.dynamic_chains[c];
    for (const int j : chain.joints) {
      chain_locals_[j].rotation = LaneRotation(locals, ozz_index_[j]);
    }
    RigDynamicsStep step;
    step.rig = rig_;
    step.colliders = character.colliders;
    step.chain = &chain;
    step.models_world = world_;
    step.locals = chain_locals_;
    step.delta_time = crowd_->inputs[k].delta_time;
    step.state = &states_[k][c];
    step.rotations_local =
        absl::MakeSpan(rotations_).subspan(0, chain.joints.size());
    step.report = &report_;
    if (!step.Run().ok()) return false;
    for (size_t i = 0; i < chain.joints.size(); ++i) {
      if (chain.turns[i]) {
        SetLaneRotation(locals, ozz_index_[chain.joints[i]], rotations_[i]);
      }
    }
  }
  return true;
}

namespace {

void FoldDistance(const Vec3& a, const Vec3& b, double& worst) {
  worst = std::max(worst, glm::length(a - b));
}

void FoldAnkle(const Transform& ankle, const Vec3& goal, CrowdErrors& errors) {
  FoldDistance(ankle.translation, goal, errors.ankle_to_goal);
  errors.ankles_to_goals.push_back(glm::length(ankle.translation - goal));
}

double Median(std::vector<double> values) {
  if (values.empty()) return 0.0;
  std::nth_element(values.begin(), values.begin() + values.size() / 2,
                   values.end());
  return values[values.size() / 2];
}

}  // namespace

// How far the ozz side's answers are from ikd's, worst over the crowd.
struct CrowdCharacters::Apart {
  double ankle_goals = 0.0;  // metres
  double drops = 0.0;        // metres
  // Knees and elbows more than 1 mm from ikd's (and of those knees, how
  // many ikd reports as a branch switch, FootResult::branch_switch).
  int knees = 0;
  int knees_switched = 0;
  int elbows = 0;
};

void CrowdCharacters::CheckCharacter(size_t k, Apart& apart) {
  const Character& character = core_.character();
  const CharacterTick& tick = run_->ticks[k];
  const std::vector<Transform> ikd =
      WorldPose(character.rig, tick.root, run_->locals[k]);
  const OzzCharacter& o = ozz_.character(k);
  Transform lowered = o.root;
  lowered.translation.y -= o.drop;
  const std::vector<Transform> ozz_world =
      WorldPose(character.rig, lowered, ozz_.Locals(k));
  const auto apart_at = [&](int j) {
    return glm::length(ikd[j].translation - ozz_world[j].translation) > 1e-3;
  };
  for (size_t l = 0; l < character.legs.size(); ++l) {
    const int ankle = character.legs[l].ankle;
    const FootResult& foot = run_->feet[k][l];
    ikd_errors_.unreached_legs += !foot.reached;
    ozz_errors_.unreached_legs += !o.reachable[l];
    if (foot.reached) FoldAnkle(ikd[ankle], foot.goal, ikd_errors_);
    if (o.reachable[l]) {
      FoldAnkle(ozz_world[ankle], o.ankle_goals[l], ozz_errors_);
    }
    FoldDistance(o.ankle_goals[l], foot.goal, apart.ankle_goals);
    apart.knees += apart_at(character.legs[l].knee);
    apart.knees_switched +=
        apart_at(character.legs[l].knee) && foot.branch_switch;
  }
  for (const ChainGoal& goal : core_.inputs[k].goals) {
    const std::vector<int>& joints = goal.chain->joints;
    FoldDistance(ikd[joints.back()].translation, goal.target_world,
                 ikd_errors_.tip_to_target);
    FoldDistance(ozz_world[joints.back()].translation, goal.target_world,
                 ozz_errors_.tip_to_target);
    apart.elbows += apart_at(joints[1]);
  }
  apart.drops =
      std::max(apart.drops, std::abs(o.drop - tick.ground_report.pelvis_drop));
}

std::unique_ptr<CrowdCharacters> CrowdCharacters::Create() {
  std::unique_ptr<CrowdCharacters> crowd(new CrowdCharacters());
  server::CrowdTickFixture& fixture = crowd->fixture_;
  absl::Status status = crowd->core_.Convert(fixture.request, fixture.rigs,
                                             fixture.terrains, fixture.limits);
  if (status.ok()) status = crowd->ozz_.Build(crowd->core_);
  if (!status.ok()) {
    std::fprintf(stderr, "FAIL: building the crowd: %s\n",
                 status.ToString().c_str());
    return nullptr;
  }
  crowd->run_.emplace(crowd->core_, server::kAllCrowdJobs);
  return crowd;
}

bool CrowdCharacters::CheckAnswers(double ikd_bound, double ozz_bound) {
  run_->Restore(core_);
  const absl::Status batch = server::RunBatch(core_, *run_, scratch_);
  const int failed = batch.ok() ? server::FailedJobs(*run_) : characters();
  ozz_.Restore();
  const bool ozz_ran = ozz_.Tick();
  Apart apart;
  for (size_t k = 0; k < core_.inputs.size(); ++k) CheckCharacter(k, apart);
  std::printf(
      "\nThe example crowd's character (ikd: TickBatchJob in doubles; ozz: "
      "LocalToModelJob, IKTwoBoneJob and IKAimJob in floats, ikd's rays and "
      "dynamics step), checked by double-precision forward kinematics over "
      "%d characters:\n%-14s %18s %13s %15s %15s\n",
      characters(), "", "ankle-goal m, median", "worst", "wrist-target m",
      "unreached legs");
  for (const Side side : {Side::kIkd, Side::kOzz}) {
    const CrowdErrors& e = errors(side);
    std::printf("%-14s %18.3g %13.3g %15.3g %15d\n",
                side == Side::kIkd ? "ikd (doubles)" : "ozz (floats)",
                Median(e.ankles_to_goals), e.ankle_to_goal, e.tip_to_target,
                e.unreached_legs);
  }
  std::printf(
      "ozz's against ikd's: ankle goals %.3g m apart, pelvis drops %.3g m; "
      "more than 1 mm apart: %d knees (%d where ikd reports a branch "
      "switch), %d elbows\n",
      apart.ankle_goals, apart.drops, apart.knees, apart.knees_switched,
      apart.elbows);
  std::fflush(stdout);
  const auto within = [](const CrowdErrors& e, double bound) {
    return e.ankle_to_goal <= bound && e.tip_to_target <= bound;
  };
  const char* failure =
      !batch.ok() || failed != 0        ? "ikd's jobs failed"
      : !ozz_ran                        ? "an ozz job or dynamics step failed"
      : !within(ikd_errors_, ikd_bound) ? "ikd is off its goals"
      : !within(ozz_errors_, ozz_bound) ? "ozz is off its goals"
                                        : nullptr;
  if (failure != nullptr) {
    std::fprintf(stderr, "FAIL: the crowd's character: %s\n", failure);
  }
  return failure == nullptr;
}

void CrowdCharacters::Measure(benchmark::State& state, Side side) {
  const bool ikd = side == Side::kIkd;
  for (auto _ : state) {
    state.PauseTiming();
    ikd ? run_->Restore(core_) : ozz_.Restore();
    state.ResumeTiming();
    const bool ok =
        ikd ? server::RunBatch(core_, *run_, scratch_).ok() : ozz_.Tick();
    benchmark::DoNotOptimize(ok);
  }
  state.counters["ankle_err_m"] = errors(side).ankle_to_goal;
  state.counters["tip_err_m"] = errors(side).tip_to_target;
  state.SetItemsProcessed(state.iterations() * characters());
}

}  // namespace ik::bench
