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
#include "ik/base/trig.h"
#include "ik/base/validate.h"

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
  return Unit(axis, length);
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

}  // namespace

absl::StatusOr<Quat> NormalizeRotation(const Quat& rotation,
                                       absl::string_view path) {
  const double norm = Norm(rotation);
  // Written so NaN and infinity fail; the error path then says which.
  if (std::abs(norm - 1.0) <= kUnitQuatTolerance) return Unit(rotation, norm);
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
  result.rotation = Unit(transform.rotation, norm);
  return result;
}

namespace {

// Each joint in order, so the first offending one is the one reported: a
// valid, unique name, an earlier parent, a valid rest transform (its
// rotation normalised) and limit. Fills `index_by_name`.
absl::Status CheckJoints(std::vector<JointDefinition>& joints,
                         std::map<absl::string_view, int>& index_by_name) {
  const int joint_count = static_cast<int>(joints.size());
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
  return absl::OkStatus();
}

// Ball-and-socket axes and bones (twist axes) taken from the rest direction
// to the first child, in the joint's rest local frame (scale applies before
// rotation).
absl::Status FillBallSocketAxes(std::vector<JointDefinition>& joints) {
  const int joint_count = static_cast<int>(joints.size());
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
  return absl::OkStatus();
}

// Why the identity (the rest pose, relative to itself) is outside `limit`,
// or empty: its cone, its twist range or its hinge range.
std::string RestOutside(const JointLimit& limit) {
  const auto range_excludes_zero = [](const AngleRange& range) {
    return range.min > kLimitClampSlack || range.max < -kLimitClampSlack;
  };
  if (limit.kind == JointLimit::Kind::kBallSocket) {
    const BallSocketLimit& ball = limit.ball_socket;
    const double from_axis =
        Acos(std::clamp(glm::dot(ball.twist_axis, ball.axis), -1.0, 1.0));
    if (from_axis > ball.swing_max + kLimitClampSlack) {
      return absl::StrFormat(
          "the rest bone points %.4g rad from the cone's axis, beyond "
          "swing_max %.4g (%.4g rad outside)",
          from_axis, ball.swing_max, from_axis - ball.swing_max);
    }
    if (ball.has_twist && range_excludes_zero(ball.twist)) {
      return absl::StrFormat(
          "the rest twist, 0, is outside the twist range [%.4g, %.4g] (%.4g "
          "rad outside)",
          ball.twist.min, ball.twist.max,
          std::max(ball.twist.min, -ball.twist.max));
    }
  }
  if (limit.kind == JointLimit::Kind::kHinge &&
      range_excludes_zero(limit.hinge.range)) {
    return absl::StrFormat(
        "the rest angle, 0, is outside the hinge range [%.4g, %.4g] (%.4g rad "
        "outside)",
        limit.hinge.range.min, limit.hinge.range.max,
        std::max(limit.hinge.range.min, -limit.hinge.range.max));
  }
  return std::string();
}

// A rig's rest pose within every limit it declares (limits are relative to
// the rest pose: at rest each is the identity), else the first joint
// outside, by its path.
absl::Status CheckRestWithinLimits(const std::vector<JointDefinition>& joints) {
  for (size_t i = 0; i < joints.size(); ++i) {
    const std::string outside = RestOutside(joints[i].limit);
    if (!outside.empty()) {
      return InvalidField(
          absl::StrCat("joints[", i, "].limit"),
          absl::StrCat("joint '", joints[i].name, "': ", outside));
    }
  }
  return absl::OkStatus();
}

}  // namespace

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
  std::map<absl::string_view, int> index_by_name;
  if (absl::Status status = CheckJoints(joints, index_by_name); !status.ok()) {
    return status;
  }
  if (absl::Status status = FillBallSocketAxes(joints); !status.ok()) {
    return status;
  }
  for (JointDefinition& joint : joints) DeriveLimitValues(&joint.limit);
  if (absl::Status status = CheckRestWithinLimits(joints); !status.ok()) {
    return status;
  }
  Rig rig;
  rig.name_ = std::move(definition.name);
  rig.parents_.reserve(joints.size());
  rig.rest_pose_.reserve(joints.size());
  for (const JointDefinition& joint : joints) {
    rig.parents_.push_back(joint.parent);
    rig.rest_pose_.push_back(joint.rest);
  }
  rig.joint_index_.reserve(joints.size());
  for (const auto& [name, index] : index_by_name) {
    rig.joint_index_.emplace_back(std::string(name), index);
  }
  rig.joints_ = std::move(joints);
  if (absl::Status status = rig.BuildChains(definition.chains); !status.ok()) {
    return status;
  }
  if (!IsFinite(definition.forward) ||
      !(glm::length(definition.forward) >= 1e-12)) {
    return InvalidField("forward", "must be a finite, non-zero direction");
  }
  rig.forward_ = Unit(definition.forward, Length(definition.forward));
  return rig;
}

absl::Status Rig::BuildChains(const std::vector<ChainDefinition>& chains) {
  chains_.reserve(chains.size());
  std::map<std::string, size_t> chain_index_by_name;
  for (size_t c = 0; c < chains.size(); ++c) {
    const ChainDefinition& chain = chains[c];
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
    absl::StatusOr<Chain> built = BuildChain(chain, absl::StrCat(path, "."));
    if (!built.ok()) return built.status();
    chains_.push_back(*std::move(built));
  }
  return absl::OkStatus();
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
