// Conversion between the API's protobuf messages and the core's types, with
// validation at the edge. Every error message starts with the field path of
// the offending input relative to the request (e.g. "rig.joints[2].parent",
// "pose.joints[0].local.rotation", "goals[1].target").
//
// The core never sees a protobuf type; this file is the only place that
// knows both.
#ifndef IK_SERVER_CONVERT_H_
#define IK_SERVER_CONVERT_H_

#include <deque>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "ik/math.h"
#include "ik/rig.h"
#include "ik/solve_chain.h"
#include "ik/v1/ik.pb.h"
#include "server/service_limits.h"

namespace ik::server {

// Wire <-> core for plain values (no validation).
Vec3 FromProto(const v1::Vec3& v);
Quat FromProto(const v1::Quat& q);
v1::Vec3 ToProto(const Vec3& v);
v1::Quat ToProto(const Quat& q);

// A transform with unset sub-fields taken from `defaults`, validated (finite,
// unit rotation normalised, positive scale); errors name `path`.
absl::StatusOr<Transform> TransformFromProto(const v1::Transform& transform,
                                             const Transform& defaults,
                                             absl::string_view path);

// Converts and validates a rig definition. `prefix` starts every error
// message ("rig." in a request, "<file>: " for a rig file). Checks the size
// limits first (RESOURCE_EXHAUSTED), then resolves parent references, then
// lets Rig::Create check the rest.
absl::StatusOr<Rig> RigFromProto(const v1::Rig& rig,
                                 const ServiceLimits& limits,
                                 absl::string_view prefix);

// The rig as stored and hashed: `rig` with every rest rotation replaced by
// the normalised one of `validated`.
v1::Rig NormalizedRig(const v1::Rig& rig, const Rig& validated);

// The content hash of a (normalised) rig or a terrain: "sha256:" and 16 hex
// digits of the SHA-256 of its deterministic serialisation.
std::string ContentRevision(const google::protobuf::Message& normalized);

// One joint's local rotation in an answer: its name, index and rotation.
void AddJointRotation(
    const Rig& rig, int joint, const Quat& rotation,
    google::protobuf::RepeatedPtrField<v1::JointRotation>* rotations);

// A pose as dense local transforms (rest pose plus the overrides) and the
// root transform. Errors name "pose....".
struct DensePose {
  Transform root;
  std::vector<Transform> locals;
};
absl::StatusOr<DensePose> PoseFromProto(const v1::Pose& pose, const Rig& rig);

// A goal of a SolveChain request; `index` is its position in `goals`. An ad
// hoc chain is validated like a rig chain and stored in `ad_hoc_chains`
// (whose elements never move), which must outlive the returned goal.
absl::StatusOr<ChainGoal> GoalFromProto(const v1::ChainGoal& goal,
                                        const Rig& rig, int index,
                                        std::deque<Chain>& ad_hoc_chains);

// The answer for one solved goal: local rotations of the chain's joints,
// taken from `locals` (the tip's too when the goal had an orientation).
v1::GoalResult GoalResultToProto(const ChainGoal& goal, const Rig& rig,
                                 const ChainSolveResult& result,
                                 const std::vector<Transform>& locals);

}  // namespace ik::server

#endif  // IK_SERVER_CONVERT_H_
