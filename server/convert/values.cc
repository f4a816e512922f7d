#include "server/convert/values.h"

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
  out.set_x(v.x);
  out.set_y(v.y);
  out.set_z(v.z);
  return out;
}

v1::Quat ToProto(const Quat& q) {
  v1::Quat out;
  out.set_x(q.x);
  out.set_y(q.y);
  out.set_z(q.z);
  out.set_w(q.w);
  return out;
}

v1::Transform ToProto(const Transform& transform) {
  v1::Transform out;
  *out.mutable_translation() = ToProto(transform.translation);
  *out.mutable_rotation() = ToProto(transform.rotation);
  *out.mutable_scale() = ToProto(transform.scale);
  return out;
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

absl::Status PoseFromProto(const v1::Pose& pose, const Rig& rig,
                           TransformCheck check, DensePose& out) {
  absl::StatusOr<Transform> root =
      TransformFromProto(pose.root(), Transform(), "pose.root");
  if (!root.ok()) return root.status();
  out.root = *root;
  out.locals.assign(rig.rest_pose().begin(), rig.rest_pose().end());
  // Which of pose.joints set each joint (paths are built for errors only:
  // this runs for every joint of every pose).
  absl::InlinedVector<int, 64> set_by(rig.joint_count(), -1);
  const auto path = [](int i) { return absl::StrCat("pose.joints[", i, "]"); };
  for (int i = 0; i < pose.joints_size(); ++i) {
    const v1::JointPose& joint = pose.joints(i);
    int index = kNoParent;
    switch (joint.joint_case()) {
      case v1::JointPose::JOINT_NOT_SET:
        return InvalidField(path(i), "set either name or index");
      case v1::JointPose::kName:
        index = rig.FindJoint(joint.name());
        if (index == kNoParent) {
          return FieldError(
              absl::StatusCode::kNotFound, absl::StrCat(path(i), ".name"),
              absl::StrCat("rig ", Quoted(rig.name()), " has no joint ",
                           Quoted(joint.name())));
        }
        break;
      case v1::JointPose::kIndex:
        index = joint.index();
        if (index < 0 || index >= rig.joint_count()) {
          return InvalidField(absl::StrCat(path(i), ".index"),
                              absl::StrCat(index, " is out of range [0, ",
                                           rig.joint_count(), ")"));
        }
        break;
    }
    if (set_by[index] >= 0) {
      return InvalidField(
          path(i),
          absl::StrCat("joint '", rig.joint(index).name,
                       "' is already set by pose.joints[", set_by[index], "]"));
    }
    set_by[index] = i;
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
    if (!local.ok()) return Rooted(local.status(), path(i));
    out.locals[index] = *local;
  }
  return absl::OkStatus();
}

void AddJointRotation(
    const Rig& rig, int joint, const Quat& rotation,
    google::protobuf::RepeatedPtrField<v1::JointRotation>* rotations,
    AnswerNames names) {
  v1::JointRotation* out = rotations->Add();
  if (names == AnswerNames::kWithNames) out->set_name(rig.joint(joint).name);
  out->set_index(joint);
  *out->mutable_rotation() = ToProto(rotation);
}

}  // namespace ik::server
