#include "convert/values.h"

#include <string>

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "ik/base/field_error.h"
#include "ik/base/validate.h"

namespace ik::server {

Vec3 FromProto(const v1::Vec3& v) { return Vec3(v.x(), v.y(), v.z()); }

Quat FromProto(const v1::Quat& q) {
  return MakeQuat(q.x(), q.y(), q.z(), q.w());
}

v1::Vec3 ToProto(const Vec3& v) {
  v1::Vec3 out;
  ToProto(v, &out);
  return out;
}

v1::Quat ToProto(const Quat& q) {
  v1::Quat out;
  ToProto(q, &out);
  return out;
}

void ToProto(const Vec3& v, v1::Vec3* out) {
  out->set_x(v.x);
  out->set_y(v.y);
  out->set_z(v.z);
}

void ToProto(const Quat& q, v1::Quat* out) {
  out->set_x(q.x);
  out->set_y(q.y);
  out->set_z(q.z);
  out->set_w(q.w);
}

void ToProto(const Transform& transform, v1::Transform* out) {
  ToProto(transform.translation, out->mutable_translation());
  ToProto(transform.rotation, out->mutable_rotation());
  ToProto(transform.scale, out->mutable_scale());
}

absl::Status CheckFinite(const Vec3& v, absl::string_view path) {
  if (IsFinite(v)) return absl::OkStatus();
  return InvalidField(
      path, absl::StrFormat("not finite (%g, %g, %g)", v.x, v.y, v.z));
}

absl::StatusOr<Transform> TransformFromProto(const v1::Transform& transform,
                                             const Transform& defaults,
                                             absl::string_view path) {
  Transform out = defaults;
  if (transform.has_translation()) {
    out.translation = FromProto(transform.translation());
  }
  if (transform.has_rotation()) out.rotation = FromProto(transform.rotation());
  if (transform.has_scale()) out.scale = FromProto(transform.scale());
  return ValidateTransform(out, path);
}

absl::StatusOr<DensePose> PoseFromProto(const v1::Pose& pose, const Rig& rig) {
  DensePose out;
  if (absl::Status status = PoseFromProto(pose, rig, out); !status.ok()) {
    return status;
  }
  return out;
}

absl::Status PoseFromProto(const v1::Pose& pose, const Rig& rig,
                           DensePose& out) {
  return PoseFromProto(pose, rig, TransformCheck::kValidate, out);
}

absl::Status ReadPackedRotation(const Rig& rig, int joint, Quat rotation,
                                absl::string_view field, int number,
                                TransformCheck check, Transform& local) {
  if (check == TransformCheck::kValidate) {
    // As ValidateTransform reads a JointPose's rotation, to the bit.
    const double norm = Norm(rotation);
    if (!(std::abs(norm - 1.0) <= kUnitQuatTolerance)) {
      return InvalidField(
          absl::StrCat(field, "[", number, "]"),
          absl::StrCat(
              "joint ", joint, " (", Quoted(rig.joint(joint).name), "): ",
              IsFinite(rotation)
                  ? absl::StrCat("not a unit quaternion (norm ", norm, ")")
                  : std::string("not finite")));
    }
    rotation = Unit(rotation, norm);
  }
  local.rotation = rotation;
  return absl::OkStatus();
}

namespace {

// pose.rotations (x, y, z, w per joint, from joint 0) into `out`'s first
// locals, normalised as ValidateTransform normalises a JointPose's rotation
// unless `check` is kRaw; returns how many joints it sets.
absl::StatusOr<int> ReadPackedRotations(const v1::Pose& pose, const Rig& rig,
                                        TransformCheck check, DensePose& out) {
  const int packed = pose.rotations_size();
  if (packed % 4 != 0) {
    return InvalidField(
        "pose.rotations",
        absl::StrCat(packed, " numbers: not 4 per joint (x, y, z, w)"));
  }
  const int packed_joints = packed / 4;
  if (packed_joints > rig.joint_count()) {
    return InvalidField(
        "pose.rotations",
        absl::StrCat(packed_joints, " rotations for a rig of ",
                     rig.joint_count(), " joints (", Quoted(rig.name()), ")"));
  }
  for (int j = 0; j < packed_joints; ++j) {
    const double* q = pose.rotations().data() + 4 * j;
    if (absl::Status status =
            ReadPackedRotation(rig, j, MakeQuat(q[0], q[1], q[2], q[3]),
                               "pose.rotations", 4 * j, check, out.locals[j]);
        !status.ok()) {
      return status;
    }
  }
  return packed_joints;
}

// pose.joints[i]'s path (built for errors only: poses are read for every
// joint of every call).
std::string JointPath(int i) { return absl::StrCat("pose.joints[", i, "]"); }

// The index in `rig` of the joint pose.joints[i] (`joint`) names.
absl::StatusOr<int> JointIndex(const v1::JointPose& joint, int i,
                               const Rig& rig) {
  switch (joint.joint_case()) {
    case v1::JointPose::JOINT_NOT_SET:
      return InvalidField(JointPath(i), "set either name or index");
    case v1::JointPose::kName: {
      const int index = rig.FindJoint(joint.name());
      if (index == kNoParent) {
        return FieldError(absl::StatusCode::kNotFound,
                          absl::StrCat(JointPath(i), ".name"),
                          absl::StrCat("rig ", Quoted(rig.name()),
                                       " has no joint ", Quoted(joint.name())));
      }
      return index;
    }
    case v1::JointPose::kIndex: {
      const int index = joint.index();
      if (index < 0 || index >= rig.joint_count()) {
        return InvalidField(absl::StrCat(JointPath(i), ".index"),
                            absl::StrCat(index, " is out of range [0, ",
                                         rig.joint_count(), ")"));
      }
      return index;
    }
  }
  return kNoParent;
}

}  // namespace

absl::Status PoseFromProto(const v1::Pose& pose, const Rig& rig,
                           TransformCheck check, DensePose& out) {
  absl::StatusOr<Transform> root =
      TransformFromProto(pose.root(), Transform(), "pose.root");
  if (!root.ok()) return root.status();
  out.root = *root;
  out.locals.assign(rig.rest_pose().begin(), rig.rest_pose().end());
  absl::StatusOr<int> packed = ReadPackedRotations(pose, rig, check, out);
  if (!packed.ok()) return packed.status();
  const int packed_joints = *packed;
  // Which of pose.joints set each joint.
  absl::InlinedVector<int, 64> set_by(rig.joint_count(), -1);
  for (int i = 0; i < pose.joints_size(); ++i) {
    const v1::JointPose& joint = pose.joints(i);
    absl::StatusOr<int> found = JointIndex(joint, i, rig);
    if (!found.ok()) return found.status();
    const int index = *found;
    if (set_by[index] >= 0) {
      return InvalidField(
          JointPath(i),
          absl::StrCat("joint '", rig.joint(index).name,
                       "' is already set by pose.joints[", set_by[index], "]"));
    }
    set_by[index] = i;
    const bool packed_rotation = index < packed_joints;
    if (packed_rotation && joint.local().has_rotation()) {
      return InvalidField(
          absl::StrCat(JointPath(i), ".local.rotation"),
          absl::StrCat("joint ", index, " (", Quoted(rig.joint(index).name),
                       ") already has its rotation from pose.rotations[",
                       4 * index, "]"));
    }
    if (check == TransformCheck::kRaw) {
      Transform& local = out.locals[index];
      const v1::Transform& in = joint.local();
      if (in.has_translation()) local.translation = FromProto(in.translation());
      if (in.has_rotation()) local.rotation = FromProto(in.rotation());
      if (in.has_scale()) local.scale = FromProto(in.scale());
      continue;
    }
    absl::StatusOr<Transform> local =
        TransformFromProto(joint.local(), rig.rest_pose()[index], "local");
    if (!local.ok()) return Rooted(local.status(), JointPath(i));
    const Quat rotation = out.locals[index].rotation;
    out.locals[index] = *local;
    if (packed_rotation) out.locals[index].rotation = rotation;
  }
  return absl::OkStatus();
}

void AddJointRotation(
    const Rig& rig, int joint, const Quat& rotation,
    google::protobuf::RepeatedPtrField<v1::JointRotation>* rotations,
    AnswerForm form) {
  if (form == AnswerForm::kTick) return;
  v1::JointRotation* out = rotations->Add();
  if (form == AnswerForm::kFull) out->set_name(rig.joint(joint).name);
  out->set_index(joint);
  ToProto(rotation, out->mutable_rotation());
}

}  // namespace ik::server
