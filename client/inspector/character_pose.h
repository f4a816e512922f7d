// A tick character's two poses for the inspector: the incoming one as the
// request sent it and the corrected one as the answer left it, each posed
// by the core's forward kinematics (ik/rig/forward_kinematics.h). The rules
// that turn wire poses into drawable ones are in character_scene.h.
//
//   PosedCharacter incoming = IncomingPose(request, rig);
//   PosedCharacter corrected = CorrectedPose(request, result, incoming, rig);
#ifndef IK_CLIENT_INSPECTOR_CHARACTER_POSE_H_
#define IK_CLIENT_INSPECTOR_CHARACTER_POSE_H_

#include <vector>

#include "ik/base/math.h"
#include "ik/rig/rig.h"
#include "ik/v1/tick.pb.h"
#include "json_writer.h"

namespace ik::inspector {

struct PosedCharacter {
  // Model space -> world space.
  Transform root;
  // Local transforms as given (may be NaN or non-unit: a claimed pose).
  std::vector<Transform> given;
  // The same made drawable (see character_scene.h), and their world
  // transforms under `root`.
  std::vector<Transform> locals;
  std::vector<Transform> world;
};

// The request's pose over the rig's rest pose.
PosedCharacter IncomingPose(const v1::TickCharacter& request, const Rig& rig);

// The answer's final pose over `incoming` (the pose check's repair puts
// translations and scales at rest). `result` must be OK.
PosedCharacter CorrectedPose(const v1::TickCharacter& request,
                             const v1::TickCharacterResult& result,
                             const PosedCharacter& incoming, const Rig& rig);

// The joints the final answer lists (those a job or the repair changed).
std::vector<int> AnsweredJoints(const v1::TickCharacterResult& result);

// The pose as JSON: root, then per joint (flat arrays, joint-major) world
// positions (3), world rotations (4, x y z w), local rotations as given (4)
// and the angle, radians, by which the drawable local rotation lies outside
// the joint's limit (0 within it).
void WritePoseJson(const PosedCharacter& pose, const Rig& rig,
                   JsonWriter& json);

inline void WriteVec3(const Vec3& v, JsonWriter& json) {
  json.Xyz(v.x, v.y, v.z);
}
inline void WriteQuat(const Quat& q, JsonWriter& json) {
  json.Xyzw(q.x, q.y, q.z, q.w);
}

}  // namespace ik::inspector

#endif  // IK_CLIENT_INSPECTOR_CHARACTER_POSE_H_
