#include "convert/compact_pose.h"

#include <array>
#include <cstdint>
#include <string>

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "convert/tick.h"
#include "ik/base/field_error.h"

namespace ik::server {
namespace {

constexpr int kQuatNumbers = 4;
constexpr int kVecNumbers = 3;

// The joint list `field` (compact_pose.joints or .translated_joints):
// indices into `rig`, ascending, each once.
absl::Status CheckJointList(
    const google::protobuf::RepeatedField<std::int32_t>& joints,
    absl::string_view field, const Rig& rig) {
  for (int k = 0; k < joints.size(); ++k) {
    const int joint = joints.Get(k);
    if (joint < 0 || joint >= rig.joint_count()) {
      return InvalidField(
          absl::StrCat(field, "[", k, "]"),
          absl::StrCat(joint, " is out of range [0, ", rig.joint_count(),
                       ") for rig ", Quoted(rig.name())));
    }
    if (k > 0 && joint <= joints.Get(k - 1)) {
      return InvalidField(
          absl::StrCat(field, "[", k, "]"),
          absl::StrCat(joint, " does not come after ", joints.Get(k - 1),
                       ": joints are given ascending, each once"));
    }
  }
  return absl::OkStatus();
}

// How many joints `given` numbers at `per_joint` a joint are for: the
// length of `joints` when it is set, else up to the rig's joint count.
absl::StatusOr<int> JointsGiven(int given, int per_joint,
                                absl::string_view field, absl::string_view unit,
                                int listed, absl::string_view list_field,
                                const Rig& rig) {
  if (listed > 0) {
    if (given != listed * per_joint) {
      return InvalidField(field, absl::StrCat(given, " ", unit, " for the ",
                                              listed, " joints of ", list_field,
                                              ": ", per_joint, " a joint"));
    }
    return listed;
  }
  if (given % per_joint != 0) {
    return InvalidField(
        field, absl::StrCat(given, " ", unit, ": not ", per_joint, " a joint"));
  }
  if (given / per_joint > rig.joint_count()) {
    return InvalidField(
        field, absl::StrCat(given / per_joint, " joints for rig ",
                            Quoted(rig.name()), " of ", rig.joint_count()));
  }
  return given / per_joint;
}

absl::Status ReadRotations(const v1::CompactPose& pose, const Rig& rig,
                           TransformCheck check, DensePose& out) {
  const bool quantized = !pose.quantized_rotations().empty();
  if (quantized && pose.rotations_size() > 0) {
    return InvalidField("compact_pose.quantized_rotations",
                        "set either rotations or quantized_rotations, not "
                        "both");
  }
  const char* field =
      quantized ? "compact_pose.quantized_rotations" : "compact_pose.rotations";
  absl::StatusOr<int> count =
      quantized
          ? JointsGiven(static_cast<int>(pose.quantized_rotations().size()),
                        kSmallestThreeBytes, field, "bytes", pose.joints_size(),
                        "compact_pose.joints", rig)
          : JointsGiven(pose.rotations_size(), kQuatNumbers, field, "numbers",
                        pose.joints_size(), "compact_pose.joints", rig);
  if (!count.ok()) return count.status();
  const auto* bytes =
      reinterpret_cast<const std::uint8_t*>(pose.quantized_rotations().data());
  for (int k = 0; k < *count; ++k) {
    const int joint = pose.joints_size() > 0 ? pose.joints(k) : k;
    Quat rotation;
    int number;
    if (quantized) {
      number = kSmallestThreeBytes * k;
      if (SmallestThreeReservedBit(bytes + number)) {
        return InvalidField(
            absl::StrCat(field, "[", number, "]"),
            absl::StrCat("joint ", joint, " (", Quoted(rig.joint(joint).name),
                         "): bit 47 of the 48 must be 0"));
      }
      const std::array<double, 4> q = UnpackSmallestThree(bytes + number);
      rotation = MakeQuat(q[0], q[1], q[2], q[3]);
    } else {
      number = kQuatNumbers * k;
      const float* q = pose.rotations().data() + number;
      rotation = MakeQuat(q[0], q[1], q[2], q[3]);
    }
    if (absl::Status status = ReadPackedRotation(
            rig, joint, rotation, field, number, check, out.locals[joint]);
        !status.ok()) {
      return status;
    }
  }
  return absl::OkStatus();
}

absl::Status ReadTranslations(const v1::CompactPose& pose, const Rig& rig,
                              TransformCheck check, DensePose& out) {
  if (pose.translated_joints_size() == 0 && pose.translations_size() > 0) {
    return InvalidField("compact_pose.translations",
                        "give the joints they are for in "
                        "compact_pose.translated_joints");
  }
  absl::StatusOr<int> count = JointsGiven(
      pose.translations_size(), kVecNumbers, "compact_pose.translations",
      "numbers", pose.translated_joints_size(),
      "compact_pose.translated_joints", rig);
  if (!count.ok()) return count.status();
  for (int k = 0; k < *count; ++k) {
    const float* t = pose.translations().data() + kVecNumbers * k;
    const Vec3 translation(t[0], t[1], t[2]);
    if (check == TransformCheck::kValidate) {
      if (absl::Status status = CheckFinite(
              translation,
              absl::StrCat("compact_pose.translations[", kVecNumbers * k, "]"));
          !status.ok()) {
        return status;
      }
    }
    out.locals[pose.translated_joints(k)].translation = translation;
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status CompactPoseFromProto(const v1::CompactPose& pose, const Rig& rig,
                                  TransformCheck check, DensePose& out) {
  absl::StatusOr<Transform> root =
      TransformFromProto(pose.root(), Transform(), "compact_pose.root");
  if (!root.ok()) return root.status();
  out.root = *root;
  out.locals.assign(rig.rest_pose().begin(), rig.rest_pose().end());
  if (absl::Status status =
          CheckJointList(pose.joints(), "compact_pose.joints", rig);
      !status.ok()) {
    return status;
  }
  if (absl::Status status = CheckJointList(
          pose.translated_joints(), "compact_pose.translated_joints", rig);
      !status.ok()) {
    return status;
  }
  if (absl::Status status = ReadRotations(pose, rig, check, out);
      !status.ok()) {
    return status;
  }
  return ReadTranslations(pose, rig, check, out);
}

void CompactPoseToProto(const DensePose& incoming, const DensePose& pose,
                        RotationEncoding encoding, v1::CompactPose& out) {
  ToProto(pose.root, out.mutable_root());
  const size_t joints = pose.locals.size();
  const int changed = ChangedRotations(incoming, pose);
  out.mutable_joints()->Reserve(changed);
  std::string* quantized = nullptr;
  if (encoding == RotationEncoding::kQuantized) {
    quantized = out.mutable_quantized_rotations();
    quantized->reserve(static_cast<size_t>(changed) * kSmallestThreeBytes);
  } else {
    out.mutable_rotations()->Reserve(kQuatNumbers * changed);
  }
  for (size_t j = 0; j < joints; ++j) {
    const Quat& rotation = pose.locals[j].rotation;
    if (SameBits(rotation, incoming.locals[j].rotation)) continue;
    out.add_joints(static_cast<int>(j));
    if (quantized != nullptr) {
      const auto bytes =
          PackSmallestThree(rotation.x, rotation.y, rotation.z, rotation.w);
      quantized->append(reinterpret_cast<const char*>(bytes.data()),
                        bytes.size());
      continue;
    }
    for (double value : {rotation.x, rotation.y, rotation.z, rotation.w}) {
      out.add_rotations(static_cast<float>(value));
    }
  }
}

void StatesToFloats(v1::StepDynamicsResponse& answer) {
  for (v1::DynamicChainResult& result : *answer.mutable_results()) {
    v1::DynamicChainState& state = *result.mutable_state();
    google::protobuf::RepeatedField<float>& floats =
        *state.mutable_packed_floats();
    floats.Reserve(state.packed_size());
    for (double value : state.packed()) {
      floats.AddAlreadyReserved(static_cast<float>(value));
    }
    state.clear_packed();
  }
}

}  // namespace ik::server
