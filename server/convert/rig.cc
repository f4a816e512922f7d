#include "convert/rig.h"

#include <cmath>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "convert/values.h"
#include "ik/base/field_error.h"
#include "ik/base/validate.h"

namespace ik::server {
namespace {

// RESOURCE_EXHAUSTED when the rig has more joints, chains or parts than the
// service allows.
absl::Status CheckRigSize(const v1::Rig& rig, const ServiceLimits& limits,
                          absl::string_view rig_path) {
  const struct {
    const char* field;
    int count;
    int limit;
  } counts[] = {
      {"joints", rig.joints_size(), limits.max_joints_per_rig},
      {"chains", rig.chains_size(), limits.max_chains_per_rig},
      {"legs", rig.legs_size(), limits.max_parts_per_rig},
      {"colliders", rig.colliders_size(), limits.max_parts_per_rig},
      {"dynamic_chains", rig.dynamic_chains_size(), limits.max_parts_per_rig},
  };
  for (const auto& [field, count, limit] : counts) {
    if (count > limit) {
      return FieldError(
          absl::StatusCode::kResourceExhausted, FieldPath(rig_path, field),
          absl::StrCat(count, " ", field, " exceed the limit of ", limit));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<JointLimit> LimitFromProto(const v1::JointLimit& limit,
                                          absl::string_view path) {
  JointLimit out;
  switch (limit.kind_case()) {
    case v1::JointLimit::KIND_NOT_SET:
      break;
    case v1::JointLimit::kBallSocket: {
      const v1::BallSocketLimit& ball = limit.ball_socket();
      out.kind = JointLimit::Kind::kBallSocket;
      out.axis_from_child = !ball.has_axis();
      if (ball.has_axis()) out.ball_socket.axis = FromProto(ball.axis());
      out.ball_socket.swing_max = ball.swing_max();
      out.ball_socket.has_twist = ball.has_twist();
      out.ball_socket.twist = {ball.twist().min(), ball.twist().max()};
      break;
    }
    case v1::JointLimit::kHinge: {
      const v1::HingeLimit& hinge = limit.hinge();
      if (!hinge.has_axis()) {
        return InvalidField(absl::StrCat(path, ".hinge.axis"), "required");
      }
      out.kind = JointLimit::Kind::kHinge;
      out.hinge.axis = FromProto(hinge.axis());
      out.hinge.range = {hinge.range().min(), hinge.range().max()};
      break;
    }
  }
  return out;
}

// The parent of joint `index`: by index (an earlier joint) or by the name of
// an earlier joint.
absl::StatusOr<int> ParentFromProto(const v1::Rig& rig, int index,
                                    const std::string& path) {
  const v1::Joint& joint = rig.joints(index);
  switch (joint.parent_ref_case()) {
    case v1::Joint::PARENT_REF_NOT_SET:
      return kNoParent;
    case v1::Joint::kParentIndex:
      if (joint.parent_index() < 0 || joint.parent_index() >= index) {
        return InvalidField(
            absl::StrCat(path, ".parent_index"),
            absl::StrCat(joint.parent_index(),
                         " is not the index of an earlier joint (parents "
                         "come before children)"));
      }
      return joint.parent_index();
    case v1::Joint::kParent:
      for (int p = 0; p < index; ++p) {
        if (rig.joints(p).name() == joint.parent()) return p;
      }
      return FieldError(
          absl::StatusCode::kNotFound, absl::StrCat(path, ".parent"),
          absl::StrCat("no earlier joint is called ", Quoted(joint.parent()),
                       " (parents come before children)"));
  }
  return kNoParent;
}

// Joint `index` with raw rest values (Rig::Create validates and normalises
// them).
absl::StatusOr<JointDefinition> JointFromProto(const v1::Rig& rig, int index,
                                               absl::string_view rig_path) {
  const v1::Joint& joint = rig.joints(index);
  const std::string path =
      FieldPath(rig_path, absl::StrCat("joints[", index, "]"));
  JointDefinition out;
  out.name = joint.name();
  absl::StatusOr<int> parent = ParentFromProto(rig, index, path);
  if (!parent.ok()) return parent.status();
  out.parent = *parent;
  if (joint.rest().has_translation()) {
    out.rest.translation = FromProto(joint.rest().translation());
  }
  if (joint.rest().has_rotation()) {
    out.rest.rotation = FromProto(joint.rest().rotation());
  }
  if (joint.rest().has_scale())
    out.rest.scale = FromProto(joint.rest().scale());
  absl::StatusOr<JointLimit> limit =
      LimitFromProto(joint.limit(), absl::StrCat(path, ".limit"));
  if (!limit.ok()) return limit.status();
  out.limit = *limit;
  return out;
}

absl::Status ChainSettingsFromProto(const v1::Chain& chain,
                                    absl::string_view path,
                                    ChainDefinition& definition) {
  switch (chain.swivel_space()) {
    case v1::SWIVEL_SPACE_START_PARENT:
      definition.swivel_space = SwivelSpace::kStartParent;
      break;
    case v1::SWIVEL_SPACE_WORLD:
      definition.swivel_space = SwivelSpace::kWorld;
      break;
    default:
      return InvalidField(absl::StrCat(path, ".swivel_space"),
                          absl::StrCat("unknown space ",
                                       static_cast<int>(chain.swivel_space())));
  }
  if (chain.has_flip_warning_angle()) {
    definition.flip_warning_angle = chain.flip_warning_angle();
  }
  for (const v1::PreferredRotation& rotation : chain.preferred_pose()) {
    definition.preferred_pose.push_back(
        {rotation.joint(), rotation.has_rotation()
                               ? FromProto(rotation.rotation())
                               : Quat(1.0, 0.0, 0.0, 0.0)});
  }
  const v1::TorqueSettings& torque = chain.torque();
  if (torque.has_gain()) definition.torque.gain = torque.gain();
  if (torque.has_damping()) definition.torque.damping = torque.damping();
  if (torque.has_max_step()) definition.torque.max_step = torque.max_step();
  if (torque.has_root_stiffness()) {
    definition.torque.root_stiffness = torque.root_stiffness();
  }
  for (const v1::TorqueJointSettings& joint : torque.joints()) {
    TorqueJointDefinition& out = definition.torque_joints.emplace_back();
    out.joint = joint.joint();
    if (joint.has_stiffness()) out.settings.stiffness = joint.stiffness();
    if (joint.has_elasticity()) out.settings.elasticity = joint.elasticity();
    if (joint.has_comfort()) out.settings.comfort = joint.comfort();
    out.has_preferred_rotation = joint.has_preferred_rotation();
    if (out.has_preferred_rotation) {
      out.settings.preferred_rotation = FromProto(joint.preferred_rotation());
    }
  }
  return absl::OkStatus();
}

// Chain `index` with its solver settings.
absl::StatusOr<ChainDefinition> ChainFromProto(const v1::Rig& rig, int index,
                                               absl::string_view rig_path) {
  const v1::Chain& chain = rig.chains(index);
  const std::string path =
      FieldPath(rig_path, absl::StrCat("chains[", index, "]"));
  ChainDefinition out;
  out.name = chain.name();
  out.root = chain.root();
  out.tip = chain.tip();
  absl::StatusOr<SolverKind> solver =
      SolverFromProto(chain.solver(), absl::StrCat(path, ".solver"));
  if (!solver.ok()) return solver.status();
  out.solver = *solver;
  if (chain.max_iterations() < 0) {
    return InvalidField(absl::StrCat(path, ".max_iterations"),
                        absl::StrCat(chain.max_iterations(), " is negative"));
  }
  if (chain.max_iterations() > 0) out.max_iterations = chain.max_iterations();
  if (!(chain.tolerance() >= 0.0) || !IsFinite(chain.tolerance())) {
    return InvalidField(
        absl::StrCat(path, ".tolerance"),
        absl::StrFormat("%g is not a finite distance >= 0", chain.tolerance()));
  }
  if (chain.tolerance() > 0.0) out.tolerance = chain.tolerance();
  if (absl::Status status = ChainSettingsFromProto(chain, path, out);
      !status.ok()) {
    return status;
  }
  return out;
}

LegDefinition LegFromProto(const v1::Leg& leg) {
  LegDefinition out;
  out.name = leg.name();
  out.hip = leg.hip();
  out.knee = leg.knee();
  out.ankle = leg.ankle();
  out.toe = leg.toe();
  LegSettings& settings = out.settings;
  if (leg.has_ankle_height()) settings.ankle_height = leg.ankle_height();
  if (leg.has_toe_forward()) settings.toe_forward = leg.toe_forward();
  if (leg.has_ray_above_hip()) settings.ray_above_hip = leg.ray_above_hip();
  if (leg.has_ray_below_ankle()) {
    settings.ray_below_ankle = leg.ray_below_ankle();
  }
  if (leg.has_max_pelvis_drop()) {
    settings.max_pelvis_drop = leg.max_pelvis_drop();
  }
  if (leg.has_max_foot_tilt()) settings.max_foot_tilt = leg.max_foot_tilt();
  return out;
}

absl::StatusOr<ColliderDefinition> ColliderFromProto(
    const v1::Collider& collider, absl::string_view path) {
  ColliderDefinition out;
  out.name = collider.name();
  out.joint = collider.joint();
  switch (collider.shape_case()) {
    case v1::Collider::kSphere:
      out.shape = SphereCollider(FromProto(collider.sphere().center()),
                                 collider.sphere().radius());
      out.sphere = true;
      break;
    case v1::Collider::kCapsule:
      out.shape = CapsuleCollider(FromProto(collider.capsule().start()),
                                  FromProto(collider.capsule().end()),
                                  collider.capsule().radius());
      break;
    case v1::Collider::SHAPE_NOT_SET:
      return InvalidField(absl::StrCat(path, ".sphere"),
                          "set sphere or capsule");
  }
  return out;
}

DynamicChainDefinition DynamicChainFromProto(const v1::DynamicChain& chain) {
  DynamicChainDefinition out;
  out.name = chain.name();
  out.root = chain.root();
  DynamicChain& settings = out.settings;
  if (chain.has_drag()) settings.drag = chain.drag();
  if (chain.has_gravity()) settings.gravity = FromProto(chain.gravity());
  if (chain.has_stiffness()) settings.stiffness = chain.stiffness();
  if (chain.has_rotation_blend()) {
    settings.rotation_blend = chain.rotation_blend();
  }
  if (chain.has_remove_twist()) settings.remove_twist = chain.remove_twist();
  if (chain.has_wind()) settings.wind = WindFromProto(chain.wind());
  if (chain.has_substep()) settings.substep = chain.substep();
  if (chain.has_max_substeps()) settings.max_substeps = chain.max_substeps();
  if (chain.has_follow_the_leader()) {
    settings.follow_the_leader = chain.follow_the_leader();
  }
  if (chain.has_teleport_distance()) {
    settings.teleport_distance = chain.teleport_distance();
  }
  out.radius = chain.radius();
  for (const v1::DynamicJointSettings& joint : chain.joints()) {
    DynamicJointSettings& settings_out = out.joints.emplace_back();
    settings_out.joint = joint.joint();
    if (joint.has_radius()) settings_out.radius = joint.radius();
    DynamicJointOverrides& overrides = settings_out.overrides;
    if (joint.has_drag()) overrides.drag = joint.drag();
    if (joint.has_gravity()) overrides.gravity = FromProto(joint.gravity());
    if (joint.has_stiffness()) overrides.stiffness = joint.stiffness();
    if (joint.has_rotation_blend()) {
      overrides.rotation_blend = joint.rotation_blend();
    }
    if (joint.has_remove_twist()) overrides.remove_twist = joint.remove_twist();
    if (joint.has_wind_scale()) overrides.wind_scale = joint.wind_scale();
  }
  out.colliders.assign(chain.colliders().begin(), chain.colliders().end());
  return out;
}

absl::Status PartsFromProto(const v1::Rig& rig,
                            CharacterDefinition& definition) {
  for (const v1::Leg& leg : rig.legs()) {
    definition.legs.push_back(LegFromProto(leg));
  }
  for (int i = 0; i < rig.colliders_size(); ++i) {
    absl::StatusOr<ColliderDefinition> collider =
        ColliderFromProto(rig.colliders(i), absl::StrCat("colliders[", i, "]"));
    if (!collider.ok()) return collider.status();
    definition.colliders.push_back(*std::move(collider));
  }
  for (int i = 0; i < rig.dynamic_chains_size(); ++i) {
    const v1::DynamicChain& chain = rig.dynamic_chains(i);
    // The core takes +infinity as "never"; over the wire every number is
    // finite.
    if (chain.has_teleport_distance() &&
        !std::isfinite(chain.teleport_distance())) {
      return InvalidField(
          absl::StrCat("dynamic_chains[", i, "].teleport_distance"),
          absl::StrCat("must be finite and > 0 m, got ",
                       chain.teleport_distance()));
    }
    definition.dynamic_chains.push_back(DynamicChainFromProto(chain));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<SolverKind> SolverFromProto(v1::Solver solver,
                                           absl::string_view path) {
  switch (solver) {
    case v1::SOLVER_UNSPECIFIED:
    case v1::SOLVER_AUTO:
      return SolverKind::kAuto;
    case v1::SOLVER_TWO_BONE:
      return SolverKind::kTwoBone;
    case v1::SOLVER_FABRIK:
      return SolverKind::kFabrik;
    case v1::SOLVER_CCD:
      return SolverKind::kCcd;
    case v1::SOLVER_TORQUE:
      return SolverKind::kTorque;
    default:
      return InvalidField(
          path, absl::StrCat("unknown solver ", static_cast<int>(solver)));
  }
}

v1::Solver SolverToProto(SolverKind solver) {
  switch (solver) {
    case SolverKind::kAuto:
      return v1::SOLVER_AUTO;
    case SolverKind::kTwoBone:
      return v1::SOLVER_TWO_BONE;
    case SolverKind::kFabrik:
      return v1::SOLVER_FABRIK;
    case SolverKind::kCcd:
      return v1::SOLVER_CCD;
    case SolverKind::kTorque:
      return v1::SOLVER_TORQUE;
  }
  return v1::SOLVER_UNSPECIFIED;
}

WindSettings WindFromProto(const v1::Wind& wind) {
  WindSettings out;
  out.strength = wind.strength();
  if (wind.has_direction()) out.direction = FromProto(wind.direction());
  out.turbulence = wind.turbulence();
  if (wind.gust_frequency() != 0.0) out.gust_frequency = wind.gust_frequency();
  out.seed = wind.seed();
  return out;
}

absl::StatusOr<Character> RigFromProto(const v1::Rig& rig,
                                       const ServiceLimits& limits,
                                       absl::string_view path) {
  if (absl::Status status = CheckRigSize(rig, limits, path); !status.ok()) {
    return status;
  }
  CharacterDefinition character;
  RigDefinition& definition = character.rig;
  definition.name = rig.name();
  if (rig.has_forward()) definition.forward = FromProto(rig.forward());
  definition.joints.reserve(rig.joints_size());
  for (int i = 0; i < rig.joints_size(); ++i) {
    absl::StatusOr<JointDefinition> joint = JointFromProto(rig, i, path);
    if (!joint.ok()) return joint.status();
    definition.joints.push_back(*std::move(joint));
  }
  definition.chains.reserve(rig.chains_size());
  for (int i = 0; i < rig.chains_size(); ++i) {
    absl::StatusOr<ChainDefinition> chain = ChainFromProto(rig, i, path);
    if (!chain.ok()) return chain.status();
    definition.chains.push_back(*std::move(chain));
  }
  if (absl::Status status = PartsFromProto(rig, character); !status.ok()) {
    return Rooted(status, path);
  }
  absl::StatusOr<Character> created = Character::Create(std::move(character));
  if (!created.ok()) return Rooted(created.status(), path);
  return created;
}

v1::Rig NormalizedRig(const v1::Rig& rig, const Rig& validated) {
  v1::Rig out = rig;
  for (int i = 0; i < out.joints_size(); ++i) {
    v1::Transform* rest = out.mutable_joints(i)->mutable_rest();
    if (rest->has_rotation()) {
      ToProto(validated.joint(i).rest.rotation, rest->mutable_rotation());
    }
  }
  return out;
}

}  // namespace ik::server
