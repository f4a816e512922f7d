// The rig model: a validated joint hierarchy with limits and named chains
// (the skeleton and what solves on it; the parts built on a rig -- legs,
// colliders, dynamic chains -- live in their own modules).
//
// A Rig is immutable once created and safe to share between threads. Create
// one from a RigDefinition with Rig::Create, which checks every field and
// names the first offending one with a path that mirrors the API's field
// names (e.g. "joints[3].rest.rotation: not a unit quaternion (norm 0)"):
//
//   ik::RigDefinition def;
//   def.name = "arm";
//   def.joints = {...};
//   absl::StatusOr<ik::Rig> rig = ik::Rig::Create(std::move(def));
//   if (!rig.ok()) return rig.status();
#ifndef IK_RIG_H_
#define IK_RIG_H_

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "ik/base/defaults.h"
#include "ik/base/joint_limits.h"
#include "ik/base/math.h"
#include "ik/base/validate.h"
#include "ik/solvers/swivel.h"
#include "ik/solvers/torque_settings.h"

namespace ik {

struct JointDefinition {
  std::string name;
  int parent = kNoParent;  // index of an earlier joint, or kNoParent
  Transform rest;          // local to the parent
  JointLimit limit;
};

// kAuto: two-bone for 3-joint chains, FABRIK otherwise.
enum class SolverKind { kAuto, kTwoBone, kFabrik, kCcd, kTorque };

// Whether `solver` is one of the kinds above (a cast integer may not be).
inline bool IsKnownSolver(SolverKind solver) {
  return solver == SolverKind::kAuto || solver == SolverKind::kTwoBone ||
         solver == SolverKind::kFabrik || solver == SolverKind::kCcd ||
         solver == SolverKind::kTorque;
}

// One joint's torque-solver settings, by name; an unset preferred rotation
// is the joint's rest rotation.
struct TorqueJointDefinition {
  std::string joint;
  TorqueJointSettings settings;
  bool has_preferred_rotation = false;
};

struct ChainDefinition {
  std::string name;
  std::string root;  // joint name
  std::string tip;   // joint name, a descendant of root
  SolverKind solver = SolverKind::kAuto;
  int max_iterations = kDefaultMaxIterations;  // >= 1
  double tolerance = kDefaultTolerance;        // metres, >= 0
  // Swivel goals (ik/solvers/swivel.h): the space the zero-plane map is fixed
  // in, and how close (radians, [0, pi/2]) the EE axis may come to one of the
  // map's singular directions before a result reports near_singularity.
  SwivelSpace swivel_space = SwivelSpace::kStartParent;
  double flip_warning_angle = kDefaultFlipWarningAngle;
  // The preferred pose the zero-plane map is built from: the rig's rest
  // pose with these local rotations of the chain's joints or the root's
  // ancestors (each joint at most once). Empty: the rest pose.
  std::vector<PreferredJointRotation> preferred_pose;
  // The torque solver's settings (ik/solvers/torque_settings.h);
  // `torque.joints` is ignored: per-joint settings go in `torque_joints`, by
  // name (joints of the chain before its tip, each once; the others get the
  // defaults).
  TorqueSettings torque;
  std::vector<TorqueJointDefinition> torque_joints;
};

struct RigDefinition {
  std::string name;
  std::vector<JointDefinition> joints;  // parents before children
  std::vector<ChainDefinition> chains;
  // The character's forward direction in model space (the toe rays are cast
  // ahead of the ankles along it); non-zero, normalised by Create.
  Vec3 forward{0.0, 0.0, 1.0};
};

// A validated chain: joint indices from root to tip along parent links.
struct Chain {
  std::string name;
  std::vector<int> joints;  // joints.front() is the root, back() the tip
  // The root joint's ancestors, top-most first (each the parent of the
  // next): what forward kinematics visits on the way down to the chain.
  std::vector<int> ancestors;
  SolverKind solver = SolverKind::kAuto;
  int max_iterations = kDefaultMaxIterations;
  double tolerance = kDefaultTolerance;
  // Swivel settings as defined (ik/solvers/swivel.h).
  SwivelSpace swivel_space = SwivelSpace::kStartParent;
  double flip_warning_angle = kDefaultFlipWarningAngle;
  // Local rotation of each chain joint in the preferred pose (parallel to
  // `joints`): where a swivel solve starts from.
  std::vector<Quat> preferred_rotations;
  // The preferred pose's zero-plane map in `swivel_space`; unset when the
  // chain is straight in it (a swivel goal then fails).
  std::optional<ZeroPlaneMap> zero_plane_map;
  // The torque solver's settings; `torque.joints` is left empty (spans do
  // not survive copies): `torque_joints` holds one per chain joint.
  TorqueSettings torque;
  std::vector<TorqueJointSettings> torque_joints;
};

// Immutable, validated rig. Thread-safe for concurrent reads.
class Rig {
 public:
  // Validates `definition` and builds the rig. Checks: a non-empty name of at
  // most kMaxNameLength characters; 1..kMaxJoints joints; non-empty, unique
  // joint names; parents that come earlier (so no cycles); finite numbers;
  // rest rotations within 1e-3 of unit length (normalised); positive scale;
  // limits with non-zero axes, ordered ranges within [-pi, pi] and cone angles
  // in (0, pi], the rest pose within each (joints[i].limit); chains with unique
  // names whose tip descends from their root in 2..kMaxChainJoints joints with
  // no zero-length bone, iteration caps >= 1 and non-negative tolerances,
  // torque settings in range for joints of the chain; two-bone chains of
  // exactly 3 joints; unique chain names; a finite non-zero forward axis. (A
  // character's legs, colliders and dynamic chains are parts of their own, each
  // checked by its module against the rig: ik/character/character.h.) Errors
  // are INVALID_ARGUMENT for malformed fields (an empty name too), NOT_FOUND
  // for names that refer to no joint and RESOURCE_EXHAUSTED for more than
  // kMaxJoints joints, each prefixed by the field path. Ball-and-socket limits
  // with axis_from_child get their axis filled in (error if the joint has no
  // child, or its first child sits on it); all limit axes are normalised.
  static absl::StatusOr<Rig> Create(RigDefinition definition);

  const std::string& name() const { return name_; }
  int joint_count() const { return static_cast<int>(joints_.size()); }
  absl::Span<const JointDefinition> joints() const { return joints_; }
  const JointDefinition& joint(int index) const { return joints_[index]; }
  // Parent index per joint (kNoParent for roots), for forward kinematics.
  absl::Span<const int> parents() const { return parents_; }
  // Rest local transform per joint.
  absl::Span<const Transform> rest_pose() const { return rest_pose_; }
  absl::Span<const Chain> chains() const { return chains_; }
  // Unit forward direction, model space.
  const Vec3& forward() const { return forward_; }

  // Index of the joint called `name`, or kNoParent when there is none.
  int FindJoint(absl::string_view name) const;
  // The chain called `name`, or nullptr.
  const Chain* FindChain(absl::string_view name) const;

  // Builds and validates an ad hoc chain of this rig with the same checks as
  // a chain given to Create (errors name the fields of `definition`, e.g.
  // "tip: unknown joint 'x'"), for requests that name a root and a tip
  // instead of a registered chain. The name is taken as given: its checks
  // (non-empty, length, unique) are about a rig's own chains.
  absl::StatusOr<Chain> MakeChain(const ChainDefinition& definition) const;

 private:
  Rig() = default;

  // The chain validation shared by Create and MakeChain (rig_chain.cc): the
  // definition's root, tip, solver, iteration cap, tolerance, swivel,
  // preferred pose and torque settings (not its name), with error paths
  // prefixed by `path_prefix` ("chains[2]." or "").
  absl::StatusOr<Chain> BuildChain(const ChainDefinition& definition,
                                   absl::string_view path_prefix) const;
  // Builds chains_ from `chains` (unique, valid names; each by BuildChain),
  // once the joints are in place.
  absl::Status BuildChains(const std::vector<ChainDefinition>& chains);

  std::string name_;
  std::vector<JointDefinition> joints_;
  std::vector<int> parents_;
  std::vector<Transform> rest_pose_;
  std::vector<Chain> chains_;
  Vec3 forward_{0.0, 0.0, 1.0};
  // (name, index) sorted by name, for FindJoint.
  std::vector<std::pair<std::string, int>> joint_index_;
};

// Checks that `rotation` is finite and within 1e-3 of unit length and returns
// it normalised; otherwise INVALID_ARGUMENT "<path>: not a unit quaternion
// (norm N)" or "<path>: not finite".
absl::StatusOr<Quat> NormalizeRotation(const Quat& rotation,
                                       absl::string_view path);

// Checks a transform (finite translation, unit rotation, finite positive
// scale) and returns it with its rotation normalised. Errors name
// "<path>.translation", "<path>.rotation" or "<path>.scale".
absl::StatusOr<Transform> ValidateTransform(const Transform& transform,
                                            absl::string_view path);

// What ValidateTransform accepts (up to the rounding of the norm's square at
// the tolerance's edges), without building a path or taking a square root:
// the test a job runs before it calls ValidateTransform for the error.
inline bool TransformLooksValid(const Transform& transform) {
  constexpr double kMinNormSq =
      (1.0 - kUnitQuatTolerance) * (1.0 - kUnitQuatTolerance);
  constexpr double kMaxNormSq =
      (1.0 + kUnitQuatTolerance) * (1.0 + kUnitQuatTolerance);
  const Vec3& t = transform.translation;
  const Quat& q = transform.rotation;
  const Vec3& s = transform.scale;
  const double norm_sq = (q.w * q.w + q.x * q.x) + (q.y * q.y + q.z * q.z);
  // x * 0 is 0 for finite x and NaN otherwise, and NaN fails every
  // comparison: one test for all six coordinates. `&` rather than `&&`:
  // every test is cheap, a branch per test is not.
  const double zero = ((t.x * 0.0 + t.y * 0.0) + (t.z * 0.0 + s.x * 0.0)) +
                      (s.y * 0.0 + s.z * 0.0);
  bool valid = zero == 0.0;
  valid &= norm_sq >= kMinNormSq;
  valid &= norm_sq <= kMaxNormSq;
  valid &= s.x > 0.0;
  valid &= s.y > 0.0;
  valid &= s.z > 0.0;
  return valid;
}

}  // namespace ik

#endif  // IK_RIG_H_
