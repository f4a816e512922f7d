// The bundled example humanoid (examples/rigs/humanoid.json), built in C++
// for the core tests, which must not depend on the server's JSON loader. Keep
// the two in step: same joints, order, numbers, limits and chains.
//
// ~1.8 m tall, +Y up, facing +Z, left is +X; T-pose with a slight rest bend at
// the elbows (forward) and knees (backward) so the bend planes are defined.
// Upper arm 0.29 m, forearm 0.26 m; thigh 0.42 m, shin 0.41 m. Two legs
// (hip -> knee -> ankle, with the toe joints) for the grounding pass.
#ifndef IK_TESTS_CORE_HUMANOID_RIG_H_
#define IK_TESTS_CORE_HUMANOID_RIG_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "ik/base/math.h"
#include "ik/character/character.h"
#include "ik/rig/rig.h"

namespace ik::testing {

// Solver settings of the 4-joint clavicle-to-wrist chains (AUTO: FABRIK).
// 1 mm is close enough for a hand; CCD needs up to ~200 sweeps for the
// hardest targets (the property test), FABRIK ~100, and both stop early
// once an iteration does not get closer.
inline constexpr int kClavicleArmMaxIterations = 300;
inline constexpr double kClavicleArmTolerance = 1e-3;

// The legs' ankle height above the sole (the JSON's "ankle_height"): the rest
// pose puts the ankles 0.9 - 0.83 cos(2 deg) = 0.0705 m above the model's
// origin.
inline constexpr double kHumanoidAnkleHeight = 0.07;

inline JointLimit NoLimit() { return JointLimit(); }

// A ball-and-socket limit; no axis means "from the first child".
inline JointLimit BallSocket(double swing_max, std::optional<AngleRange> twist,
                             std::optional<Vec3> axis) {
  JointLimit limit;
  limit.kind = JointLimit::Kind::kBallSocket;
  limit.axis_from_child = !axis.has_value();
  if (axis.has_value()) limit.ball_socket.axis = *axis;
  limit.ball_socket.swing_max = swing_max;
  limit.ball_socket.has_twist = twist.has_value();
  if (twist.has_value()) limit.ball_socket.twist = *twist;
  return limit;
}

inline JointLimit Hinge(const Vec3& axis, double min, double max) {
  JointLimit limit;
  limit.kind = JointLimit::Kind::kHinge;
  limit.hinge.axis = axis;
  limit.hinge.range = {min, max};
  return limit;
}

// The ponytail: 7 joints from the back of the head, straight back at rest
// (0.07 m bones), simulated below ponytail_00 and colliding with the head,
// neck, shoulders and back (the JSON's "colliders" and "dynamic_chains").
inline void AddPonytail(CharacterDefinition& character) {
  RigDefinition& definition = character.rig;
  int parent = 0;
  while (definition.joints[parent].name != "head") ++parent;
  for (int i = 0; i < 7; ++i) {
    JointDefinition joint;
    joint.name = "ponytail_0" + std::to_string(i);
    joint.parent = parent;
    joint.rest.translation =
        i == 0 ? Vec3(0.0, 0.12, -0.1) : Vec3(0.0, 0.0, -0.07);
    parent = static_cast<int>(definition.joints.size());
    definition.joints.push_back(joint);
  }
  character.colliders = {
      {"head", "head", SphereCollider(Vec3(0.0, 0.1, 0.0), 0.1), true},
      {"neck", "neck",
       CapsuleCollider(Vec3(0.0, 0.0, 0.0), Vec3(0.0, 0.1, 0.0), 0.06)},
      {"shoulders", "chest",
       CapsuleCollider(Vec3(-0.18, 0.17, -0.02), Vec3(0.18, 0.17, -0.02),
                       0.08)},
      {"back", "chest",
       CapsuleCollider(Vec3(0.0, -0.05, -0.02), Vec3(0.0, 0.15, -0.02), 0.11)}};
  DynamicChainDefinition ponytail;
  ponytail.name = "ponytail";
  ponytail.root = "ponytail_00";
  ponytail.settings.drag = 0.06;
  ponytail.radius = 0.02;
  DynamicJointSettings tip;
  tip.joint = "ponytail_06";
  tip.radius = 0.03;
  ponytail.joints = {tip};
  ponytail.colliders = {"head", "neck", "shoulders", "back"};
  character.dynamic_chains = {ponytail};
}

// The humanoid with its legs, colliders and ponytail (examples/rigs'
// humanoid.json).
inline CharacterDefinition HumanoidDefinition() {
  struct JointSpec {
    const char* name;
    const char* parent;  // "" for the root
    Vec3 translation;
    Quat rotation;
    JointLimit limit;
  };
  struct ChainSpec {
    const char* name;
    const char* root;
    const char* tip;
    SolverKind solver;
    int max_iterations;
    double tolerance;
  };
  const std::vector<JointSpec> joints = {
      {"pelvis", "", Vec3(0.0, 0.95, 0.0), MakeQuat(0, 0, 0, 1), NoLimit()},
      {"spine", "pelvis", Vec3(0.0, 0.12, 0.0), MakeQuat(0, 0, 0, 1),
       BallSocket(0.5, AngleRange{-0.5, 0.5}, std::nullopt)},
      {"chest", "spine", Vec3(0.0, 0.18, 0.0), MakeQuat(0, 0, 0, 1),
       BallSocket(0.4, AngleRange{-0.4, 0.4}, std::nullopt)},
      {"neck", "chest", Vec3(0.0, 0.22, 0.0), MakeQuat(0, 0, 0, 1),
       BallSocket(0.7, AngleRange{-0.8, 0.8}, std::nullopt)},
      {"head", "neck", Vec3(0.0, 0.1, 0.0), MakeQuat(0, 0, 0, 1),
       BallSocket(0.6, AngleRange{-0.9, 0.9}, std::nullopt)},
      {"left_clavicle", "chest", Vec3(0.03, 0.19, 0.0), MakeQuat(0, 0, 0, 1),
       BallSocket(0.35, AngleRange{-0.2, 0.2}, std::nullopt)},
      {"left_shoulder", "left_clavicle", Vec3(0.15, 0.0, 0.0),
       MakeQuat(0, 0, 0, 1),
       BallSocket(1.9, AngleRange{-1.4, 1.4},
                  Vec3(0.842152, -0.336861, 0.421076))},
      // 5 deg rest bend forward (+Z) about -Y.
      {"left_elbow", "left_shoulder", Vec3(0.29, 0.0, 0.0),
       MakeQuat(0.0, -0.043619387365336, 0.0, 0.9990482215818578),
       Hinge(Vec3(0.0, -1.0, 0.0), -0.0873, 2.53)},
      {"left_wrist", "left_elbow", Vec3(0.26, 0.0, 0.0), MakeQuat(0, 0, 0, 1),
       BallSocket(1.2, AngleRange{-0.5, 0.5}, Vec3(1.0, 0.0, 0.0))},
      {"right_clavicle", "chest", Vec3(-0.03, 0.19, 0.0), MakeQuat(0, 0, 0, 1),
       BallSocket(0.35, AngleRange{-0.2, 0.2}, std::nullopt)},
      {"right_shoulder", "right_clavicle", Vec3(-0.15, 0.0, 0.0),
       MakeQuat(0, 0, 0, 1),
       BallSocket(1.9, AngleRange{-1.4, 1.4},
                  Vec3(-0.842152, -0.336861, 0.421076))},
      // 5 deg rest bend forward (+Z) about +Y.
      {"right_elbow", "right_shoulder", Vec3(-0.29, 0.0, 0.0),
       MakeQuat(0.0, 0.043619387365336, 0.0, 0.9990482215818578),
       Hinge(Vec3(0.0, 1.0, 0.0), -0.0873, 2.53)},
      {"right_wrist", "right_elbow", Vec3(-0.26, 0.0, 0.0),
       MakeQuat(0, 0, 0, 1),
       BallSocket(1.2, AngleRange{-0.5, 0.5}, Vec3(-1.0, 0.0, 0.0))},
      // -2 deg about X: knee slightly forward.
      {"left_hip", "pelvis", Vec3(0.09, -0.05, 0.0),
       MakeQuat(-0.01745240643728351, 0.0, 0.0, 0.9998476951563913),
       BallSocket(1.6, AngleRange{-0.7, 0.7},
                  Vec3(0.251577, -0.855363, 0.452839))},
      // 4 deg rest bend; positive turns the ankle to -Z.
      {"left_knee", "left_hip", Vec3(0.0, -0.42, 0.0),
       MakeQuat(0.03489949670250097, 0.0, 0.0, 0.9993908270190958),
       Hinge(Vec3(1.0, 0.0, 0.0), -0.0698, 2.45)},
      // -2 deg about X: foot level again.
      {"left_ankle", "left_knee", Vec3(0.0, -0.41, 0.0),
       MakeQuat(-0.01745240643728351, 0.0, 0.0, 0.9998476951563913),
       BallSocket(0.6, AngleRange{-0.3, 0.3}, std::nullopt)},
      {"left_toe", "left_ankle", Vec3(0.0, -0.05, 0.14), MakeQuat(0, 0, 0, 1),
       BallSocket(0.5, std::nullopt, Vec3(0.0, 0.0, 1.0))},
      // -2 deg about X: knee slightly forward.
      {"right_hip", "pelvis", Vec3(-0.09, -0.05, 0.0),
       MakeQuat(-0.01745240643728351, 0.0, 0.0, 0.9998476951563913),
       BallSocket(1.6, AngleRange{-0.7, 0.7},
                  Vec3(-0.251577, -0.855363, 0.452839))},
      // 4 deg rest bend; positive turns the ankle to -Z.
      {"right_knee", "right_hip", Vec3(0.0, -0.42, 0.0),
       MakeQuat(0.03489949670250097, 0.0, 0.0, 0.9993908270190958),
       Hinge(Vec3(1.0, 0.0, 0.0), -0.0698, 2.45)},
      // -2 deg about X: foot level again.
      {"right_ankle", "right_knee", Vec3(0.0, -0.41, 0.0),
       MakeQuat(-0.01745240643728351, 0.0, 0.0, 0.9998476951563913),
       BallSocket(0.6, AngleRange{-0.3, 0.3}, std::nullopt)},
      {"right_toe", "right_ankle", Vec3(0.0, -0.05, 0.14), MakeQuat(0, 0, 0, 1),
       BallSocket(0.5, std::nullopt, Vec3(0.0, 0.0, 1.0))},
  };
  const std::vector<ChainSpec> chains = {
      {"left_arm", "left_shoulder", "left_wrist", SolverKind::kAuto,
       kDefaultMaxIterations, kDefaultTolerance},
      {"right_arm", "right_shoulder", "right_wrist", SolverKind::kAuto,
       kDefaultMaxIterations, kDefaultTolerance},
      {"left_leg", "left_hip", "left_ankle", SolverKind::kTwoBone,
       kDefaultMaxIterations, kDefaultTolerance},
      {"right_leg", "right_hip", "right_ankle", SolverKind::kTwoBone,
       kDefaultMaxIterations, kDefaultTolerance},
      // Clavicle to wrist: solved iteratively (AUTO: FABRIK).
      {"left_arm_clavicle", "left_clavicle", "left_wrist", SolverKind::kAuto,
       kClavicleArmMaxIterations, kClavicleArmTolerance},
      {"right_arm_clavicle", "right_clavicle", "right_wrist", SolverKind::kAuto,
       kClavicleArmMaxIterations, kClavicleArmTolerance},
  };
  CharacterDefinition character;
  RigDefinition& definition = character.rig;
  definition.name = "humanoid";
  for (const JointSpec& spec : joints) {
    JointDefinition joint;
    joint.name = spec.name;
    joint.parent = kNoParent;
    for (size_t i = 0; i < definition.joints.size(); ++i) {
      if (definition.joints[i].name == spec.parent) {
        joint.parent = static_cast<int>(i);
      }
    }
    joint.rest.translation = spec.translation;
    joint.rest.rotation = spec.rotation;
    joint.limit = spec.limit;
    definition.joints.push_back(joint);
  }
  for (const ChainSpec& spec : chains) {
    ChainDefinition chain;
    chain.name = spec.name;
    chain.root = spec.root;
    chain.tip = spec.tip;
    chain.solver = spec.solver;
    chain.max_iterations = spec.max_iterations;
    chain.tolerance = spec.tolerance;
    definition.chains.push_back(chain);
  }
  // The JSON's "legs": default settings but the ankle height.
  for (const std::string side : {"left", "right"}) {
    LegDefinition leg;
    leg.name = side + "_leg";
    leg.hip = side + "_hip";
    leg.knee = side + "_knee";
    leg.ankle = side + "_ankle";
    leg.toe = side + "_toe";
    leg.settings.ankle_height = kHumanoidAnkleHeight;
    character.legs.push_back(leg);
  }
  AddPonytail(character);
  return character;
}

// The humanoid's skeleton and chains alone.
inline RigDefinition HumanoidRigDefinition() {
  return HumanoidDefinition().rig;
}

inline absl::StatusOr<Rig> HumanoidRig() {
  return Rig::Create(HumanoidRigDefinition());
}

inline absl::StatusOr<Character> HumanoidCharacter() {
  return Character::Create(HumanoidDefinition());
}

}  // namespace ik::testing

#endif  // IK_TESTS_CORE_HUMANOID_RIG_H_
