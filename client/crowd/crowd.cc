#include "crowd.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "ik/base/math.h"
#include "ik/compact_pose.h"

namespace ik {
namespace {

// The stairs' span, where the crowd walks (along +Z, wrapping around).
constexpr double kMinX = -0.8;
constexpr double kMaxX = 0.8;
constexpr double kMinZ = -0.9;
constexpr double kWalkLength = 3.6;

v1::Quat ToWire(const Quat& q) {
  v1::Quat out;
  out.set_x(q.x);
  out.set_y(q.y);
  out.set_z(q.z);
  out.set_w(q.w);
  return out;
}

Quat FromWire(const v1::Quat& q) { return Quat(q.w(), q.x(), q.y(), q.z()); }

// The ground height under the crowd's root along the walk: a ramp up the
// stairs (0 before z = 0, 0.9 m after z = 1.5).
double RootHeight(double z) { return 0.9 * std::clamp(z / 1.5, 0.0, 1.0); }

// How far a joint swings in the walk cycle, radians, by its name.
double Swing(const std::string& name) {
  if (absl::StrContains(name, "hip")) return 0.45;
  if (absl::StrContains(name, "knee")) return 0.35;
  if (absl::StrContains(name, "shoulder")) return 0.3;
  if (absl::StrContains(name, "ponytail")) return 0.0;  // dynamics moves it
  return 0.06;
}

// Every joint of `rig`: its rest rotation swung about its local X by the
// walk cycle's phase `cycle`, x, y, z, w per joint into `rotations`.
void SwingJoints(const v1::Rig& rig, double cycle,
                 std::vector<double>& rotations) {
  const int joints = rig.joints_size();
  rotations.resize(4 * joints);
  for (int j = 0; j < joints; ++j) {
    const v1::Joint& joint = rig.joints(j);
    const Quat rest = joint.rest().has_rotation()
                          ? FromWire(joint.rest().rotation())
                          : IdentityQuat();
    const double side = absl::StrContains(joint.name(), "right") ? -1.0 : 1.0;
    const Quat swing =
        AngleAxis(Swing(joint.name()) * side * std::sin(cycle + 0.37 * j),
                  Vec3(1.0, 0.0, 0.0));
    const Quat rotation = glm::normalize(rest * swing);
    double* at = rotations.data() + 4 * j;
    at[0] = rotation.x;
    at[1] = rotation.y;
    at[2] = rotation.z;
    at[3] = rotation.w;
  }
}

// `rotations` (x, y, z, w per joint) into `character`'s pose in `form`,
// with `root`.
void SetPose(CrowdPoseForm form, const std::vector<double>& rotations,
             const v1::Transform& root, v1::TickCharacter& character) {
  const int joints = static_cast<int>(rotations.size() / 4);
  switch (form) {
    case CrowdPoseForm::kCompact:
    case CrowdPoseForm::kCompactQuantized: {
      // What an engine holds: float32.
      thread_local std::vector<float> engine_pose;
      engine_pose.assign(rotations.begin(), rotations.end());
      v1::CompactPose& pose = *character.mutable_compact_pose();
      *pose.mutable_root() = root;
      SetCompactRotations(engine_pose,
                          form == CrowdPoseForm::kCompact
                              ? RotationEncoding::kFloat
                              : RotationEncoding::kQuantized,
                          pose);
      return;
    }
    case CrowdPoseForm::kPacked: {
      v1::Pose& pose = *character.mutable_pose();
      *pose.mutable_root() = root;
      pose.mutable_rotations()->Assign(rotations.begin(), rotations.end());
      return;
    }
    case CrowdPoseForm::kJointPoses: {
      v1::Pose& pose = *character.mutable_pose();
      *pose.mutable_root() = root;
      const bool posed = pose.joints_size() == joints;
      for (int j = 0; j < joints; ++j) {
        v1::JointPose& joint =
            posed ? *pose.mutable_joints(j) : *pose.add_joints();
        joint.set_index(j);
        const double* q = rotations.data() + 4 * j;
        *joint.mutable_local()->mutable_rotation() =
            ToWire(MakeQuat(q[0], q[1], q[2], q[3]));
      }
      return;
    }
  }
}

// A goal per chain of `chains` (alternating sides) in front of the walker
// at `root` facing `heading`, bobbing with the walk cycle's phase `cycle`.
void AimHands(const std::vector<std::string>& chains, const Vec3& root,
              const Quat& heading, double cycle, v1::TickCharacter& character) {
  const bool aimed = character.goals_size() == static_cast<int>(chains.size());
  for (size_t g = 0; g < chains.size(); ++g) {
    v1::ChainGoal& goal =
        aimed ? *character.mutable_goals(g) : *character.add_goals();
    goal.set_chain(chains[g]);
    const double side = g % 2 == 0 ? 1.0 : -1.0;
    const Vec3 reach(0.22 * side, 1.2 + 0.08 * std::sin(cycle + g),
                     0.3 + 0.05 * std::cos(cycle));
    const Vec3 target = root + heading * reach;
    goal.mutable_target()->set_x(target.x);
    goal.mutable_target()->set_y(target.y);
    goal.mutable_target()->set_z(target.z);
  }
}

v1::JobStatus ToJobStatus(const absl::Status& status) {
  v1::JobStatus out;
  out.set_code(static_cast<int>(status.code()));
  out.set_message(std::string(status.message()));
  return out;
}

}  // namespace

bool ParseCrowdPoseForm(absl::string_view name, CrowdPoseForm* form) {
  struct Named {
    absl::string_view name;
    CrowdPoseForm form;
  };
  for (const Named& named :
       {Named{"compact", CrowdPoseForm::kCompact},
        Named{"quantized", CrowdPoseForm::kCompactQuantized},
        Named{"packed", CrowdPoseForm::kPacked},
        Named{"joints", CrowdPoseForm::kJointPoses}}) {
    if (name == named.name) {
      *form = named.form;
      return true;
    }
  }
  return false;
}

void SetJointRotation(v1::Pose& pose, int index, const v1::Quat& rotation) {
  if (4 * index + 3 < pose.rotations_size()) {
    double* packed = pose.mutable_rotations()->mutable_data() + 4 * index;
    packed[0] = rotation.x();
    packed[1] = rotation.y();
    packed[2] = rotation.z();
    packed[3] = rotation.w();
    return;
  }
  for (v1::JointPose& joint : *pose.mutable_joints()) {
    if (joint.joint_case() == v1::JointPose::kIndex && joint.index() == index) {
      *joint.mutable_local()->mutable_rotation() = rotation;
      return;
    }
  }
  v1::JointPose* joint = pose.add_joints();
  joint->set_index(index);
  *joint->mutable_local()->mutable_rotation() = rotation;
}

void SetJointRotations(
    v1::Pose& pose,
    const google::protobuf::RepeatedPtrField<v1::JointRotation>& rotations) {
  for (const v1::JointRotation& joint : rotations) {
    SetJointRotation(pose, joint.index(), joint.rotation());
  }
}

void SetJointRotations(v1::Pose& pose, const v1::TickCharacterResult& result) {
  for (int k = 0; k < result.joints_size(); ++k) {
    if (4 * k + 3 >= result.rotations_size()) break;
    v1::Quat rotation;
    rotation.set_x(result.rotations(4 * k));
    rotation.set_y(result.rotations(4 * k + 1));
    rotation.set_z(result.rotations(4 * k + 2));
    rotation.set_w(result.rotations(4 * k + 3));
    SetJointRotation(pose, result.joints(k), rotation);
  }
}

SyntheticCrowd::SyntheticCrowd(const v1::Rig& rig, const CrowdOptions& options)
    : rig_(rig), options_(options) {
  std::mt19937_64 engine(options.seed);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  walkers_.resize(options.characters);
  for (Walker& walker : walkers_) {
    walker.x = kMinX + (kMaxX - kMinX) * unit(engine);
    walker.z = kWalkLength * unit(engine);
    walker.heading = 0.3 * (unit(engine) - 0.5);
    walker.phase = 2.0 * kPi * unit(engine);
    walker.speed = 1.0 + 0.4 * unit(engine);
  }
  if (!options.terrain.empty()) {
    request_.mutable_shared_ground()->add_terrains(options.terrain);
  }
  request_.set_job_rotations(options.job_rotations);
  request_.set_detail(options.detail);
}

void SyntheticCrowd::Pose(const Walker& walker,
                          v1::TickCharacter& character) const {
  const double z =
      kMinZ + std::fmod(walker.z + walker.speed * time_, kWalkLength);
  const Vec3 root(walker.x, RootHeight(z), z);
  const Quat heading = AngleAxis(walker.heading, Vec3(0.0, 1.0, 0.0));
  v1::Transform root_transform;
  root_transform.mutable_translation()->set_x(root.x);
  root_transform.mutable_translation()->set_y(root.y);
  root_transform.mutable_translation()->set_z(root.z);
  *root_transform.mutable_rotation() = ToWire(heading);
  const double cycle = 2.0 * kPi * 0.9 * walker.speed * time_ + walker.phase;
  thread_local std::vector<double> rotations;
  SwingJoints(rig_, cycle, rotations);
  SetPose(options_.pose_form, rotations, root_transform, character);
  if (!options_.terrain.empty() && rig_.legs_size() > 0) {
    // Every leg planted: the default weights.
    character.mutable_ground();
  }
  AimHands(options_.goal_chains, root, heading, cycle, character);
  if (options_.dynamics && rig_.dynamic_chains_size() > 0) {
    v1::StepDynamicsRequest& dynamics = *character.mutable_dynamics();
    dynamics.set_delta_time(options_.delta_time);
    dynamics.clear_states();
    for (const v1::DynamicChainState& state : walker.states) {
      *dynamics.add_states() = state;
    }
  }
}

const v1::TickRequest& SyntheticCrowd::NextTick() {
  time_ += options_.delta_time;
  request_.set_sequence(++sequence_);
  // Built on the first tick, updated in place after.
  const bool built = request_.characters_size() == options_.characters;
  for (int k = 0; k < options_.characters; ++k) {
    v1::TickCharacter& character =
        built ? *request_.mutable_characters(k) : *request_.add_characters();
    if (!built) character.set_id(absl::StrCat(k));
    character.set_rig(rig_.name());
    Pose(walkers_[k], character);
    if (options_.baselines && character.has_compact_pose()) {
      if (complete_.characters_size() <= k) complete_.add_characters();
      *complete_.mutable_characters(k) = character;
      complete_.mutable_characters(k)->mutable_dynamics()->clear_states();
      OnBaseline(walkers_[k], character);
    }
  }
  if (options_.baselines) {
    complete_.set_sequence(request_.sequence());
    *complete_.mutable_shared_ground() = request_.shared_ground();
    complete_.set_detail(request_.detail());
    complete_.set_job_rotations(request_.job_rotations());
  }
  return request_;
}

void SyntheticCrowd::OnBaseline(Walker& walker,
                                v1::TickCharacter& character) const {
  v1::CompactPose& pose = *character.mutable_compact_pose();
  if (!walker.has_baseline) {
    character.set_baseline(0);
    walker.sent = pose;
    return;
  }
  character.set_baseline(sequence_ - 1);
  character.clear_rig();
  character.mutable_dynamics()->clear_states();
  const v1::CompactPose now = pose;
  const bool quantized = !now.quantized_rotations().empty();
  const int per_joint = quantized ? kSmallestThreeBytes : 4;
  const int joints =
      quantized ? static_cast<int>(now.quantized_rotations().size()) / per_joint
                : now.rotations_size() / per_joint;
  pose.clear_rotations();
  pose.clear_quantized_rotations();
  for (int j = 0; j < joints; ++j) {
    if (quantized) {
      const absl::string_view mine =
          absl::string_view(now.quantized_rotations()).substr(6 * j, 6);
      if (mine == absl::string_view(walker.sent.quantized_rotations())
                      .substr(6 * j, 6)) {
        continue;
      }
      pose.add_joints(j);
      pose.mutable_quantized_rotations()->append(mine.data(), mine.size());
      continue;
    }
    bool same = true;
    for (int i = 0; i < 4; ++i) {
      same =
          same && now.rotations(4 * j + i) == walker.sent.rotations(4 * j + i);
    }
    if (same) continue;
    pose.add_joints(j);
    for (int i = 0; i < 4; ++i) pose.add_rotations(now.rotations(4 * j + i));
  }
  walker.sent = now;
}

void SyntheticCrowd::Absorb(const v1::TickResponse& response) {
  const int count = std::min(response.characters_size(), options_.characters);
  for (int k = 0; k < count; ++k) {
    const v1::TickCharacterResult& character = response.characters(k);
    walkers_[k].has_baseline = character.status().code() == 0;
    std::vector<v1::DynamicChainState>& states = walkers_[k].states;
    states.clear();
    if (character.dynamics_status().code() != 0) continue;
    for (const v1::DynamicChainResult& chain : character.dynamics().results()) {
      if (chain.has_state()) states.push_back(chain.state());
    }
  }
}

absl::StatusOr<v1::TickResponse> SyntheticCrowd::RunAsSingleCalls(
    Client& client) const {
  v1::TickResponse response;
  response.set_sequence(CompleteTick().sequence());
  for (const v1::TickCharacter& character : CompleteTick().characters()) {
    v1::TickCharacterResult& out = *response.add_characters();
    out.set_id(character.id());
    v1::Pose pose = character.has_compact_pose()
                        ? WidenedPose(character.compact_pose())
                        : character.pose();
    if (character.has_ground()) {
      v1::GroundFeetRequest ground = character.ground();
      ground.set_rig(character.rig());
      *ground.mutable_pose() = pose;
      *ground.mutable_ground() = CompleteTick().shared_ground();
      absl::StatusOr<v1::GroundFeetResponse> answer = client.GroundFeet(ground);
      if (answer.ok()) {
        SetJointRotations(pose, answer->rotations());
        v1::Vec3& root = *pose.mutable_root()->mutable_translation();
        root.set_y(root.y() + answer->root_offset().y());
        *out.mutable_ground() = *std::move(answer);
      } else {
        *out.mutable_ground_status() = ToJobStatus(answer.status());
      }
    }
    if (character.goals_size() > 0) {
      v1::SolveChainRequest solve;
      solve.set_rig(character.rig());
      *solve.mutable_pose() = pose;
      *solve.mutable_goals() = character.goals();
      absl::StatusOr<v1::SolveChainResponse> answer = client.SolveChain(solve);
      if (answer.ok()) {
        for (const v1::GoalResult& result : answer->results()) {
          SetJointRotations(pose, result.rotations());
          *out.add_goals() = result;
        }
      } else {
        *out.mutable_goals_status() = ToJobStatus(answer.status());
      }
    }
    if (character.has_dynamics()) {
      v1::StepDynamicsRequest dynamics = character.dynamics();
      dynamics.set_rig(character.rig());
      *dynamics.mutable_pose() = pose;
      absl::StatusOr<v1::StepDynamicsResponse> answer =
          client.StepDynamics(dynamics);
      if (answer.ok()) {
        *out.mutable_dynamics() = *std::move(answer);
      } else {
        *out.mutable_dynamics_status() = ToJobStatus(answer.status());
      }
    }
  }
  return response;
}

}  // namespace ik
