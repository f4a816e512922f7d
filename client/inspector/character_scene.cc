#include "character_scene.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "character_pose.h"

namespace ik::inspector {
namespace {

void WriteWireVec3(const v1::Vec3& v, JsonWriter& json) {
  json.Xyz(v.x(), v.y(), v.z());
}

void WriteStatus(absl::string_view key, const v1::JobStatus& status,
                 JsonWriter& json) {
  json.Key(key);
  json.BeginObject();
  json.FieldInt("code", status.code());
  json.Field("code_name", absl::StatusCodeToString(
                              static_cast<absl::StatusCode>(status.code())));
  json.Field("message", status.message());
  json.Field("field", status.field());
  json.EndObject();
}

// The character's status and those of the jobs it asked for; whether any
// of them failed.
bool WriteStatuses(const CharacterInput& input, JsonWriter& json) {
  const v1::TickCharacter& request = *input.request;
  if (input.result == nullptr) {
    WriteStatus("status", input.call_status, json);
    return true;
  }
  const v1::TickCharacterResult& result = *input.result;
  WriteStatus("status", result.status(), json);
  bool failed = result.status().code() != 0;
  json.Key("jobs");
  json.BeginObject();
  const auto job = [&](bool asked, absl::string_view name,
                       const v1::JobStatus& status) {
    if (!asked || result.status().code() != 0) return;
    WriteStatus(name, status, json);
    failed |= status.code() != 0;
  };
  job(request.has_check(), "check", result.check_status());
  job(request.has_ground(), "ground", result.ground_status());
  job(request.goals_size() > 0, "goals", result.goals_status());
  job(request.has_dynamics(), "dynamics", result.dynamics_status());
  json.EndObject();
  return failed;
}

std::string GoalLabel(const v1::ChainGoal& goal) {
  if (!goal.has_ad_hoc_chain()) return goal.chain();
  return absl::StrCat(goal.ad_hoc_chain().root(), "..",
                      goal.ad_hoc_chain().tip());
}

// The indices of a job answer's rotations (TickRequest.job_rotations).
template <typename Rotations>
std::vector<bool> RotatedJoints(const Rotations& rotations, int count) {
  std::vector<bool> rotated(count, false);
  for (const v1::JointRotation& rotation : rotations) {
    if (rotation.index() >= 0 && rotation.index() < count) {
      rotated[rotation.index()] = true;
    }
  }
  return rotated;
}

// Which jobs moved each joint (see character_scene.h), in the order the
// jobs ran.
std::vector<std::vector<std::string>> MovedBy(const CharacterInput& input) {
  const RigModel& model = *input.rig;
  const v1::TickCharacter& request = *input.request;
  const v1::TickCharacterResult& result = *input.result;
  const int count = model.rig.joint_count();
  std::vector<bool> answered(count, false);
  for (const int j : AnsweredJoints(result)) {
    if (j >= 0 && j < count) answered[j] = true;
  }
  std::vector<std::vector<std::string>> moved(count);
  // Credits `label` with the joints of `part` that `by` (the job's own
  // rotations, or the answered joints) holds.
  const auto credit = [&](const std::string& label,
                          const std::vector<int>& part,
                          const std::vector<bool>& by) {
    for (const int j : part) {
      if (j < 0 || j >= count || !by[j]) continue;
      if (std::find(moved[j].begin(), moved[j].end(), label) ==
          moved[j].end()) {
        moved[j].push_back(label);
      }
    }
  };
  std::vector<int> all(count);
  for (int j = 0; j < count; ++j) all[j] = j;
  const bool exact = input.job_rotations;
  credit("pose check (repair)", all,
         RotatedJoints(result.check().rotations(), count));
  if (request.has_ground() && result.ground_status().code() == 0) {
    const std::vector<bool> by =
        exact ? RotatedJoints(result.ground().rotations(), count) : answered;
    for (const RigModel::Part& leg : model.legs) {
      credit("ground " + leg.name, leg.joints, by);
    }
  }
  for (int i = 0; i < request.goals_size() && result.goals_status().code() == 0;
       ++i) {
    const bool own = exact && i < result.goals_size();
    credit("goal " + GoalLabel(request.goals(i)),
           GoalChainJoints(model, request.goals(i)),
           own ? RotatedJoints(result.goals(i).rotations(), count) : answered);
  }
  if (request.has_dynamics() && result.dynamics_status().code() == 0) {
    for (const v1::DynamicChainResult& chain : result.dynamics().results()) {
      for (const RigModel::DynamicChain& part : model.dynamic_chains) {
        if (part.name != chain.chain()) continue;
        credit("dynamics " + part.name, part.joints,
               exact ? RotatedJoints(chain.rotations(), count) : answered);
      }
    }
  }
  return moved;
}

void WriteMovedBy(const CharacterInput& input, JsonWriter& json) {
  json.Key("moved_by");
  json.BeginArray();
  for (const std::vector<std::string>& jobs : MovedBy(input)) {
    json.BeginArray();
    for (const std::string& job : jobs) json.String(job);
    json.EndArray();
  }
  json.EndArray();
  json.FieldBool("moved_by_exact", input.job_rotations);
}

void WriteGoals(const CharacterInput& input, JsonWriter& json) {
  const v1::TickCharacter& request = *input.request;
  json.Key("goals");
  json.BeginArray();
  for (int i = 0; i < request.goals_size(); ++i) {
    const v1::ChainGoal& goal = request.goals(i);
    json.BeginObject();
    json.Field("chain", GoalLabel(goal));
    json.Key("target");
    WriteWireVec3(goal.target(), json);
    if (goal.has_pole()) {
      json.Key("pole");
      WriteWireVec3(goal.pole(), json);
    }
    if (input.rig != nullptr) {
      json.Key("joints");
      json.BeginArray();
      for (const int j : GoalChainJoints(*input.rig, goal)) json.Int(j);
      json.EndArray();
    }
    const bool answered =
        input.result != nullptr && i < input.result->goals_size();
    if (answered) {
      const v1::GoalResult& result = input.result->goals(i);
      json.FieldBool("reached", result.reached());
      json.FieldNumber("residual", result.residual());
      json.Key("effector");
      WriteWireVec3(result.effector(), json);
      json.FieldInt("iterations", result.iterations());
      json.Field("stop_reason", v1::StopReason_Name(result.stop_reason()));
      json.Field("solver", v1::Solver_Name(result.solver()));
      json.Key("limited_joints");
      json.BeginArray();
      for (const std::string& name : result.limited_joints()) json.String(name);
      json.EndArray();
      json.FieldBool("near_singularity", result.near_singularity());
      json.FieldBool("branch_switch", result.branch_switch());
    }
    json.EndObject();
  }
  json.EndArray();
}

void WriteGround(const v1::GroundFeetResponse& ground, JsonWriter& json) {
  json.Key("ground");
  json.BeginObject();
  json.FieldNumber("pelvis_drop", ground.pelvis_drop());
  json.FieldNumber("pelvis_drop_target", ground.pelvis_drop_target());
  json.FieldBool("pelvis_drop_clamped", ground.pelvis_drop_clamped());
  json.Key("root_offset");
  WriteWireVec3(ground.root_offset(), json);
  json.Key("feet");
  json.BeginArray();
  for (const v1::FootResult& foot : ground.feet()) {
    json.BeginObject();
    json.Field("leg", foot.leg());
    json.FieldBool("ground_found", foot.ground_found());
    json.FieldBool("grounded", foot.grounded());
    json.FieldBool("reached", foot.reached());
    json.Key("contact_point");
    WriteWireVec3(foot.contact_point(), json);
    json.Key("contact_normal");
    WriteWireVec3(foot.contact_normal(), json);
    json.Key("goal");
    WriteWireVec3(foot.goal(), json);
    json.FieldNumber("moved", foot.moved());
    json.FieldNumber("tilt", foot.tilt());
    json.FieldBool("tilt_clamped", foot.tilt_clamped());
    json.EndObject();
  }
  json.EndArray();
  json.EndObject();
}

void WriteViolations(const CharacterInput& input, JsonWriter& json) {
  json.Key("violations");
  json.BeginArray();
  if (input.result != nullptr) {
    for (const v1::PoseViolation& violation :
         input.result->check().violations()) {
      json.BeginObject();
      json.FieldInt("joint", violation.joint());
      const int j = violation.joint();
      if (input.rig != nullptr && j >= 0 && j < input.rig->rig.joint_count()) {
        json.Field("name", input.rig->rig.joint(j).name);
      }
      json.Field("kind",
                 absl::StripPrefix(v1::PoseViolationKind_Name(violation.kind()),
                                   "POSE_VIOLATION_"));
      json.FieldNumber("amount", violation.amount());
      json.EndObject();
    }
  }
  json.EndArray();
}

// The dynamic chains the character stepped (or asked to step), their
// joints and their colliders placed on `pose`.
void WriteDynamics(const CharacterInput& input, const PosedCharacter& pose,
                   JsonWriter& json) {
  const v1::StepDynamicsRequest& asked = input.request->dynamics();
  json.Key("dynamics");
  json.BeginArray();
  for (const RigModel::DynamicChain& chain : input.rig->dynamic_chains) {
    const auto& names = asked.chains();
    if (!input.request->has_dynamics() ||
        (!names.empty() &&
         std::find(names.begin(), names.end(), chain.name) == names.end())) {
      continue;
    }
    json.BeginObject();
    json.Field("chain", chain.name);
    json.Key("joints");
    json.BeginArray();
    for (const int j : chain.joints) json.Int(j);
    json.EndArray();
    if (input.result != nullptr) {
      for (const v1::DynamicChainResult& result :
           input.result->dynamics().results()) {
        if (result.chain() != chain.name) continue;
        json.FieldInt("substeps", result.substeps());
        json.FieldBool("clamped", result.clamped());
        json.Field("reset", v1::DynamicsReset_Name(result.reset()));
      }
    }
    json.Key("colliders");
    json.BeginArray();
    for (const int c : chain.colliders) {
      const RigModel::Collider& collider = input.rig->colliders[c];
      const Transform& world = pose.world[collider.joint];
      json.BeginObject();
      json.Field("name", collider.name);
      json.FieldInt("joint", collider.joint);
      json.Field("shape", collider.capsule ? "capsule" : "sphere");
      json.Key("start");
      WriteVec3(TransformPoint(world, collider.start), json);
      json.Key("end");
      WriteVec3(TransformPoint(world, collider.end), json);
      json.FieldNumber("radius", collider.radius);
      json.EndObject();
    }
    json.EndArray();
    json.EndObject();
  }
  json.EndArray();
}

bool HasUnreachedGoal(const CharacterInput& input) {
  if (input.result == nullptr) return false;
  const auto& goals = input.result->goals();
  return std::any_of(
      goals.begin(), goals.end(),
      [](const v1::GoalResult& goal) { return !goal.reached(); });
}

// Both poses, and what is placed on them (which needs the rig).
void WritePoses(const CharacterInput& input, JsonWriter& json) {
  const Rig& rig = input.rig->rig;
  const PosedCharacter incoming = IncomingPose(*input.request, rig);
  json.Key("incoming");
  WritePoseJson(incoming, rig, json);
  const bool answered =
      input.result != nullptr && input.result->status().code() == 0;
  json.Key("corrected");
  if (!answered) {
    json.Null();
    WriteDynamics(input, incoming, json);
    return;
  }
  const PosedCharacter corrected =
      CorrectedPose(*input.request, *input.result, incoming, rig);
  WritePoseJson(corrected, rig, json);
  WriteMovedBy(input, json);
  WriteDynamics(input, corrected, json);
}

}  // namespace

void WriteCharacterJson(const CharacterInput& input, JsonWriter& json) {
  const v1::TickCharacter& request = *input.request;
  json.BeginObject();
  json.Field("id", request.id());
  json.Field("rig_name", request.rig());
  json.Field("revision", input.rig != nullptr ? input.rig->revision : "");
  if (request.baseline() != 0) {
    json.Field("note",
               "sent on a baseline this recording does not hold: joints it "
               "did not send are shown at rest");
  }
  const bool failed = WriteStatuses(input, json);
  json.FieldBool("failed", failed);
  const bool violation =
      input.result != nullptr && input.result->check().violations_size() > 0;
  json.FieldBool("has_violation", violation);
  json.FieldBool("has_unreached", HasUnreachedGoal(input));
  if (input.rig != nullptr) WritePoses(input, json);
  WriteGoals(input, json);
  if (input.result != nullptr && input.result->has_ground()) {
    WriteGround(input.result->ground(), json);
  }
  WriteViolations(input, json);
  json.EndObject();
}

}  // namespace ik::inspector
