#include "ik/dynamics/prepared_dynamic_chain.h"

#include <memory>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "dynamics/dynamics_internal.h"

namespace ik {
namespace dynamics_internal {

void PrepareJoints(const DynamicChain& chain, PreparedJoint* joints,
                   ChainView* view) {
  const int count = static_cast<int>(chain.joints.size());
  bool strand = true;
  bool shortest_arc = true;
  for (int i = 0; i < count; ++i) {
    const DynamicJoint& joint = chain.joints[i];
    const DynamicJointOverrides& overrides = joint.overrides;
    PreparedJoint& prepared = joints[i];
    prepared.parent = joint.parent;
    prepared.children = 0;
    prepared.length = i == 0 ? 0.0 : joint.length;
    prepared.radius = i == 0 ? 0.0 : joint.radius;
    prepared.keep = 1.0 - overrides.drag.value_or(chain.drag);
    prepared.gravity =
        overrides.gravity.has_value() ? *overrides.gravity : chain.gravity;
    prepared.stiffness = overrides.stiffness.value_or(chain.stiffness);
    prepared.wind_scale = overrides.wind_scale.value_or(1.0);
    prepared.own_rotation_blend = overrides.rotation_blend.has_value();
    prepared.rotation_blend =
        overrides.rotation_blend.value_or(chain.rotation_blend);
    prepared.remove_twist = overrides.remove_twist.value_or(chain.remove_twist);
    shortest_arc &= prepared.rotation_blend == 1.0 && prepared.remove_twist;
    if (i > 0) {
      strand &= joint.parent == i - 1;
      ++joints[joint.parent].children;
    }
  }
  // reach = path + radius with path[i] = path[parent] + length, the same
  // sums in the same order as the colliders' culling has always used.
  double path[kMaxDynamicJoints];
  path[0] = 0.0;
  joints[0].reach = 0.0;
  for (int i = 1; i < count; ++i) {
    path[i] = path[joints[i].parent] + joints[i].length;
    joints[i].reach = path[i] + joints[i].radius;
  }
  view->chain = &chain;
  view->joints = joints;
  view->count = count;
  view->strand = strand;
  view->shortest_arc = shortest_arc;
  view->wind = &chain.wind;
}

}  // namespace dynamics_internal

absl::StatusOr<PreparedDynamicChain> PreparedDynamicChain::Create(
    const DynamicChain& chain) {
  if (absl::Status status = chain.Validate(); !status.ok()) return status;
  auto layout = std::make_shared<dynamics_internal::ChainLayout>();
  layout->chain = chain;
  layout->joints.resize(chain.joints.size());
  dynamics_internal::PrepareJoints(layout->chain, layout->joints.data(),
                                   &layout->view);
  PreparedDynamicChain prepared;
  prepared.layout_ = std::move(layout);
  return prepared;
}

const DynamicChain& PreparedDynamicChain::chain() const {
  return layout_->chain;
}

}  // namespace ik
