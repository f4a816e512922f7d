#include "single_call.h"

#include <map>
#include <string>

namespace ik::inspector {
namespace {

// The final pose a job's rotations leave, by joint index: later rotations
// of a joint replace earlier ones. Indices below 0 are skipped (a recording
// is a file from anywhere).
using FinalRotations = std::map<int, v1::Quat>;

void Take(const google::protobuf::RepeatedPtrField<v1::JointRotation>& from,
          FinalRotations& rotations) {
  for (const v1::JointRotation& rotation : from) {
    if (rotation.index() >= 0)
      rotations[rotation.index()] = rotation.rotation();
  }
}

void WriteFinalPose(const FinalRotations& rotations,
                    v1::TickCharacterResult& result) {
  for (const auto& [index, q] : rotations) {
    result.add_joints(index);
    for (const double v : {q.x(), q.y(), q.z(), q.w()}) result.add_rotations(v);
  }
}

template <typename Request>
bool ParseRequest(const v1::RecordedCall& call, Request& single,
                  v1::TickCharacter& character) {
  if (!single.ParseFromString(call.request())) return false;
  character.set_id(call.method());
  character.set_rig(single.rig());
  character.set_revision(single.revision());
  *character.mutable_pose() = single.pose();
  single.clear_rig();
  single.clear_revision();
  single.clear_pose();
  return true;
}

}  // namespace

bool IsSingleCall(const std::string& method) {
  return method == "SolveChain" || method == "GroundFeet" ||
         method == "StepDynamics";
}

bool SingleCallAsTick(const v1::RecordedCall& call, v1::TickRequest& request,
                      v1::TickResponse& response) {
  request.Clear();
  response.Clear();
  request.set_job_rotations(true);
  v1::TickCharacter& character = *request.add_characters();
  v1::TickCharacterResult& result = *response.add_characters();
  FinalRotations rotations;
  // A tick's answer always carries the final root: the incoming one, which
  // only grounding moves.
  const auto final_root = [&] {
    *result.mutable_root() = character.pose().root();
  };
  if (call.method() == "SolveChain") {
    v1::SolveChainRequest single;
    v1::SolveChainResponse answer;
    if (!ParseRequest(call, single, character)) return false;
    final_root();
    *character.mutable_goals() = single.goals();
    answer.ParseFromString(call.response());
    result.set_revision(answer.revision());
    for (const v1::GoalResult& goal : answer.results()) {
      Take(goal.rotations(), rotations);
    }
    *result.mutable_goals() = answer.results();
  } else if (call.method() == "GroundFeet") {
    v1::GroundFeetRequest single;
    v1::GroundFeetResponse answer;
    if (!ParseRequest(call, single, character)) return false;
    final_root();
    *character.mutable_ground() = single;
    answer.ParseFromString(call.response());
    result.set_revision(answer.revision());
    Take(answer.rotations(), rotations);
    // The root lowered as the answer says.
    const v1::Vec3& offset = answer.root_offset();
    v1::Vec3& at = *result.mutable_root()->mutable_translation();
    at.set_x(at.x() + offset.x());
    at.set_y(at.y() + offset.y());
    at.set_z(at.z() + offset.z());
    *result.mutable_ground() = answer;
  } else if (call.method() == "StepDynamics") {
    v1::StepDynamicsRequest single;
    v1::StepDynamicsResponse answer;
    if (!ParseRequest(call, single, character)) return false;
    final_root();
    *character.mutable_dynamics() = single;
    answer.ParseFromString(call.response());
    result.set_revision(answer.revision());
    for (const v1::DynamicChainResult& chain : answer.results()) {
      Take(chain.rotations(), rotations);
    }
    *result.mutable_dynamics() = answer;
  } else {
    return false;
  }
  result.set_id(character.id());
  WriteFinalPose(rotations, result);
  return true;
}

}  // namespace ik::inspector
