#include "convert/dynamics.h"

#include <optional>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "convert/values.h"
#include "ik/base/field_error.h"
#include "ik/base/math.h"

namespace ik::server {
namespace {

constexpr int kPackedPerJoint = 10;

void StateToProto(const DynamicState& state, absl::string_view chain,
                  absl::string_view revision, AnswerForm form,
                  v1::DynamicChainState& out) {
  out.set_chain(std::string(chain));
  out.set_revision(std::string(revision));
  out.set_time_remainder(state.time_remainder);
  out.set_noise_time(state.noise_time);
  if (form != AnswerForm::kFull) {
    const size_t joints = state.positions.size();
    google::protobuf::RepeatedField<double>& packed = *out.mutable_packed();
    packed.Resize(static_cast<int>(joints) * kPackedPerJoint, 0.0);
    double* at = packed.mutable_data();
    for (size_t k = 0; k < joints; ++k) {
      const Vec3& p = state.positions[k];
      const Vec3& q = state.previous_positions[k];
      const Quat& r = state.rotations[k];
      for (double value : {p.x, p.y, p.z, q.x, q.y, q.z, r.x, r.y, r.z, r.w}) {
        *at++ = value;
      }
    }
    return;
  }
  out.mutable_positions()->Reserve(static_cast<int>(state.positions.size()));
  for (const Vec3& p : state.positions) ToProto(p, out.add_positions());
  out.mutable_previous_positions()->Reserve(
      static_cast<int>(state.previous_positions.size()));
  for (const Vec3& p : state.previous_positions) {
    ToProto(p, out.add_previous_positions());
  }
  out.mutable_rotations()->Reserve(static_cast<int>(state.rotations.size()));
  for (const Quat& q : state.rotations) ToProto(q, out.add_rotations());
}

// A state's packed numbers (double or float32, widened exactly) into
// `out`'s vectors.
template <typename Number>
void UnpackState(const google::protobuf::RepeatedField<Number>& packed,
                 DynamicState& out) {
  const int joints = packed.size() / kPackedPerJoint;
  out.positions.reserve(joints);
  out.previous_positions.reserve(joints);
  out.rotations.reserve(joints);
  for (int k = 0; k < joints; ++k) {
    const Number* v = packed.data() + kPackedPerJoint * k;
    out.positions.emplace_back(v[0], v[1], v[2]);
    out.previous_positions.emplace_back(v[3], v[4], v[5]);
    out.rotations.push_back(MakeQuat(v[6], v[7], v[8], v[9]));
  }
}

// The packed field `state` uses ("packed" or "packed_floats"), and how many
// numbers it holds; nullptr when the state is not packed.
const char* PackedField(const v1::DynamicChainState& state, int* numbers) {
  if (state.packed_size() > 0) {
    *numbers = state.packed_size();
    return "packed";
  }
  *numbers = state.packed_floats_size();
  return *numbers > 0 ? "packed_floats" : nullptr;
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
  StateFromProto(state, out);
  return out;
}

void StateFromProto(const v1::DynamicChainState& state, DynamicState& out) {
  out.time_remainder = state.time_remainder();
  out.noise_time = state.noise_time();
  out.positions.clear();
  out.previous_positions.clear();
  out.rotations.clear();
  if (state.packed_size() > 0) {
    UnpackState(state.packed(), out);
    return;
  }
  if (state.packed_floats_size() > 0) {
    UnpackState(state.packed_floats(), out);
    return;
  }
  for (const v1::Vec3& p : state.positions()) {
    out.positions.push_back(FromProto(p));
  }
  for (const v1::Vec3& p : state.previous_positions()) {
    out.previous_positions.push_back(FromProto(p));
  }
  for (const v1::Quat& q : state.rotations()) {
    out.rotations.push_back(FromProto(q));
  }
}

absl::Status CheckStateForm(const v1::DynamicChainState& state,
                            absl::string_view path) {
  int numbers = 0;
  const char* packed = PackedField(state, &numbers);
  if (packed == nullptr) return absl::OkStatus();
  if (state.positions_size() > 0 || state.previous_positions_size() > 0 ||
      state.rotations_size() > 0 ||
      (state.packed_size() > 0 && state.packed_floats_size() > 0)) {
    return InvalidField(
        FieldPath(path, packed),
        "give the state in one form: packed, packed_floats, or positions, "
        "previous_positions and rotations");
  }
  if (numbers % kPackedPerJoint != 0) {
    return InvalidField(
        FieldPath(path, packed),
        absl::StrCat(numbers,
                     " numbers: not 10 a joint (position, previous position, "
                     "rotation)"));
  }
  return absl::OkStatus();
}

absl::Status InStateForm(const absl::Status& status,
                         const v1::DynamicChainState& state,
                         absl::string_view path) {
  int numbers = 0;
  const char* packed_field = PackedField(state, &numbers);
  if (status.ok() || packed_field == nullptr) return status;
  const std::optional<std::string> field = FieldPathOf(status);
  if (!field.has_value() || !absl::StartsWith(*field, path)) return status;
  absl::string_view rest = absl::string_view(*field).substr(path.size());
  struct Part {
    absl::string_view name;
    int offset;
  };
  for (const Part& part :
       {Part{".positions", 0}, Part{".previous_positions", 3},
        Part{".rotations", 6}}) {
    if (!absl::ConsumePrefix(&rest, part.name)) continue;
    std::string packed = FieldPath(path, packed_field);
    int joint = 0;
    if (absl::ConsumePrefix(&rest, "[") && absl::ConsumeSuffix(&rest, "]") &&
        absl::SimpleAtoi(rest, &joint)) {
      absl::StrAppend(&packed, "[", kPackedPerJoint * joint + part.offset, "]");
    }
    return FieldError(status.code(), packed, FieldDescriptionOf(status));
  }
  return status;
}

void DynamicChainResultToProto(const Rig& rig, const DynamicChainBinding& chain,
                               absl::Span<const Quat> rotations,
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
  StateToProto(state, chain.name, revision, form, *result.mutable_state());
  result.set_substeps(report.substeps);
  result.set_clamped(report.clamped);
  result.set_reset(ResetToProto(report.reset));
}

}  // namespace ik::server
