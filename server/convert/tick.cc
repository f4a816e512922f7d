#include "convert/tick.h"

#include <optional>
#include <string>
#include <utility>

#include "ik/base/field_error.h"

namespace ik::server {
namespace {

v1::PoseViolationKind KindToProto(PoseViolation::Kind kind) {
  switch (kind) {
    case PoseViolation::Kind::kRotationNotFinite:
      return v1::POSE_VIOLATION_ROTATION_NOT_FINITE;
    case PoseViolation::Kind::kRotationNotUnit:
      return v1::POSE_VIOLATION_ROTATION_NOT_UNIT;
    case PoseViolation::Kind::kOutsideLimit:
      return v1::POSE_VIOLATION_OUTSIDE_LIMIT;
    case PoseViolation::Kind::kTranslation:
      return v1::POSE_VIOLATION_TRANSLATION;
    case PoseViolation::Kind::kScale:
      return v1::POSE_VIOLATION_SCALE;
  }
  return v1::POSE_VIOLATION_KIND_UNSPECIFIED;
}

}  // namespace

void StatusToProto(const absl::Status& status, v1::JobStatus& out) {
  out.set_code(static_cast<int>(status.code()));
  out.set_message(std::string(status.message()));
  if (std::optional<std::string> field = FieldPathOf(status)) {
    out.set_field(*std::move(field));
  }
}

std::vector<int> RepairedRotations(absl::Span<const PoseViolation> violations) {
  std::vector<int> joints;
  for (const PoseViolation& violation : violations) {
    if (violation.kind == PoseViolation::Kind::kTranslation ||
        violation.kind == PoseViolation::Kind::kScale) {
      continue;
    }
    // Violations come joint by joint: a joint's repeat is the last one.
    if (joints.empty() || joints.back() != violation.joint) {
      joints.push_back(violation.joint);
    }
  }
  return joints;
}

void PoseCheckToProto(const Rig& rig,
                      absl::Span<const PoseViolation> violations,
                      const DensePose& repaired, v1::PoseCheckResult& answer) {
  for (const PoseViolation& violation : violations) {
    v1::PoseViolation* out = answer.add_violations();
    out->set_joint(violation.joint);
    out->set_kind(KindToProto(violation.kind));
    out->set_amount(violation.amount);
  }
  for (const int j : RepairedRotations(violations)) {
    AddJointRotation(rig, j, repaired.locals[j].rotation,
                     answer.mutable_rotations(),
                     AnswerForm::kTickWithRotations);
  }
}

int ChangedRotations(const DensePose& incoming, const DensePose& pose) {
  int changed = 0;
  for (size_t j = 0; j < pose.locals.size(); ++j) {
    changed += !SameBits(pose.locals[j].rotation, incoming.locals[j].rotation);
  }
  return changed;
}

void TickPoseToProto(const DensePose& incoming, const DensePose& pose,
                     v1::TickCharacterResult& out) {
  ToProto(pose.root, out.mutable_root());
  const size_t joints = pose.locals.size();
  const int changed = ChangedRotations(incoming, pose);
  out.mutable_joints()->Reserve(changed);
  out.mutable_rotations()->Reserve(4 * changed);
  for (size_t j = 0; j < joints; ++j) {
    const Quat& rotation = pose.locals[j].rotation;
    if (SameBits(rotation, incoming.locals[j].rotation)) continue;
    out.add_joints(static_cast<int>(j));
    for (double value : {rotation.x, rotation.y, rotation.z, rotation.w}) {
      out.add_rotations(value);
    }
  }
}

}  // namespace ik::server
