#include "server/convert_parts.h"

#include "absl/strings/str_cat.h"
#include "ik/field_error.h"
#include "server/convert.h"

namespace ik::server {
namespace {

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

}  // namespace

absl::Status PartsFromProto(const v1::Rig& rig, RigDefinition& definition) {
  if (rig.has_forward()) definition.forward = FromProto(rig.forward());
  for (const v1::Leg& leg : rig.legs()) {
    definition.legs.push_back(LegFromProto(leg));
  }
  for (int i = 0; i < rig.colliders_size(); ++i) {
    absl::StatusOr<ColliderDefinition> collider =
        ColliderFromProto(rig.colliders(i), absl::StrCat("colliders[", i, "]"));
    if (!collider.ok()) return collider.status();
    definition.colliders.push_back(*std::move(collider));
  }
  for (const v1::DynamicChain& chain : rig.dynamic_chains()) {
    definition.dynamic_chains.push_back(DynamicChainFromProto(chain));
  }
  return absl::OkStatus();
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

WindSettings WindFromProto(const v1::Wind& wind) {
  WindSettings out;
  out.strength = wind.strength();
  if (wind.has_direction()) out.direction = FromProto(wind.direction());
  out.turbulence = wind.turbulence();
  if (wind.gust_frequency() != 0.0) out.gust_frequency = wind.gust_frequency();
  out.seed = wind.seed();
  return out;
}

DynamicState StateFromProto(const v1::DynamicChainState& state) {
  DynamicState out;
  for (const v1::Vec3& p : state.positions()) {
    out.positions.push_back(FromProto(p));
  }
  for (const v1::Vec3& p : state.previous_positions()) {
    out.previous_positions.push_back(FromProto(p));
  }
  for (const v1::Quat& q : state.rotations()) {
    out.rotations.push_back(FromProto(q));
  }
  out.time_remainder = state.time_remainder();
  out.noise_time = state.noise_time();
  return out;
}

v1::DynamicChainState StateToProto(const DynamicState& state,
                                   absl::string_view chain,
                                   absl::string_view revision) {
  v1::DynamicChainState out;
  out.set_chain(std::string(chain));
  out.set_revision(std::string(revision));
  for (const Vec3& p : state.positions) *out.add_positions() = ToProto(p);
  for (const Vec3& p : state.previous_positions) {
    *out.add_previous_positions() = ToProto(p);
  }
  for (const Quat& q : state.rotations) *out.add_rotations() = ToProto(q);
  out.set_time_remainder(state.time_remainder);
  out.set_noise_time(state.noise_time);
  return out;
}

v1::DynamicsReset ResetToProto(DynamicsReset reset) {
  switch (reset) {
    case DynamicsReset::kNone:
      return v1::DYNAMICS_RESET_NONE;
    case DynamicsReset::kEmptyState:
      return v1::DYNAMICS_RESET_EMPTY_STATE;
    case DynamicsReset::kRequested:
      return v1::DYNAMICS_RESET_REQUESTED;
    case DynamicsReset::kTeleport:
      return v1::DYNAMICS_RESET_TELEPORT;
  }
  return v1::DYNAMICS_RESET_NONE;
}

}  // namespace ik::server
