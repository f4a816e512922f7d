#include "rig_model.h"

#include <climits>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "convert/rig.h"
#include "ik/character/character.h"

namespace ik::inspector {
namespace {

constexpr double kDegrees = 180.0 / kPi;

// The limit as the core holds it (axes normalised, the bone's axis filled
// in), with a one-line description for the page.
void WriteLimitJson(const JointLimit& limit, JsonWriter& json) {
  json.BeginObject();
  if (limit.kind == JointLimit::Kind::kBallSocket) {
    const BallSocketLimit& ball = limit.ball_socket;
    json.Field("kind", "ball_socket");
    json.Key("axis");
    json.Xyz(ball.axis.x, ball.axis.y, ball.axis.z);
    json.FieldNumber("swing_max", ball.swing_max);
    std::string text = absl::StrFormat(
        "ball-and-socket: swing up to %.1f deg about (%.3f, %.3f, %.3f)",
        ball.swing_max * kDegrees, ball.axis.x, ball.axis.y, ball.axis.z);
    if (ball.has_twist) {
      json.Key("twist");
      json.BeginArray();
      json.Number(ball.twist.min);
      json.Number(ball.twist.max);
      json.EndArray();
      absl::StrAppendFormat(&text, ", twist [%.1f, %.1f] deg",
                            ball.twist.min * kDegrees,
                            ball.twist.max * kDegrees);
    }
    json.Field("text", text);
  } else if (limit.kind == JointLimit::Kind::kHinge) {
    const HingeLimit& hinge = limit.hinge;
    json.Field("kind", "hinge");
    json.Key("axis");
    json.Xyz(hinge.axis.x, hinge.axis.y, hinge.axis.z);
    json.Key("range");
    json.BeginArray();
    json.Number(hinge.range.min);
    json.Number(hinge.range.max);
    json.EndArray();
    json.Field("text",
               absl::StrFormat(
                   "hinge about (%.3f, %.3f, %.3f), [%.1f, %.1f] deg",
                   hinge.axis.x, hinge.axis.y, hinge.axis.z,
                   hinge.range.min * kDegrees, hinge.range.max * kDegrees));
  } else {
    json.Field("kind", "none");
    json.Field("text", "none (turns freely)");
  }
  json.EndObject();
}

void WriteIndices(absl::string_view key, const std::vector<int>& indices,
                  JsonWriter& json) {
  json.Key(key);
  json.BeginArray();
  for (const int i : indices) json.Int(i);
  json.EndArray();
}

}  // namespace

absl::StatusOr<RigModel> BuildRigModel(const v1::RecordedRig& recorded) {
  // Read as ikd reads a registered rig (server/convert/rig.h), with no size
  // limit: the recording's server may have allowed larger rigs.
  server::ServiceLimits unlimited;
  unlimited.max_joints_per_rig = INT_MAX;
  unlimited.max_chains_per_rig = INT_MAX;
  unlimited.max_parts_per_rig = INT_MAX;
  absl::StatusOr<Character> character =
      server::RigFromProto(recorded.rig(), unlimited, "");
  if (!character.ok()) {
    return absl::Status(
        character.status().code(),
        absl::StrCat("rig '", recorded.rig().name(), "' (", recorded.revision(),
                     "): ", character.status().message()));
  }
  RigModel model(character->rig);
  model.revision = recorded.revision();
  for (const Leg& leg : character->legs) {
    RigModel::Part& part = model.legs.emplace_back();
    part.name = leg.name;
    part.joints = {leg.hip, leg.knee, leg.ankle};
    if (leg.toe >= 0) part.joints.push_back(leg.toe);
  }
  for (const AttachedCollider& collider : character->colliders) {
    RigModel::Collider& out = model.colliders.emplace_back();
    out.name = collider.name;
    out.joint = collider.joint;
    out.capsule = collider.shape.start != collider.shape.end;
    out.start = collider.shape.start;
    out.end = collider.shape.end;
    out.radius = collider.shape.radius;
  }
  for (const DynamicChainBinding& chain : character->dynamic_chains) {
    model.dynamic_chains.push_back({chain.name, chain.joints, chain.colliders});
  }
  return model;
}

std::vector<int> GoalChainJoints(const RigModel& model,
                                 const v1::ChainGoal& goal) {
  if (goal.has_ad_hoc_chain()) {
    ChainDefinition definition;
    definition.name = "ad hoc";
    definition.root = goal.ad_hoc_chain().root();
    definition.tip = goal.ad_hoc_chain().tip();
    absl::StatusOr<Chain> chain = model.rig.MakeChain(definition);
    return chain.ok() ? chain->joints : std::vector<int>();
  }
  const Chain* chain = model.rig.FindChain(goal.chain());
  return chain != nullptr ? chain->joints : std::vector<int>();
}

void WriteRigJson(const RigModel& model, JsonWriter& json) {
  const Rig& rig = model.rig;
  json.BeginObject();
  json.Field("name", rig.name());
  json.Field("revision", model.revision);
  json.Key("joints");
  json.BeginArray();
  for (const JointDefinition& joint : rig.joints()) {
    json.BeginObject();
    json.Field("name", joint.name);
    json.FieldInt("parent", joint.parent);
    json.Key("limit");
    WriteLimitJson(joint.limit, json);
    json.EndObject();
  }
  json.EndArray();
  json.Key("chains");
  json.BeginArray();
  for (const Chain& chain : rig.chains()) {
    json.BeginObject();
    json.Field("name", chain.name);
    WriteIndices("joints", chain.joints, json);
    json.EndObject();
  }
  json.EndArray();
  json.Key("legs");
  json.BeginArray();
  for (const RigModel::Part& leg : model.legs) {
    json.BeginObject();
    json.Field("name", leg.name);
    WriteIndices("joints", leg.joints, json);
    json.EndObject();
  }
  json.EndArray();
  json.Key("dynamic_chains");
  json.BeginArray();
  for (const RigModel::DynamicChain& chain : model.dynamic_chains) {
    json.BeginObject();
    json.Field("name", chain.name);
    WriteIndices("joints", chain.joints, json);
    WriteIndices("colliders", chain.colliders, json);
    json.EndObject();
  }
  json.EndArray();
  json.EndObject();
}

}  // namespace ik::inspector
