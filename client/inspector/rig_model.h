// A recorded rig (ik.v1.Rig) as the core builds it (ik::Rig::Create), with
// the parts the inspector draws -- legs, dynamic chains, colliders --
// resolved to joint indices. The inspector computes every position with
// this core rig (forward kinematics, joint limits), not with the proto.
//
//   absl::StatusOr<RigModel> model = BuildRigModel(recorded_rig);
//   if (model.ok()) WriteRigJson(*model, json);
#ifndef IK_CLIENT_INSPECTOR_RIG_MODEL_H_
#define IK_CLIENT_INSPECTOR_RIG_MODEL_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "ik/rig/rig.h"
#include "ik/v1/recording.pb.h"
#include "ik/v1/solve.pb.h"
#include "json_writer.h"

namespace ik::inspector {

struct RigModel {
  // A part and the rig joints it moves or rides on.
  struct Part {
    std::string name;
    std::vector<int> joints;
  };
  // A collider: its joint, and the shape in that joint's space.
  struct Collider {
    std::string name;
    int joint = kNoParent;
    bool capsule = false;
    Vec3 start{0.0, 0.0, 0.0};  // a sphere's centre, a capsule's start
    Vec3 end{0.0, 0.0, 0.0};    // a capsule's end
    double radius = 0.0;
  };
  struct DynamicChain {
    std::string name;
    // The driving root and every joint below it, parents first.
    std::vector<int> joints;
    // Indices into `colliders`.
    std::vector<int> colliders;
  };

  explicit RigModel(Rig core_rig) : rig(std::move(core_rig)) {}

  std::string revision;
  Rig rig;
  std::vector<Part> legs;  // hip, knee, ankle and toe when it has one
  std::vector<Collider> colliders;
  std::vector<DynamicChain> dynamic_chains;
};

// Builds the core rig from `recorded.rig()` (joints, limits, chains, forward
// axis; the solvers' settings are not needed to draw) and resolves its
// parts. The error of Rig::Create, naming the field, when it does not build
// (a recording holds rigs the server accepted, so that means a rig from
// another version of ikd).
absl::StatusOr<RigModel> BuildRigModel(const v1::RecordedRig& recorded);

// The joints a goal's chain turns, root to tip: a chain of the rig by name,
// or an ad hoc root-to-tip chain; empty when the rig has no such chain.
std::vector<int> GoalChainJoints(const RigModel& model,
                                 const v1::ChainGoal& goal);

// The rig for the page: joints (name, parent, limit as the core holds it),
// chains, legs, colliders and dynamic chains by joint index.
void WriteRigJson(const RigModel& model, JsonWriter& json);

}  // namespace ik::inspector

#endif  // IK_CLIENT_INSPECTOR_RIG_MODEL_H_
