#include "server/convert/dynamics.h"

#include <string>

#include "server/convert/values.h"

namespace ik::server {
namespace {

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

}  // namespace

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

void DynamicChainResultToProto(const Rig& rig, const DynamicChainBinding& chain,
                               const std::vector<Quat>& rotations,
                               const DynamicState& state,
                               const DynamicsReport& report,
                               absl::string_view revision, AnswerNames names,
                               v1::DynamicChainResult& result) {
  result.set_chain(chain.name);
  for (size_t k = 0; k < chain.joints.size(); ++k) {
    const int joint = chain.joints[k];
    if (names == AnswerNames::kWithNames) {
      result.add_joints(rig.joint(joint).name);
    }
    if (!chain.turns[k]) continue;  // a leaf keeps its animation
    AddJointRotation(rig, joint, rotations[k], result.mutable_rotations(),
                     names);
  }
  *result.mutable_state() = StateToProto(state, chain.name, revision);
  result.set_substeps(report.substeps);
  result.set_clamped(report.clamped);
  result.set_reset(ResetToProto(report.reset));
}

}  // namespace ik::server
