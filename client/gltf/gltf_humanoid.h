// The part of the glTF import (gltf_rig.h) that knows humanoid skeletons:
// which bone names mean which limb, and the chains and legs proposed from
// them. Internal to the importer.
#ifndef IK_CLIENT_GLTF_GLTF_HUMANOID_H_
#define IK_CLIENT_GLTF_GLTF_HUMANOID_H_

#include <string>
#include <vector>

#include "glm/gtc/quaternion.hpp"
#include "glm/vec3.hpp"
#include "ik/v1/ik.pb.h"

namespace ik::gltf_import {

// One joint of the skin, in rig order (parents first), its rest pose in
// model space.
struct ImportedJoint {
  int node = 0;
  int parent = -1;        // index into the imported joints
  std::string name;       // as imported (a valid rig name)
  std::string node_name;  // as the file has it
  glm::dvec3 position_model{0.0};
  glm::dquat rotation_model{1.0, 0.0, 0.0, 0.0};
};

// The joint path root .. tip (indices into `joints`), empty when tip does
// not descend from root.
std::vector<int> PathBetween(const std::vector<ImportedJoint>& joints, int root,
                             int tip);

// Adds to `rig` the arms and legs (chains, and legs with toe and ankle
// height) that the joints' node names name, and forward +Z when it found
// any; says what it did, or why a limb was left out, in `notes`.
void ProposeHumanoidParts(const std::vector<ImportedJoint>& joints,
                          v1::Rig& rig, std::vector<std::string>& notes);

}  // namespace ik::gltf_import

#endif  // IK_CLIENT_GLTF_GLTF_HUMANOID_H_
