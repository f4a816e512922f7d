// One character of a recorded tick as the page draws it: the incoming pose
// (as sent) and the corrected one (as answered), each posed by the core's
// forward kinematics, with the jobs' diagnostics placed on them.
//
// Incoming: the rig's rest pose with the request's pose written over it
// (a compact pose widened as the server widens it). The joints' local
// rotations are reported as sent (a claimed pose may hold NaN or non-unit
// ones); to place the bones, a rotation that is not finite or zero is taken
// as the rest rotation and any other one normalised (the pose check's own
// repair, less the limits), a translation or scale that is not finite (or
// a scale not positive) as the rest one.
// Corrected: the incoming pose so placed, with every translation and scale
// at rest when the pose check ran (its repair), the answer's final
// rotations written over it, and the answer's root.
// Which job moved a joint: with TickRequest.job_rotations, the jobs that
// answered a rotation for it; otherwise the jobs whose part holds it (a
// leg's joints, a goal's chain, a dynamic chain, the check's repairs) among
// the joints the final answer lists, in the order the jobs ran.
#ifndef IK_CLIENT_INSPECTOR_CHARACTER_SCENE_H_
#define IK_CLIENT_INSPECTOR_CHARACTER_SCENE_H_

#include "ik/v1/tick.pb.h"
#include "json_writer.h"
#include "rig_model.h"

namespace ik::inspector {

struct CharacterInput {
  const v1::TickCharacter* request = nullptr;
  // The answer; nullptr when the call (or the whole stream tick) failed, and
  // then `call_status` says why.
  const v1::TickCharacterResult* result = nullptr;
  v1::JobStatus call_status;
  // The character's rig; nullptr when the recording does not hold it.
  const RigModel* rig = nullptr;
  // TickRequest.job_rotations: each job's answer lists its rotations.
  bool job_rotations = false;
};

// The character as one JSON object: id, rig, statuses, both poses (world
// positions and rotations, local rotations, how far each joint is outside
// its limit), which jobs moved each joint, goals, ground contacts, pose
// check violations and dynamic chains with their colliders (world space).
void WriteCharacterJson(const CharacterInput& input, JsonWriter& json);

}  // namespace ik::inspector

#endif  // IK_CLIENT_INSPECTOR_CHARACTER_SCENE_H_
