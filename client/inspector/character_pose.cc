#include "character_pose.h"

#include <algorithm>
#include <cmath>

#include "ik/base/joint_limits.h"
#include "ik/compact_pose.h"
#include "ik/rig/forward_kinematics.h"

namespace ik::inspector {
namespace {

Vec3 FromWire(const v1::Vec3& v) { return Vec3(v.x(), v.y(), v.z()); }

// `transform`'s set fields over `out` (unset ones keep their value, as a
// JointPose's unset fields keep the rest value).
Transform FromWire(const v1::Transform& transform, Transform out) {
  if (transform.has_translation()) {
    out.translation = FromWire(transform.translation());
  }
  if (transform.has_rotation()) {
    const v1::Quat& q = transform.rotation();
    out.rotation = MakeQuat(q.x(), q.y(), q.z(), q.w());
  }
  if (transform.has_scale()) out.scale = FromWire(transform.scale());
  return out;
}

// `pose`'s rotations and joint overrides written over `locals` (one per rig
// joint), raw. Joints the rig does not have are skipped: the server refused
// such characters, and their status says so.
void ApplyPose(const v1::Pose& pose, const Rig& rig,
               std::vector<Transform>& locals) {
  const int packed = std::min(pose.rotations_size() / 4, rig.joint_count());
  for (int j = 0; j < packed; ++j) {
    const double* q = pose.rotations().data() + 4 * j;
    locals[j].rotation = MakeQuat(q[0], q[1], q[2], q[3]);
  }
  for (const v1::JointPose& joint : pose.joints()) {
    const int index =
        joint.has_name() ? rig.FindJoint(joint.name()) : joint.index();
    if (index < 0 || index >= rig.joint_count()) continue;
    locals[index] = FromWire(joint.local(), locals[index]);
  }
}

// `given` made drawable: a rotation that is not finite or is zero becomes
// `fallback`'s, any other is normalised; a translation or scale that is
// not finite (a scale not positive) becomes `fallback`'s.
Transform Drawable(const Transform& given, const Transform& fallback) {
  Transform out = given;
  const double norm = std::sqrt(glm::dot(given.rotation, given.rotation));
  if (!IsFinite(given.rotation) || !(norm > 1e-12)) {
    out.rotation = fallback.rotation;
  } else {
    out.rotation = given.rotation / norm;
  }
  if (!IsFinite(given.translation)) out.translation = fallback.translation;
  const Vec3& s = given.scale;
  if (!IsFinite(s) || !(s.x > 0.0 && s.y > 0.0 && s.z > 0.0)) {
    out.scale = fallback.scale;
  }
  return out;
}

// Fills pose.locals and pose.world from pose.given and pose.root.
void Place(const Rig& rig, PosedCharacter& pose) {
  const int count = rig.joint_count();
  pose.root = Drawable(pose.root, Transform());
  pose.locals.resize(count);
  for (int j = 0; j < count; ++j) {
    pose.locals[j] = Drawable(pose.given[j], rig.rest_pose()[j]);
  }
  pose.world.assign(count, Transform());
  LocalToModelJob forward;
  forward.parents = rig.parents();
  forward.locals = pose.locals;
  forward.root = pose.root;
  forward.models = absl::MakeSpan(pose.world);
  // Cannot fail: one transform per joint of a rig Create validated.
  forward.Run().IgnoreError();
}

}  // namespace

PosedCharacter IncomingPose(const v1::TickCharacter& request, const Rig& rig) {
  const v1::Pose pose = request.has_compact_pose()
                            ? WidenedPose(request.compact_pose())
                            : request.pose();
  PosedCharacter out;
  out.root = FromWire(pose.root(), Transform());
  out.given.assign(rig.rest_pose().begin(), rig.rest_pose().end());
  ApplyPose(pose, rig, out.given);
  Place(rig, out);
  return out;
}

PosedCharacter CorrectedPose(const v1::TickCharacter& request,
                             const v1::TickCharacterResult& result,
                             const PosedCharacter& incoming, const Rig& rig) {
  PosedCharacter out;
  out.given = incoming.locals;
  if (request.has_check()) {
    for (int j = 0; j < rig.joint_count(); ++j) {
      out.given[j].translation = rig.rest_pose()[j].translation;
      out.given[j].scale = rig.rest_pose()[j].scale;
    }
  }
  v1::Pose final_pose;
  if (result.has_compact_pose()) {
    final_pose = WidenedPose(result.compact_pose());
  } else {
    *final_pose.mutable_root() = result.root();
    const int count =
        std::min(result.joints_size(), result.rotations_size() / 4);
    for (int k = 0; k < count; ++k) {
      v1::JointPose* joint = final_pose.add_joints();
      joint->set_index(result.joints(k));
      v1::Quat* q = joint->mutable_local()->mutable_rotation();
      q->set_x(result.rotations(4 * k));
      q->set_y(result.rotations(4 * k + 1));
      q->set_z(result.rotations(4 * k + 2));
      q->set_w(result.rotations(4 * k + 3));
    }
  }
  ApplyPose(final_pose, rig, out.given);
  out.root = final_pose.has_root() ? FromWire(final_pose.root(), Transform())
                                   : incoming.root;
  Place(rig, out);
  return out;
}

std::vector<int> AnsweredJoints(const v1::TickCharacterResult& result) {
  if (!result.has_compact_pose()) {
    return {result.joints().begin(), result.joints().end()};
  }
  const v1::CompactPose& pose = result.compact_pose();
  if (pose.joints_size() > 0)
    return {pose.joints().begin(), pose.joints().end()};
  // Rotations by position, from joint 0.
  const int count = pose.quantized_rotations().empty()
                        ? pose.rotations_size() / 4
                        : static_cast<int>(pose.quantized_rotations().size() /
                                           kSmallestThreeBytes);
  std::vector<int> joints(count);
  for (int j = 0; j < count; ++j) joints[j] = j;
  return joints;
}

void WritePoseJson(const PosedCharacter& pose, const Rig& rig,
                   JsonWriter& json) {
  json.BeginObject();
  json.Key("root");
  json.BeginObject();
  json.Key("translation");
  WriteVec3(pose.root.translation, json);
  json.Key("rotation");
  WriteQuat(pose.root.rotation, json);
  json.EndObject();
  const auto flat = [&](absl::string_view key, auto write_joint) {
    json.Key(key);
    json.BeginArray();
    for (int j = 0; j < rig.joint_count(); ++j) write_joint(j);
    json.EndArray();
  };
  flat("positions", [&](int j) {
    const Vec3& p = pose.world[j].translation;
    for (const double v : {p.x, p.y, p.z}) json.Number(v);
  });
  flat("rotations", [&](int j) {
    const Quat& q = pose.world[j].rotation;
    for (const double v : {q.x, q.y, q.z, q.w}) json.Number(v);
  });
  flat("locals", [&](int j) {
    const Quat& q = pose.given[j].rotation;
    for (const double v : {q.x, q.y, q.z, q.w}) json.Number(v);
  });
  flat("outside_limit", [&](int j) {
    const JointDefinition& joint = rig.joint(j);
    const Quat& local = pose.locals[j].rotation;
    const LimitedRotation limited =
        ApplyJointLimit(joint.limit, joint.rest.rotation, local);
    const double cosine =
        std::min(1.0, std::abs(glm::dot(limited.rotation, local)));
    json.Number(limited.clamped ? 2.0 * std::acos(cosine) : 0.0);
  });
  json.EndObject();
}

}  // namespace ik::inspector
