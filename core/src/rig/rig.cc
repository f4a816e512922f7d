#include "ik/rig/rig.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/string_view.h"
#include "ik/base/validate.h"
#include "rig/chain_torque.h"

namespace ik {
namespace {

std::string FormatVec3(const Vec3& v) {
  return absl::StrCat("(", v.x, ", ", v.y, ", ", v.z, ")");
}

// Checks a limit axis and returns it normalised.
absl::StatusOr<Vec3> NormalizeAxis(const Vec3& axis, absl::string_view path) {
  if (!IsFinite(axis)) return InvalidField(path, "not finite");
  const double length = glm::length(axis);
  if (!(length >= kMinDirectionLength)) {
    return InvalidField(path, "zero length");
  }
  return axis / length;
}

absl::Status ValidateAngleRange(const AngleRange& range,
                                absl::string_view path) {
  if (!IsFinite(range.min) || !IsFinite(range.max)) {
    return InvalidField(path, "not finite");
  }
  if (range.min > range.max) {
    return InvalidField(path, absl::StrCat("min ", range.min,
                                           " is greater than max ", range.max));
  }
  if (range.min < -kPi || range.max > kPi) {
    return InvalidField(path, absl::StrCat("[", range.min, ", ", range.max,
                                           "] is not within [-pi, pi]"));
  }
  return absl::OkStatus();
}

// Validates `limit` in place (normalising axes). `axis_from_child` axes are
// filled in later, once every joint is known.
absl::Status ValidateLimit(JointLimit& limit, absl::string_view path) {
  switch (limit.kind) {
    case JointLimit::Kind::kNone:
      return absl::OkStatus();
    case JointLimit::Kind::kBallSocket: {
      BallSocketLimit& ball = limit.ball_socket;
      const std::string ball_path = absl::StrCat(path, ".ball_socket");
      if (!limit.axis_from_child) {
        absl::StatusOr<Vec3> axis =
            NormalizeAxis(ball.axis, absl::StrCat(ball_path, ".axis"));
        if (!axis.ok()) return axis.status();
        ball.axis = *axis;
      }
      if (!IsFinite(ball.swing_max) || !(ball.swing_max > 0.0) ||
          ball.swing_max > kPi) {
        return InvalidField(absl::StrCat(ball_path, ".swing_max"),
                            absl::StrCat(ball.swing_max, " is not in (0, pi]"));
      }
      if (ball.has_twist) {
        return ValidateAngleRange(ball.twist,
                                  absl::StrCat(ball_path, ".twist"));
      }
      return absl::OkStatus();
    }
    case JointLimit::Kind::kHinge: {
      HingeLimit& hinge = limit.hinge;
      const std::string hinge_path = absl::StrCat(path, ".hinge");
      absl::StatusOr<Vec3> axis =
          NormalizeAxis(hinge.axis, absl::StrCat(hinge_path, ".axis"));
      if (!axis.ok()) return axis.status();
      hinge.axis = *axis;
      return ValidateAngleRange(hinge.range,
                                absl::StrCat(hinge_path, ".range"));
    }
  }
  return InvalidField(
      path, absl::StrCat("unknown limit kind ", static_cast<int>(limit.kind)));
}

bool IsKnownSolver(SolverKind solver) {
  return solver == SolverKind::kAuto || solver == SolverKind::kTwoBone ||
         solver == SolverKind::kFabrik || solver == SolverKind::kCcd ||
         solver == SolverKind::kTorque;
}

}  // namespace

absl::StatusOr<Quat> NormalizeRotation(const Quat& rotation,
                                       absl::string_view path) {
  const double norm = Norm(rotation);
  // Written so NaN and infinity fail; the error path then says which.
  if (std::abs(norm - 1.0) <= kUnitQuatTolerance) return rotation / norm;
  if (!IsFinite(rotation)) return InvalidField(path, "not finite");
  return InvalidField(path,
                      absl::StrCat("not a unit quaternion (norm ", norm, ")"));
}

absl::StatusOr<Transform> ValidateTransform(const Transform& transform,
                                            absl::string_view path) {
  // Paths are only built for errors: this runs for every joint of a pose.
  if (!IsFinite(transform.translation)) {
    return InvalidField(absl::StrCat(path, ".translation"), "not finite");
  }
  const double norm = Norm(transform.rotation);
  if (!(std::abs(norm - 1.0) <= kUnitQuatTolerance)) {
    return NormalizeRotation(transform.rotation,
                             absl::StrCat(path, ".rotation"))
        .status();
  }
  const Vec3& scale = transform.scale;
  if (!IsFinite(scale) || !(scale.x > 0.0) || !(scale.y > 0.0) ||
      !(scale.z > 0.0)) {
    return InvalidField(
        absl::StrCat(path, ".scale"),
        absl::StrCat("must be finite and positive, got ", FormatVec3(scale)));
  }
  Transform result = transform;
  result.rotation = transform.rotation / norm;
  return result;
}

absl::StatusOr<Rig> Rig::Create(RigDefinition definition) {
  if (absl::Status status = ValidateName(definition.name, "name");
      !status.ok()) {
    return status;
  }
  std::vector<JointDefinition>& joints = definition.joints;
  if (joints.empty()) {
    return InvalidField("joints", "a rig needs at least one joint");
  }
  if (joints.size() > static_cast<size_t>(kMaxJoints)) {
    return FieldError(
        absl::StatusCode::kResourceExhausted, "joints",
        absl::StrFormat("%d joints, at most %d", joints.size(), kMaxJoints));
  }
  const int joint_count = static_cast<int>(joints.size());

  // Per joint, in order, so the first offending joint is the one reported.
  std::map<absl::string_view, int> index_by_name;
  for (int i = 0; i < joint_count; ++i) {
    JointDefinition& joint = joints[i];
    const std::string path = absl::StrCat("joints[", i, "]");
    if (absl::Status status =
            ValidateName(joint.name, absl::StrCat(path, ".name"));
        !status.ok()) {
      return status;
    }
    if (auto [it, inserted] = index_by_name.emplace(joint.name, i); !inserted) {
      return InvalidField(absl::StrCat(path, ".name"),
                          absl::StrCat("duplicate joint name '", joint.name,
                                       "' (also joints[", it->second, "])"));
    }
    if (joint.parent != kNoParent && (joint.parent < 0 || joint.parent >= i)) {
      return InvalidField(
          absl::StrCat(path, ".parent"),
          absl::StrCat("parent index ", joint.parent,
                       " does not refer to an earlier joint (parents must "
                       "come before their children)"));
    }
    absl::StatusOr<Transform> rest =
        ValidateTransform(joint.rest, absl::StrCat(path, ".rest"));
    if (!rest.ok()) return rest.status();
    joint.rest = *rest;
    if (absl::Status status =
            ValidateLimit(joint.limit, absl::StrCat(path, ".limit"));
        !status.ok()) {
      return status;
    }
  }

  // Ball-and-socket axes and bones (twist axes) taken from the rest direction
  // to the first child, in the joint's rest local frame (scale applies before
  // rotation).
  std::vector<int> first_child(joint_count, kNoParent);
  for (int j = joint_count - 1; j >= 0; --j) {
    if (joints[j].parent != kNoParent) first_child[joints[j].parent] = j;
  }
  for (int i = 0; i < joint_count; ++i) {
    JointLimit& limit = joints[i].limit;
    if (limit.kind != JointLimit::Kind::kBallSocket) continue;
    const int child = first_child[i];
    Vec3 direction(0.0);
    double length = 0.0;
    if (child != kNoParent) {
      direction = joints[i].rest.scale * joints[child].rest.translation;
      length = glm::length(direction);
    }
    const bool has_bone = length >= kMinBoneLength;
    if (limit.axis_from_child) {
      const std::string path =
          absl::StrCat("joints[", i, "].limit.ball_socket.axis");
      if (child == kNoParent) {
        return InvalidField(
            path, absl::StrCat("unset, and joint '", joints[i].name,
                               "' has no child to take the axis from"));
      }
      if (!has_bone) {
        return InvalidField(
            path, absl::StrCat("unset, and the first child '",
                               joints[child].name, "' sits on joint '",
                               joints[i].name, "' (zero-length bone)"));
      }
      limit.ball_socket.axis = direction / length;
    }
    limit.ball_socket.twist_axis =
        has_bone ? direction / length : limit.ball_socket.axis;
  }

  Rig rig;
  rig.name_ = std::move(definition.name);
  rig.parents_.reserve(joint_count);
  rig.rest_pose_.reserve(joint_count);
  for (const JointDefinition& joint : joints) {
    rig.parents_.push_back(joint.parent);
    rig.rest_pose_.push_back(joint.rest);
  }
  rig.joint_index_.reserve(joint_count);
  for (const auto& [name, index] : index_by_name) {
    rig.joint_index_.emplace_back(std::string(name), index);
  }
  rig.joints_ = std::move(joints);

  std::vector<ChainDefinition>& chains = definition.chains;
  rig.chains_.reserve(chains.size());
  std::map<std::string, size_t> chain_index_by_name;
  for (size_t c = 0; c < chains.size(); ++c) {
    ChainDefinition& chain = chains[c];
    const std::string path = absl::StrCat("chains[", c, "]");
    if (absl::Status status =
            ValidateName(chain.name, absl::StrCat(path, ".name"));
        !status.ok()) {
      return status;
    }
    if (auto [it, inserted] = chain_index_by_name.emplace(chain.name, c);
        !inserted) {
      return InvalidField(absl::StrCat(path, ".name"),
                          absl::StrCat("duplicate chain name '", chain.name,
                                       "' (also chains[", it->second, "])"));
    }
    absl::StatusOr<Chain> built =
        rig.BuildChain(chain, absl::StrCat(path, "."));
    if (!built.ok()) return built.status();
    rig.chains_.push_back(*std::move(built));
  }
  if (!IsFinite(definition.forward) ||
      !(glm::length(definition.forward) >= 1e-12)) {
    return InvalidField("forward", "must be a finite, non-zero direction");
  }
  rig.forward_ = glm::normalize(definition.forward);
  return rig;
}

absl::StatusOr<Chain> Rig::MakeChain(const ChainDefinition& definition) const {
  return BuildChain(definition, "");
}

absl::StatusOr<Chain> Rig::BuildChain(const ChainDefinition& definition,
                                      absl::string_view path_prefix) const {
  const std::string root_path = absl::StrCat(path_prefix, "root");
  const std::string tip_path = absl::StrCat(path_prefix, "tip");
  if (definition.root.empty()) return InvalidField(root_path, "empty");
  if (definition.tip.empty()) return InvalidField(tip_path, "empty");
  const int root = FindJoint(definition.root);
  if (root == kNoParent) {
    return FieldError(absl::StatusCode::kNotFound, root_path,
                      absl::StrCat("unknown joint ", Quoted(definition.root)));
  }
  const int tip = FindJoint(definition.tip);
  if (tip == kNoParent) {
    return FieldError(absl::StatusCode::kNotFound, tip_path,
                      absl::StrCat("unknown joint ", Quoted(definition.tip)));
  }
  if (tip == root) {
    return InvalidField(
        tip_path,
        absl::StrCat("'", definition.tip,
                     "' is also the root; a chain needs at least 2 joints"));
  }
  // Walk from the tip up the parent links until the root.
  std::vector<int> chain_joints;
  int joint = tip;
  while (joint != kNoParent && joint != root) {
    chain_joints.push_back(joint);
    joint = joints_[joint].parent;
  }
  if (joint != root) {
    return InvalidField(tip_path, absl::StrCat("joint '", definition.tip,
                                               "' does not descend from root '",
                                               definition.root, "'"));
  }
  chain_joints.push_back(root);
  std::reverse(chain_joints.begin(), chain_joints.end());
  const int chain_length = static_cast<int>(chain_joints.size());
  if (chain_length > kMaxChainJoints) {
    return InvalidField(
        tip_path, absl::StrCat("the chain from '", definition.root, "' to '",
                               definition.tip, "' has ", chain_length,
                               " joints, at most ", kMaxChainJoints));
  }
  Chain chain;
  for (int ancestor = joints_[root].parent; ancestor != kNoParent;
       ancestor = joints_[ancestor].parent) {
    chain.ancestors.push_back(ancestor);
  }
  std::reverse(chain.ancestors.begin(), chain.ancestors.end());

  // Rest pose in model space down the path, for bone lengths.
  Transform rest_model;
  for (size_t i = 0; i < chain.ancestors.size(); ++i) {
    const Transform& rest = joints_[chain.ancestors[i]].rest;
    rest_model = i == 0 ? rest : Compose(rest_model, rest);
  }
  Vec3 parent_position(0.0);
  for (int k = 0; k < chain_length; ++k) {
    const Transform& rest = joints_[chain_joints[k]].rest;
    rest_model =
        k == 0 && chain.ancestors.empty() ? rest : Compose(rest_model, rest);
    if (k > 0 && !(glm::length(rest_model.translation - parent_position) >=
                   kMinBoneLength)) {
      return InvalidField(
          absl::StrCat(path_prefix, "tip"),
          absl::StrCat("zero-length bone from '",
                       joints_[chain_joints[k - 1]].name, "' to '",
                       joints_[chain_joints[k]].name, "'"));
    }
    parent_position = rest_model.translation;
  }

  if (!IsKnownSolver(definition.solver)) {
    return InvalidField(
        absl::StrCat(path_prefix, "solver"),
        absl::StrCat("unknown solver ", static_cast<int>(definition.solver)));
  }
  if (definition.solver == SolverKind::kTwoBone && chain_length != 3) {
    return InvalidField(
        absl::StrCat(path_prefix, "solver"),
        absl::StrCat("the two-bone solver needs exactly 3 joints; the chain "
                     "has ",
                     chain_length));
  }
  if (definition.max_iterations < 1) {
    return InvalidField(
        absl::StrCat(path_prefix, "max_iterations"),
        absl::StrCat("must be at least 1, got ", definition.max_iterations));
  }
  if (!IsFinite(definition.tolerance) || definition.tolerance < 0.0) {
    return InvalidField(
        absl::StrCat(path_prefix, "tolerance"),
        absl::StrCat("must be finite and >= 0, got ", definition.tolerance));
  }
  // Swivel settings, and the preferred pose down the path to the tip (the
  // rest pose with the definition's rotations) for the zero-plane map.
  if (definition.swivel_space != SwivelSpace::kStartParent &&
      definition.swivel_space != SwivelSpace::kWorld) {
    return InvalidField(
        absl::StrCat(path_prefix, "swivel_space"),
        absl::StrCat("unknown swivel space ",
                     static_cast<int>(definition.swivel_space)));
  }
  if (!(definition.flip_warning_angle >= 0.0 &&
        definition.flip_warning_angle <= 0.5 * kPi)) {
    return InvalidField(absl::StrCat(path_prefix, "flip_warning_angle"),
                        absl::StrCat(definition.flip_warning_angle,
                                     " is not within [0, pi/2]"));
  }
  std::vector<int> path = chain.ancestors;
  path.insert(path.end(), chain_joints.begin(), chain_joints.end());
  std::vector<Transform> preferred(path.size());
  std::vector<int> given_at(path.size(), -1);
  for (size_t i = 0; i < path.size(); ++i) preferred[i] = joints_[path[i]].rest;
  for (size_t p = 0; p < definition.preferred_pose.size(); ++p) {
    const PreferredJointRotation& entry = definition.preferred_pose[p];
    const std::string entry_path =
        absl::StrCat(path_prefix, "preferred_pose[", p, "]");
    const int joint = FindJoint(entry.joint);
    if (joint == kNoParent) {
      return FieldError(absl::StatusCode::kNotFound,
                        absl::StrCat(entry_path, ".joint"),
                        absl::StrCat("unknown joint ", Quoted(entry.joint)));
    }
    const size_t at = static_cast<size_t>(
        std::find(path.begin(), path.end(), joint) - path.begin());
    if (at == path.size()) {
      return InvalidField(
          absl::StrCat(entry_path, ".joint"),
          absl::StrCat("'", entry.joint,
                       "' is neither a joint of the chain nor an ancestor "
                       "of its root"));
    }
    if (given_at[at] >= 0) {
      return InvalidField(
          absl::StrCat(entry_path, ".joint"),
          absl::StrCat("'", entry.joint, "' given twice (also preferred_pose[",
                       given_at[at], "])"));
    }
    given_at[at] = static_cast<int>(p);
    absl::StatusOr<Quat> rotation = NormalizeRotation(
        entry.rotation, absl::StrCat(entry_path, ".rotation"));
    if (!rotation.ok()) return rotation.status();
    preferred[at].rotation = *rotation;
  }
  for (size_t k = chain.ancestors.size(); k < path.size(); ++k) {
    chain.preferred_rotations.push_back(preferred[k].rotation);
  }
  chain.zero_plane_map = ChainZeroPlaneMap(preferred, chain.ancestors.size(),
                                           definition.swivel_space);
  chain.swivel_space = definition.swivel_space;
  chain.flip_warning_angle = definition.flip_warning_angle;

  chain.name = definition.name;
  chain.joints = std::move(chain_joints);
  chain.solver = definition.solver;
  chain.max_iterations = definition.max_iterations;
  chain.tolerance = definition.tolerance;
  if (absl::Status status =
          internal::BuildChainTorque(*this, definition, path_prefix, chain);
      !status.ok()) {
    return status;
  }
  return chain;
}

int Rig::FindJoint(absl::string_view name) const {
  auto it = std::lower_bound(
      joint_index_.begin(), joint_index_.end(), name,
      [](const std::pair<std::string, int>& entry, absl::string_view key) {
        return absl::string_view(entry.first) < key;
      });
  if (it == joint_index_.end() || it->first != name) return kNoParent;
  return it->second;
}

const Chain* Rig::FindChain(absl::string_view name) const {
  for (const Chain& chain : chains_) {
    if (chain.name == name) return &chain;
  }
  return nullptr;
}

}  // namespace ik
