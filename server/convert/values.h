// Wire <-> core for the value types every area of the API shares
// (ik/v1/values.proto): vectors, rotations, transforms, sparse poses, and the
// joint rotations of answers. The leaf of the proto<->core edge: every other
// converter includes it, it includes none of them.
//
// Validating conversions return errors that start with the field path they
// are given (ik/base/field_error.h); the plain ones (FromProto, ToProto) only
// copy numbers.
#ifndef IK_SERVER_CONVERT_VALUES_H_
#define IK_SERVER_CONVERT_VALUES_H_

#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "ik/base/math.h"
#include "ik/rig/rig.h"
#include "ik/v1/values.pb.h"

namespace ik::server {

// Wire <-> core for plain values (no validation). Quaternions travel as named
// x, y, z, w; GLM's constructor order (w, x, y, z) never meets wire data.
Vec3 FromProto(const v1::Vec3& v);
Quat FromProto(const v1::Quat& q);
v1::Vec3 ToProto(const Vec3& v);
v1::Quat ToProto(const Quat& q);
// Into a message of the answer (on its arena): no temporary messages.
void ToProto(const Vec3& v, v1::Vec3* out);
void ToProto(const Quat& q, v1::Quat* out);
void ToProto(const Transform& transform, v1::Transform* out);

// OK when every component of `v` is finite, else "<path>: not finite (...)".
absl::Status CheckFinite(const Vec3& v, absl::string_view path);

// A transform with unset sub-fields taken from `defaults`, validated (finite,
// unit rotation normalised, positive scale); errors name `path`.
absl::StatusOr<Transform> TransformFromProto(const v1::Transform& transform,
                                             const Transform& defaults,
                                             absl::string_view path);

// A pose as dense local transforms (the rig's rest pose plus the request's
// overrides) and the root transform. Errors name "pose....".
struct DensePose {
  Transform root;
  std::vector<Transform> locals;
};
absl::StatusOr<DensePose> PoseFromProto(const v1::Pose& pose, const Rig& rig);
// The same into `out`, reusing its storage.
absl::Status PoseFromProto(const v1::Pose& pose, const Rig& rig,
                           DensePose& out);
// With kRaw, the joints' transforms are taken as sent, unchecked (NaN,
// non-unit rotations, any bone): a claimed pose for the pose check. The
// joint references and the root are checked either way.
enum class TransformCheck { kValidate, kRaw };
absl::Status PoseFromProto(const v1::Pose& pose, const Rig& rig,
                           TransformCheck check, DensePose& out);

// One rotation of a packed pose, joint `joint`'s, into `local`: read as
// ValidateTransform reads a JointPose's rotation, to the bit (finite, unit
// within kUnitQuatTolerance, then normalised), or as sent with kRaw. Errors
// name the rotation's first number, "<field>[<number>]: joint 2 ('spine'):
// not a unit quaternion (norm 1.2)".
absl::Status ReadPackedRotation(const Rig& rig, int joint, Quat rotation,
                                absl::string_view field, int number,
                                TransformCheck check, Transform& local);

// How a job's answer is written. The single RPCs answer in full: joints by
// name and index, the job's revision and rotations. A tick leaves out what
// the character's result already says -- joint names and the job answer's
// revision -- and, as kTick, the job's rotations too (the character's final
// pose carries them).
enum class AnswerForm { kFull, kTickWithRotations, kTick };

// Appends one joint's local rotation to an answer as `form` says: its name
// (kFull only), index and rotation; nothing with kTick.
void AddJointRotation(
    const Rig& rig, int joint, const Quat& rotation,
    google::protobuf::RepeatedPtrField<v1::JointRotation>* rotations,
    AnswerForm form = AnswerForm::kFull);

}  // namespace ik::server

#endif  // IK_SERVER_CONVERT_VALUES_H_
