// A small rig for the inspector's tests: a straight chain up +Y from the
// root (base -> shoulder -> elbow -> wrist, 1 m bones), the elbow a hinge
// about +X within [0, 2] rad, a chain "arm" (shoulder..wrist), a leg
// "leg" (shoulder, elbow, wrist), a sphere collider on the elbow and a
// dynamic chain "tail" from the wrist down a branch (tip_a, and tip_b
// beside it).
#ifndef IK_TESTS_CLIENT_INSPECTOR_TEST_RIG_H_
#define IK_TESTS_CLIENT_INSPECTOR_TEST_RIG_H_

#include <string>

#include "ik/v1/recording.pb.h"

namespace ik::inspector {

inline v1::Joint* AddJoint(v1::Rig& rig, const std::string& name,
                           const std::string& parent, double up) {
  v1::Joint* joint = rig.add_joints();
  joint->set_name(name);
  if (!parent.empty()) joint->set_parent(parent);
  joint->mutable_rest()->mutable_translation()->set_y(up);
  return joint;
}

inline v1::RecordedRig TestRig() {
  v1::RecordedRig recorded;
  recorded.set_revision("sha256:test");
  v1::Rig& rig = *recorded.mutable_rig();
  rig.set_name("arm");
  AddJoint(rig, "base", "", 0.0);
  AddJoint(rig, "shoulder", "base", 1.0);
  v1::Joint* elbow = AddJoint(rig, "elbow", "shoulder", 1.0);
  v1::HingeLimit& hinge = *elbow->mutable_limit()->mutable_hinge();
  hinge.mutable_axis()->set_x(1.0);
  hinge.mutable_range()->set_max(2.0);
  AddJoint(rig, "wrist", "elbow", 1.0);
  AddJoint(rig, "tip_a", "wrist", 0.5);
  AddJoint(rig, "tip_b", "wrist", 0.5)
      ->mutable_rest()
      ->mutable_translation()
      ->set_x(0.1);
  v1::Chain& chain = *rig.add_chains();
  chain.set_name("arm");
  chain.set_root("shoulder");
  chain.set_tip("wrist");
  v1::Leg& leg = *rig.add_legs();
  leg.set_name("leg");
  leg.set_hip("shoulder");
  leg.set_knee("elbow");
  leg.set_ankle("wrist");
  v1::Collider& collider = *rig.add_colliders();
  collider.set_name("ball");
  collider.set_joint("elbow");
  collider.mutable_sphere()->mutable_center()->set_y(0.5);
  collider.mutable_sphere()->set_radius(0.1);
  v1::DynamicChain& tail = *rig.add_dynamic_chains();
  tail.set_name("tail");
  tail.set_root("wrist");
  tail.add_colliders("ball");
  return recorded;
}

}  // namespace ik::inspector

#endif  // IK_TESTS_CLIENT_INSPECTOR_TEST_RIG_H_
