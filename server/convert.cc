#include "server/convert.h"

#include <openssl/sha.h>

#include <utility>

#include "absl/status/status.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "ik/field_error.h"
#include "server/convert_parts.h"

namespace ik::server {
namespace {

// Prefixes a status message with `prefix`, keeping the code.
absl::Status Prefixed(const absl::Status& status, absl::string_view prefix) {
  if (status.ok()) return status;
  return absl::Status(status.code(), absl::StrCat(prefix, status.message()));
}

absl::StatusOr<SolverKind> SolverFromProto(v1::Solver solver,
                                           absl::string_view path) {
  switch (solver) {
    case v1::SOLVER_UNSPECIFIED:
    case v1::SOLVER_AUTO:
      return SolverKind::kAuto;
    case v1::SOLVER_TWO_BONE:
      return SolverKind::kTwoBone;
    case v1::SOLVER_FABRIK:
      return SolverKind::kFabrik;
    case v1::SOLVER_CCD:
      return SolverKind::kCcd;
    case v1::SOLVER_TORQUE:
      return SolverKind::kTorque;
    default:
      return InvalidField(
          path, absl::StrCat("unknown solver ", static_cast<int>(solver)));
  }
}

v1::Solver SolverToProto(SolverKind solver) {
  switch (solver) {
    case SolverKind::kAuto:
      return v1::SOLVER_AUTO;
    case SolverKind::kTwoBone:
      return v1::SOLVER_TWO_BONE;
    case SolverKind::kFabrik:
      return v1::SOLVER_FABRIK;
    case SolverKind::kCcd:
      return v1::SOLVER_CCD;
    case SolverKind::kTorque:
      return v1::SOLVER_TORQUE;
  }
  return v1::SOLVER_UNSPECIFIED;
}

v1::StopReason StopReasonToProto(StopReason reason) {
  switch (reason) {
    case StopReason::kReached:
      return v1::STOP_REASON_REACHED;
    case StopReason::kIterationCap:
      return v1::STOP_REASON_ITERATION_CAP;
    case StopReason::kNoImprovement:
      return v1::STOP_REASON_NO_IMPROVEMENT;
    case StopReason::kOutOfReach:
      return v1::STOP_REASON_OUT_OF_REACH;
  }
  return v1::STOP_REASON_UNSPECIFIED;
}

// Resolves the goal's chain reference: a rig chain by name, or an ad hoc
// chain validated like a rig chain and kept in `ad_hoc_chains`.
absl::StatusOr<const Chain*> ChainFromProto(const v1::ChainGoal& goal,
                                            const Rig& rig,
                                            absl::string_view path,
                                            std::deque<Chain>& ad_hoc_chains) {
  switch (goal.chain_ref_case()) {
    case v1::ChainGoal::CHAIN_REF_NOT_SET:
      return InvalidField(absl::StrCat(path, ".chain"),
                          "required (or ad_hoc_chain with root and tip)");
    case v1::ChainGoal::kChain: {
      if (goal.chain().empty()) {
        return InvalidField(absl::StrCat(path, ".chain"), "required");
      }
      const Chain* chain = rig.FindChain(goal.chain());
      if (chain == nullptr) {
        return FieldError(absl::StatusCode::kNotFound,
                          absl::StrCat(path, ".chain"),
                          absl::StrCat("rig '", rig.name(), "' has no chain '",
                                       goal.chain(), "'"));
      }
      return chain;
    }
    case v1::ChainGoal::kAdHocChain: {
      ChainDefinition definition;
      definition.root = goal.ad_hoc_chain().root();
      definition.tip = goal.ad_hoc_chain().tip();
      definition.name = absl::StrCat(definition.root, "..", definition.tip);
      absl::StatusOr<Chain> chain = rig.MakeChain(definition);
      if (!chain.ok()) {
        return Prefixed(chain.status(), absl::StrCat(path, ".ad_hoc_chain."));
      }
      return &ad_hoc_chains.emplace_back(*std::move(chain));
    }
  }
  return InvalidField(path, "bad chain");
}

absl::Status CheckFinite(const Vec3& v, absl::string_view path) {
  if (IsFinite(v)) return absl::OkStatus();
  return InvalidField(
      path, absl::StrFormat("not finite (%g, %g, %g)", v.x, v.y, v.z));
}

absl::StatusOr<JointLimit> LimitFromProto(const v1::JointLimit& limit,
                                          absl::string_view path) {
  JointLimit out;
  switch (limit.kind_case()) {
    case v1::JointLimit::KIND_NOT_SET:
      break;
    case v1::JointLimit::kBallSocket: {
      const v1::BallSocketLimit& ball = limit.ball_socket();
      out.kind = JointLimit::Kind::kBallSocket;
      out.axis_from_child = !ball.has_axis();
      if (ball.has_axis()) out.ball_socket.axis = FromProto(ball.axis());
      out.ball_socket.swing_max = ball.swing_max();
      out.ball_socket.has_twist = ball.has_twist();
      out.ball_socket.twist = {ball.twist().min(), ball.twist().max()};
      break;
    }
    case v1::JointLimit::kHinge: {
      const v1::HingeLimit& hinge = limit.hinge();
      if (!hinge.has_axis()) {
        return InvalidField(absl::StrCat(path, ".hinge.axis"), "required");
      }
      out.kind = JointLimit::Kind::kHinge;
      out.hinge.axis = FromProto(hinge.axis());
      out.hinge.range = {hinge.range().min(), hinge.range().max()};
      break;
    }
  }
  return out;
}

}  // namespace

Vec3 FromProto(const v1::Vec3& v) { return Vec3(v.x(), v.y(), v.z()); }

Quat FromProto(const v1::Quat& q) {
  return MakeQuat(q.x(), q.y(), q.z(), q.w());
}

v1::Vec3 ToProto(const Vec3& v) {
  v1::Vec3 out;
  out.set_x(v.x);
  out.set_y(v.y);
  out.set_z(v.z);
  return out;
}

v1::Quat ToProto(const Quat& q) {
  v1::Quat out;
  out.set_x(q.x);
  out.set_y(q.y);
  out.set_z(q.z);
  out.set_w(q.w);
  return out;
}

absl::StatusOr<Transform> TransformFromProto(const v1::Transform& transform,
                                             const Transform& defaults,
                                             absl::string_view path) {
  Transform out = defaults;
  if (transform.has_translation()) {
    out.translation = FromProto(transform.translation());
  }
  if (transform.has_rotation()) out.rotation = FromProto(transform.rotation());
  if (transform.has_scale()) out.scale = FromProto(transform.scale());
  return ValidateTransform(out, path);
}

absl::StatusOr<Rig> RigFromProto(const v1::Rig& rig,
                                 const ServiceLimits& limits,
                                 absl::string_view prefix) {
  if (rig.joints_size() > limits.max_joints_per_rig) {
    return FieldError(
        absl::StatusCode::kResourceExhausted, absl::StrCat(prefix, "joints"),
        absl::StrCat(rig.joints_size(), " joints exceed the limit of ",
                     limits.max_joints_per_rig));
  }
  if (rig.chains_size() > limits.max_chains_per_rig) {
    return FieldError(
        absl::StatusCode::kResourceExhausted, absl::StrCat(prefix, "chains"),
        absl::StrCat(rig.chains_size(), " chains exceed the limit of ",
                     limits.max_chains_per_rig));
  }
  const std::pair<const char*, int> part_counts[] = {
      {"legs", rig.legs_size()},
      {"colliders", rig.colliders_size()},
      {"dynamic_chains", rig.dynamic_chains_size()}};
  for (const auto& [field, count] : part_counts) {
    if (count > limits.max_parts_per_rig) {
      return FieldError(absl::StatusCode::kResourceExhausted,
                        absl::StrCat(prefix, field),
                        absl::StrCat(count, " exceed the limit of ",
                                     limits.max_parts_per_rig));
    }
  }
  RigDefinition def;
  def.name = rig.name();
  def.joints.reserve(rig.joints_size());
  for (int i = 0; i < rig.joints_size(); ++i) {
    const v1::Joint& joint = rig.joints(i);
    const std::string path = absl::StrCat("joints[", i, "]");
    JointDefinition out;
    out.name = joint.name();
    switch (joint.parent_ref_case()) {
      case v1::Joint::PARENT_REF_NOT_SET:
        out.parent = kNoParent;
        break;
      case v1::Joint::kParentIndex:
        out.parent = joint.parent_index();
        if (out.parent < 0 || out.parent >= i) {
          return InvalidField(
              absl::StrCat(prefix, path, ".parent_index"),
              absl::StrCat(out.parent,
                           " is not the index of an earlier joint (parents "
                           "come before children)"));
        }
        break;
      case v1::Joint::kParent: {
        out.parent = kNoParent;
        for (int p = 0; p < i; ++p) {
          if (rig.joints(p).name() == joint.parent()) {
            out.parent = p;
            break;
          }
        }
        if (out.parent == kNoParent) {
          return FieldError(
              absl::StatusCode::kNotFound,
              absl::StrCat(prefix, path, ".parent"),
              absl::StrCat("no earlier joint is called '", joint.parent(),
                           "' (parents come before children)"));
        }
        break;
      }
    }
    // Raw values: Rig::Create validates and normalises them.
    if (joint.rest().has_translation()) {
      out.rest.translation = FromProto(joint.rest().translation());
    }
    if (joint.rest().has_rotation()) {
      out.rest.rotation = FromProto(joint.rest().rotation());
    }
    if (joint.rest().has_scale())
      out.rest.scale = FromProto(joint.rest().scale());
    absl::StatusOr<JointLimit> limit =
        LimitFromProto(joint.limit(), absl::StrCat(path, ".limit"));
    if (!limit.ok()) return Prefixed(limit.status(), prefix);
    out.limit = *limit;
    def.joints.push_back(std::move(out));
  }
  def.chains.reserve(rig.chains_size());
  for (int i = 0; i < rig.chains_size(); ++i) {
    const v1::Chain& chain = rig.chains(i);
    const std::string path = absl::StrCat("chains[", i, "]");
    ChainDefinition out;
    out.name = chain.name();
    out.root = chain.root();
    out.tip = chain.tip();
    absl::StatusOr<SolverKind> solver =
        SolverFromProto(chain.solver(), absl::StrCat(path, ".solver"));
    if (!solver.ok()) return Prefixed(solver.status(), prefix);
    out.solver = *solver;
    if (chain.max_iterations() < 0) {
      return InvalidField(absl::StrCat(prefix, path, ".max_iterations"),
                          absl::StrCat(chain.max_iterations(), " is negative"));
    }
    if (chain.max_iterations() > 0) out.max_iterations = chain.max_iterations();
    if (!(chain.tolerance() >= 0.0) || !IsFinite(chain.tolerance())) {
      return InvalidField(absl::StrCat(prefix, path, ".tolerance"),
                          absl::StrFormat("%g is not a finite distance >= 0",
                                          chain.tolerance()));
    }
    if (chain.tolerance() > 0.0) out.tolerance = chain.tolerance();
    if (absl::Status status = ChainSettingsFromProto(chain, path, out);
        !status.ok()) {
      return Prefixed(status, prefix);
    }
    def.chains.push_back(std::move(out));
  }
  if (absl::Status status = PartsFromProto(rig, def); !status.ok()) {
    return Prefixed(status, prefix);
  }
  absl::StatusOr<Rig> created = Rig::Create(std::move(def));
  if (!created.ok()) return Prefixed(created.status(), prefix);
  return created;
}

v1::Rig NormalizedRig(const v1::Rig& rig, const Rig& validated) {
  v1::Rig out = rig;
  for (int i = 0; i < out.joints_size(); ++i) {
    v1::Transform* rest = out.mutable_joints(i)->mutable_rest();
    if (rest->has_rotation()) {
      *rest->mutable_rotation() = ToProto(validated.joint(i).rest.rotation);
    }
  }
  return out;
}

std::string ContentRevision(const google::protobuf::Message& normalized) {
  std::string bytes;
  {
    google::protobuf::io::StringOutputStream stream(&bytes);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    normalized.SerializeToCodedStream(&coded);
  }
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size(),
         digest);
  return absl::StrCat("sha256:",
                      absl::BytesToHexString(absl::string_view(
                          reinterpret_cast<const char*>(digest), 8)));
}

void AddJointRotation(
    const Rig& rig, int joint, const Quat& rotation,
    google::protobuf::RepeatedPtrField<v1::JointRotation>* rotations) {
  v1::JointRotation* out = rotations->Add();
  out->set_name(rig.joint(joint).name);
  out->set_index(joint);
  *out->mutable_rotation() = ToProto(rotation);
}

absl::StatusOr<DensePose> PoseFromProto(const v1::Pose& pose, const Rig& rig) {
  DensePose out;
  absl::StatusOr<Transform> root =
      TransformFromProto(pose.root(), Transform(), "pose.root");
  if (!root.ok()) return root.status();
  out.root = *root;
  out.locals.assign(rig.rest_pose().begin(), rig.rest_pose().end());
  std::vector<int> set_by(rig.joint_count(), -1);
  for (int i = 0; i < pose.joints_size(); ++i) {
    const v1::JointPose& joint = pose.joints(i);
    const std::string path = absl::StrCat("pose.joints[", i, "]");
    int index = kNoParent;
    switch (joint.joint_case()) {
      case v1::JointPose::JOINT_NOT_SET:
        return InvalidField(path, "set either name or index");
      case v1::JointPose::kName:
        index = rig.FindJoint(joint.name());
        if (index == kNoParent) {
          return FieldError(
              absl::StatusCode::kNotFound, absl::StrCat(path, ".name"),
              absl::StrCat("rig '", rig.name(), "' has no joint '",
                           joint.name(), "'"));
        }
        break;
      case v1::JointPose::kIndex:
        index = joint.index();
        if (index < 0 || index >= rig.joint_count()) {
          return InvalidField(absl::StrCat(path, ".index"),
                              absl::StrCat(index, " is out of range [0, ",
                                           rig.joint_count(), ")"));
        }
        break;
    }
    if (set_by[index] >= 0) {
      return InvalidField(path, absl::StrCat("joint '", rig.joint(index).name,
                                             "' is already set by pose.joints[",
                                             set_by[index], "]"));
    }
    set_by[index] = i;
    absl::StatusOr<Transform> local = TransformFromProto(
        joint.local(), rig.rest_pose()[index], absl::StrCat(path, ".local"));
    if (!local.ok()) return local.status();
    out.locals[index] = *local;
  }
  return out;
}

absl::StatusOr<ChainGoal> GoalFromProto(const v1::ChainGoal& goal,
                                        const Rig& rig, int index,
                                        std::deque<Chain>& ad_hoc_chains) {
  const std::string path = absl::StrCat("goals[", index, "]");
  ChainGoal out;
  absl::StatusOr<const Chain*> chain =
      ChainFromProto(goal, rig, path, ad_hoc_chains);
  if (!chain.ok()) return chain.status();
  out.chain = *chain;
  if (!goal.has_target()) {
    return InvalidField(absl::StrCat(path, ".target"), "required");
  }
  out.target_world = FromProto(goal.target());
  absl::Status status =
      CheckFinite(out.target_world, absl::StrCat(path, ".target"));
  if (!status.ok()) return status;
  if (goal.has_pole()) {
    out.pole_world = FromProto(goal.pole());
    status = CheckFinite(*out.pole_world, absl::StrCat(path, ".pole"));
    if (!status.ok()) return status;
  }
  if (goal.has_swivel()) out.swivel = goal.swivel();
  if (goal.solver() != v1::SOLVER_UNSPECIFIED) {
    absl::StatusOr<SolverKind> solver =
        SolverFromProto(goal.solver(), absl::StrCat(path, ".solver"));
    if (!solver.ok()) return solver.status();
    out.solver = *solver;
  }
  if (goal.max_iterations() < 0) {
    return InvalidField(absl::StrCat(path, ".max_iterations"),
                        absl::StrCat(goal.max_iterations(), " is negative"));
  }
  if (goal.max_iterations() > 0) out.max_iterations = goal.max_iterations();
  if (!(goal.tolerance() >= 0.0) || !IsFinite(goal.tolerance())) {
    return InvalidField(
        absl::StrCat(path, ".tolerance"),
        absl::StrFormat("%g is not a finite distance >= 0", goal.tolerance()));
  }
  if (goal.tolerance() > 0.0) out.tolerance = goal.tolerance();
  if (goal.has_orientation()) {
    absl::StatusOr<Quat> orientation = NormalizeRotation(
        FromProto(goal.orientation()), absl::StrCat(path, ".orientation"));
    if (!orientation.ok()) return orientation.status();
    out.orientation_world = *orientation;
  }
  if (goal.has_orientation_weight()) {
    const double weight = goal.orientation_weight();
    if (!goal.has_orientation()) {
      return InvalidField(absl::StrCat(path, ".orientation_weight"),
                          "set without an orientation");
    }
    if (!(weight >= 0.0 && weight <= 1.0)) {
      return InvalidField(absl::StrCat(path, ".orientation_weight"),
                          absl::StrFormat("%g is outside [0, 1]", weight));
    }
    out.orientation_weight = weight;
  }
  return out;
}

v1::GoalResult GoalResultToProto(const ChainGoal& goal, const Rig& rig,
                                 const ChainSolveResult& result,
                                 const std::vector<Transform>& locals) {
  v1::GoalResult out;
  const Chain& chain = *goal.chain;
  out.set_chain(chain.name);
  // A position goal leaves the tip's rotation alone; an orientation turns it.
  const size_t joints = goal.orientation_world.has_value()
                            ? chain.joints.size()
                            : chain.joints.size() - 1;
  for (size_t i = 0; i < joints; ++i) {
    const int joint = chain.joints[i];
    AddJointRotation(rig, joint, locals[joint].rotation,
                     out.mutable_rotations());
  }
  out.set_reached(result.report.reached);
  out.set_residual(result.report.residual);
  out.set_iterations(result.report.iterations);
  out.set_stop_reason(StopReasonToProto(result.stop_reason));
  *out.mutable_effector() = ToProto(result.tip_world);
  out.set_solver(SolverToProto(result.solver));
  for (int joint : result.limited_joints) {
    out.add_limited_joints(rig.joint(joint).name);
  }
  if (goal.swivel.has_value()) {
    out.set_near_singularity(result.near_singularity);
    out.set_singularity_angle(result.singularity_angle);
  }
  return out;
}

}  // namespace ik::server
