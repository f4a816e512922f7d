#include "server/convert/dynamics.h"

#include <string>

#include "server/convert/values.h"

namespace ik::server {
namespace {

void StateToProto(const DynamicState& state, absl::string_view chain,
                  absl::string_view revision, v1::DynamicChainState& out) {
  out.set_chain(std::string(chain));
  out.set_revision(std::string(revision));
  out.mutable_positions()->Reserve(static_cast<int>(state.positions.size()));
  for (const Vec3& p : state.positions) ToProto(p, out.add_positions());
  out.mutable_previous_positions()->Reserve(
      static_cast<int>(state.previous_positions.size()));
  for (const Vec3& p : state.previous_positions) {
    ToProto(p, out.add_previous_positions());
  }
  out.mutable_rotations()->Reserve(static_cast<int>(state.rotations.size()));
  for (const Quat& q : state.rotations) ToProto(q, out.add_rotations());
  out.set_time_remainder(state.time_remainder);
  out.set_noise_time(state.noise_time);
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
                               absl::string_view revision, AnswerForm form,
                               v1::DynamicChainResult& result) {
  result.set_chain(chain.name);
  for (size_t k = 0; k < chain.joints.size(); ++k) {
    const int joint = chain.joints[k];
    if (form == AnswerForm::kFull) {
      result.add_joints(rig.joint(joint).name);
    }
    if (!chain.turns[k]) continue;  // a leaf keeps its animation
    AddJointRotation(rig, joint, rotations[k], result.mutable_rotations(),
                     form);
  }
  StateToProto(state, chain.name, revision, *result.mutable_state());
  result.set_substeps(report.substeps);
  result.set_clamped(report.clamped);
  result.set_reset(ResetToProto(report.reset));
}

}  // namespace ik::server
