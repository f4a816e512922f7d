#include "rig_model.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace ik::inspector {
namespace {

Vec3 FromProto(const v1::Vec3& v) { return Vec3(v.x(), v.y(), v.z()); }

// The limit as the server reads it (server/convert/rig.cc): a
// ball-and-socket limit without an axis takes the bone's direction.
JointLimit LimitFromProto(const v1::JointLimit& limit) {
  JointLimit out;
  if (limit.has_ball_socket()) {
    const v1::BallSocketLimit& ball = limit.ball_socket();
    out.kind = JointLimit::Kind::kBallSocket;
    out.axis_from_child = !ball.has_axis();
    if (ball.has_axis()) out.ball_socket.axis = FromProto(ball.axis());
    out.ball_socket.swing_max = ball.swing_max();
    out.ball_socket.has_twist = ball.has_twist();
    out.ball_socket.twist = {ball.twist().min(), ball.twist().max()};
  } else if (limit.has_hinge()) {
    out.kind = JointLimit::Kind::kHinge;
    out.hinge.axis = FromProto(limit.hinge().axis());
    out.hinge.range = {limit.hinge().range().min(),
                       limit.hinge().range().max()};
  }
  return out;
}

// Joint `index`'s parent: by index, or by the name of an earlier joint
// (-2, which Rig::Create refuses, when there is none).
int ParentIndex(const v1::Rig& rig, int index) {
  const v1::Joint& joint = rig.joints(index);
  if (joint.has_parent_index()) return joint.parent_index();
  if (!joint.has_parent()) return kNoParent;
  for (int p = 0; p < index; ++p) {
    if (rig.joints(p).name() == joint.parent()) return p;
  }
  return -2;
}

RigDefinition DefinitionFromProto(const v1::Rig& rig) {
  RigDefinition definition;
  definition.name = rig.name();
  for (int i = 0; i < rig.joints_size(); ++i) {
    const v1::Joint& joint = rig.joints(i);
    JointDefinition out;
    out.name = joint.name();
    out.parent = ParentIndex(rig, i);
    const v1::Transform& rest = joint.rest();
    if (rest.has_translation()) {
      out.rest.translation = FromProto(rest.translation());
    }
    if (rest.has_rotation()) {
      const v1::Quat& q = rest.rotation();
      out.rest.rotation = MakeQuat(q.x(), q.y(), q.z(), q.w());
    }
    if (rest.has_scale()) out.rest.scale = FromProto(rest.scale());
    out.limit = LimitFromProto(joint.limit());
    definition.joints.push_back(std::move(out));
  }
  for (const v1::Chain& chain : rig.chains()) {
    ChainDefinition out;
    out.name = chain.name();
    out.root = chain.root();
    out.tip = chain.tip();
    definition.chains.push_back(std::move(out));
  }
  if (rig.has_forward()) definition.forward = FromProto(rig.forward());
  return definition;
}

// Resolves the legs, colliders and dynamic chains by name (names the rig
// does not have are left out: the server refused such rigs).
void ResolveParts(const v1::Rig& proto, RigModel& model) {
  const Rig& rig = model.rig;
  for (const v1::Leg& leg : proto.legs()) {
    RigModel::Part part{leg.name(), {}};
    for (const std::string& name :
         {leg.hip(), leg.knee(), leg.ankle(), leg.toe()}) {
      if (const int j = rig.FindJoint(name); j != kNoParent) {
        part.joints.push_back(j);
      }
    }
    model.legs.push_back(std::move(part));
  }
  for (const v1::Collider& collider : proto.colliders()) {
    RigModel::Collider out;
    out.name = collider.name();
    out.joint = rig.FindJoint(collider.joint());
    out.capsule = collider.has_capsule();
    out.start = FromProto(out.capsule ? collider.capsule().start()
                                      : collider.sphere().center());
    out.end = out.capsule ? FromProto(collider.capsule().end()) : out.start;
    out.radius =
        out.capsule ? collider.capsule().radius() : collider.sphere().radius();
    if (out.joint != kNoParent) model.colliders.push_back(std::move(out));
  }
  for (const v1::DynamicChain& chain : proto.dynamic_chains()) {
    RigModel::DynamicChain out;
    out.name = chain.name();
    const int root = rig.FindJoint(chain.root());
    // Parents come before children: one pass finds every descendant.
    std::vector<bool> inside(rig.joint_count(), false);
    for (int j = root; root != kNoParent && j < rig.joint_count(); ++j) {
      const int parent = rig.parents()[j];
      inside[j] = j == root || (parent != kNoParent && inside[parent]);
      if (inside[j]) out.joints.push_back(j);
    }
    for (const std::string& name : chain.colliders()) {
      for (size_t c = 0; c < model.colliders.size(); ++c) {
        if (model.colliders[c].name == name) out.colliders.push_back(c);
      }
    }
    model.dynamic_chains.push_back(std::move(out));
  }
}

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
  absl::StatusOr<Rig> rig = Rig::Create(DefinitionFromProto(recorded.rig()));
  if (!rig.ok()) {
    return absl::Status(
        rig.status().code(),
        absl::StrCat("rig '", recorded.rig().name(), "' (", recorded.revision(),
                     "): ", rig.status().message()));
  }
  RigModel model(*std::move(rig));
  model.revision = recorded.revision();
  ResolveParts(recorded.rig(), model);
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
