// A rig (ik.v1.Rig) from a glTF 2.0 skin: `ikctl rigs import FILE.gltf`.
//
// The skin's joints become the rig's joints, parents before children; a
// joint's parent is its nearest ancestor node that is also a joint of the
// skin. Rest transforms come from the node hierarchy (matrix or TRS) in the
// default scene, every node above a joint included (an armature node's
// rotation or scale, e.g. Mixamo's 0.01), so the rest pose is the file's
// pose in model space. Our conventions are glTF's own -- metres, +Y up,
// +Z forward -- so nothing turns; scales are baked into the translations
// (the rig's joints carry unit scale: positions stay where the file puts
// them, in metres), and a non-uniform scale is reported in `notes`.
//
// Chains and legs are proposed for a humanoid skeleton when its bone names
// say so (VRM humanoid names, Mixamo's `mixamorig:LeftForeArm`, the common
// `upperarm_l` / `UpperArm.L` / `forearm` / `hand`, `thigh` / `calf` /
// `foot` / `ball` patterns): `left_arm` and `right_arm` (upper arm to hand),
// `left_leg` and `right_leg` (thigh to foot) as chains and as legs (with
// the toe when there is one, and the ankle's height above the lowest joint
// or the ground, whichever is lower), and the forward direction +Z. An
// unknown skeleton gets joints only; chains can be added by hand.
//
//   GltfImportOptions options;
//   options.name = "hero";
//   absl::StatusOr<GltfImport> imported = ImportGltfRig("hero.glb", options);
#ifndef IK_CLIENT_GLTF_GLTF_RIG_H_
#define IK_CLIENT_GLTF_GLTF_RIG_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "ik/v1/ik.pb.h"

namespace ik {

struct GltfChainSpec {
  std::string name;
  std::string root;  // joint name, as imported
  std::string tip;
};

struct GltfImportOptions {
  // The rig's name; empty: the file's name without its extension.
  std::string name;
  // Which skin of the file (skins[skin]).
  int skin = 0;
  // Chains added by hand, after the proposed ones (a proposed chain of the
  // same name is replaced).
  std::vector<GltfChainSpec> chains;
};

struct GltfImport {
  v1::Rig rig;
  // What was done that the caller may want to know: renamed joints,
  // proposed chains and legs, baked scales.
  std::vector<std::string> notes;
};

// INVALID_ARGUMENT naming the file and, where there is one, the glTF path
// (`nodes[3].translation`): a file that does not load (truncated, not
// glTF), no skin or no skins[skin], a node hierarchy with a cycle or a
// node with two parents, a non-finite transform, a hand-added chain whose
// joints are not a root-to-tip path.
absl::StatusOr<GltfImport> ImportGltfRig(const std::string& path,
                                         const GltfImportOptions& options);

}  // namespace ik

#endif  // IK_CLIENT_GLTF_GLTF_RIG_H_
