// The description of a dynamic chain: the joints a dynamic-bone simulation
// moves (hair, tails, cloth strips, whips) and how they behave.
//
// A dynamic chain is a small tree of particles listed parent before child.
// Particle 0 is the driving root: it follows the animation exactly. Every
// other particle is simulated, hanging from its parent at a fixed bone
// length; branches are allowed (a parent may have several children). The
// parameters apply to the whole chain, and each joint may override them.
// Independent of ik::Rig: a rig (or a test) builds one from its joints'
// rest lengths.
//
//   ik::DynamicChain ponytail;
//   ponytail.joints.push_back({});                 // the root
//   for (int i = 1; i < 6; ++i) {
//     ik::DynamicJoint joint;
//     joint.parent = i - 1;
//     joint.length = 0.06;                          // metres
//     joint.radius = 0.02;                          // metres
//     ponytail.joints.push_back(joint);
//   }
//   ponytail.joints[5].overrides.drag = 0.2;       // a heavier tip
//   absl::Status status = ponytail.Validate();
#ifndef IK_DYNAMIC_CHAIN_H_
#define IK_DYNAMIC_CHAIN_H_

#include <optional>
#include <vector>

#include "absl/status/status.h"
#include "ik/base/math.h"
#include "ik/dynamics/wind_noise.h"

namespace ik {

// The root's parent index (the same value as ik::kNoParent; this header
// does not include rig.h, so that rig.h may include it).
inline constexpr int kDynamicRoot = -1;

// Limits DynamicChain::Validate enforces.
inline constexpr int kMaxDynamicJoints = 256;          // RESOURCE_EXHAUSTED
inline constexpr double kMinDynamicBoneLength = 1e-6;  // metres
inline constexpr double kMaxDynamicBoneLength = 1e3;   // metres
inline constexpr double kMaxDynamicRadius = 1e3;       // metres
inline constexpr double kMaxGravity = 1e4;             // m/s²
inline constexpr double kMaxWindScale = 1e3;
inline constexpr double kMinSubstep = 1e-4;  // seconds
inline constexpr double kMaxSubstep = 1.0;   // seconds
inline constexpr int kMaxSubstepsLimit = 1024;

// Per-joint values that replace the chain's. Unset: the chain's value.
struct DynamicJointOverrides {
  std::optional<double> drag;            // see DynamicChain::drag
  std::optional<Vec3> gravity;           // see DynamicChain::gravity
  std::optional<double> stiffness;       // see DynamicChain::stiffness
  std::optional<double> rotation_blend;  // see DynamicChain::rotation_blend
  std::optional<bool> remove_twist;      // see DynamicChain::remove_twist
  // Multiplies the chain's wind for this joint, in [0, kMaxWindScale]
  // (default 1): how much the wind catches it (a light tip, a sheltered
  // base).
  std::optional<double> wind_scale;
};

struct DynamicJoint {
  // Index of an earlier joint of the chain; kDynamicRoot for joint 0 and
  // for it only.
  int parent = kDynamicRoot;
  // Bone length from the parent, metres, in [kMinDynamicBoneLength,
  // kMaxDynamicBoneLength]: the simulation keeps it exactly. It is the
  // caller's responsibility to give the animated pose's length (usually the
  // rest pose's); rotations are exact only where the two agree. Ignored
  // for the root.
  double length = 0.0;
  // Collision radius of the joint, metres, in [0, kMaxDynamicRadius]: the
  // joint is a sphere of this radius when it meets a collider. Ignored for
  // the root.
  double radius = 0.0;
  // Ignored for the root except `rotation_blend` and `remove_twist` (the
  // root turns towards its children like any other parent).
  DynamicJointOverrides overrides;
};

// Plain data with in-class defaults; Validate() before use (the step job
// does). Thread-compatible: immutable once built, shareable between threads.
struct DynamicChain {
  // Parent before child; joints[0] is the driving root. 2..kMaxDynamicJoints.
  std::vector<DynamicJoint> joints;

  // --- Per chain; each joint may override. ---
  // Drag r of the Verlet step p' = p + (p - p_prev)(1 - r) + a dt^2,
  // in [0, 1], applied once per substep (so its effect per second depends
  // on `substep`): 0 keeps all velocity (swings longest), 1 removes it
  // every substep (no inertia: the chain creeps where the forces push it).
  double drag = 0.05;
  // Gravity, m/s², world space (the simulation's frame), each component
  // within +-kMaxGravity. Only its part normal to the bone accelerates the
  // joint (g_v = g - (g.u / |u|^2) u, u = parent -> joint).
  Vec3 gravity{0.0, -9.81, 0.0};
  // Pull towards the animated pose, in [0, 1]: the fraction of the way to
  // its animated position a joint moves each substep, after the Verlet step
  // and before the constraints. 0: free; 1: follows the animation.
  double stiffness = 0.0;
  // How far a joint's rotation follows its simulated bone direction, in [0, 1]:
  // each substep the rotation turns by lerp(identity, turn, rotation_blend) of
  // the turn that would align it (smoothing by a lerp from the identity). 1: no
  // smoothing, the rotations match the simulated positions; smaller values
  // filter large swings (the rendered chain lags the simulated one); 0 freezes
  // the rotations.
  double rotation_blend = 1.0;
  // Remove each rotation's twist about the joint's own bone (swing-twist
  // decomposition), so that smoothing and branching cannot wind the chain
  // up over time.
  bool remove_twist = true;
  // Wind, the same field for every joint (scaled per joint by
  // overrides.wind_scale); its noise time is part of the step's state.
  WindSettings wind;

  // --- Per chain only. ---
  // Fixed internal time step, seconds, in [kMinSubstep, kMaxSubstep]. Steps
  // of any length are integrated in whole substeps; the remainder carries
  // over in the state, so callers at 30 Hz and 120 Hz see the same motion.
  double substep = 1.0 / 120.0;
  // Most substeps one step runs, in [1, kMaxSubstepsLimit]; a longer step is
  // clamped (the excess time is dropped and the report says so).
  int max_substeps = 16;
  // When the root moves further than this between steps, metres, the
  // simulation restarts at rest in the animated pose (respawns, cuts).
  // > 0; +infinity disables it.
  double teleport_distance = 1.0;
  // Follow-the-leader velocity correction (Mueller et al. 2012, "Fast
  // Simulation of Inextensible Hair and Fur", DFTL), in [0, 1]: each
  // substep, the length correction that moved a joint's children (their
  // mean) is taken, times this, out of the joint's velocity. The length
  // constraint alone feeds energy up a long, low-drag chain, which then
  // whips above its root; the correction damps that whip without damping
  // the swing. 0 (default): off; about 0.9 is the paper's choice.
  double follow_the_leader = 0.0;

  // INVALID_ARGUMENT naming the field ("joints[3].parent: ...",
  // "joints[2].overrides.drag: ...", "wind.strength: ...") for a bad parent
  // (joint 0 must be the only root; others must name an earlier joint),
  // a length, radius or parameter out of its range, or a non-finite number;
  // RESOURCE_EXHAUSTED for more than kMaxDynamicJoints joints.
  absl::Status Validate() const;

  // The chain-wide parameters only (not the joints), each named
  // "<path>.<field>" ("dynamic_chains[0].drag: ..."; the field alone for an
  // empty path).
  absl::Status ValidateParameters(absl::string_view path = "") const;
};

// One joint's overrides, each named "<path>.<field>" ("...joints[2].drag").
absl::Status ValidateDynamicJointOverrides(
    const DynamicJointOverrides& overrides, absl::string_view path);

}  // namespace ik

#endif  // IK_DYNAMIC_CHAIN_H_
