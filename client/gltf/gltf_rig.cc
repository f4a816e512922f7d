#include "gltf_rig.h"

#include <tiny_gltf.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <fstream>
#include <map>
#include <set>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "glm/gtc/quaternion.hpp"
#include "glm/gtc/type_ptr.hpp"
#include "glm/mat3x3.hpp"
#include "glm/mat4x4.hpp"
#include "gltf_humanoid.h"

namespace ik {
namespace {

using gltf_import::ImportedJoint;
using gltf_import::PathBetween;

constexpr size_t kMaxNameLength = 128;

// --- Loading --------------------------------------------------------------

// Images are not needed for a skeleton: accept them unread.
bool SkipImage(tinygltf::Image*, const int, std::string*, std::string*, int,
               int, const unsigned char*, int, void*) {
  return true;
}

bool IsBinary(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  char magic[4] = {};
  file.read(magic, 4);
  return file.gcount() == 4 && std::string(magic, 4) == "glTF";
}

absl::StatusOr<tinygltf::Model> Load(const std::string& path) {
  tinygltf::TinyGLTF loader;
  loader.SetImageLoader(SkipImage, nullptr);
  tinygltf::Model model;
  std::string error;
  std::string warning;
  const bool loaded =
      IsBinary(path) ? loader.LoadBinaryFromFile(&model, &error, &warning, path)
                     : loader.LoadASCIIFromFile(&model, &error, &warning, path);
  if (!loaded) {
    return absl::InvalidArgumentError(absl::StrCat(
        path, ": not a glTF 2.0 file that loads: ",
        std::string(
            absl::StripAsciiWhitespace(error.empty() ? warning : error))));
  }
  return model;
}

// --- The node hierarchy -----------------------------------------------------

struct Hierarchy {
  std::vector<int> parent;        // per node, -1 for a scene root
  std::vector<glm::dmat4> world;  // per node, model space
};

absl::Status NotFinite(const std::string& path, int node, const char* field) {
  return absl::InvalidArgumentError(
      absl::StrCat(path, ": nodes[", node, "].", field, ": not finite"));
}

absl::StatusOr<glm::dmat4> LocalMatrix(const std::string& path,
                                       const tinygltf::Node& node, int index) {
  for (double value : node.matrix) {
    if (!std::isfinite(value)) return NotFinite(path, index, "matrix");
  }
  if (node.matrix.size() == 16) {
    return glm::make_mat4(node.matrix.data());  // column-major, as glTF
  }
  glm::dvec3 translation(0.0);
  glm::dquat rotation(1.0, 0.0, 0.0, 0.0);  // (w, x, y, z)
  glm::dvec3 scale(1.0);
  const std::pair<const std::vector<double>*, const char*> fields[] = {
      {&node.translation, "translation"},
      {&node.rotation, "rotation"},
      {&node.scale, "scale"}};
  for (const auto& [values, name] : fields) {
    for (double value : *values) {
      if (!std::isfinite(value)) return NotFinite(path, index, name);
    }
  }
  if (node.translation.size() == 3) {
    translation = glm::make_vec3(node.translation.data());
  }
  if (node.rotation.size() == 4) {
    // glTF's order is x, y, z, w; GLM's constructor takes w first.
    rotation = glm::normalize(glm::dquat(node.rotation[3], node.rotation[0],
                                         node.rotation[1], node.rotation[2]));
  }
  if (node.scale.size() == 3) scale = glm::make_vec3(node.scale.data());
  glm::dmat4 matrix = glm::mat4_cast(rotation);
  for (int column = 0; column < 3; ++column) matrix[column] *= scale[column];
  matrix[3] = glm::dvec4(translation, 1.0);
  return matrix;
}

// Each node's parent, -1 for a scene root; INVALID_ARGUMENT for a child
// that is not a node, a node with two parents, or a cycle.
absl::StatusOr<std::vector<int>> ParentsOf(const std::string& path,
                                           const tinygltf::Model& model) {
  const int count = static_cast<int>(model.nodes.size());
  std::vector<int> parent(count, -1);
  for (int i = 0; i < count; ++i) {
    const std::vector<int>& children = model.nodes[i].children;
    for (size_t k = 0; k < children.size(); ++k) {
      const int child = children[k];
      if (child < 0 || child >= count) {
        return absl::InvalidArgumentError(
            absl::StrCat(path, ": nodes[", i, "].children[", k, "]: ", child,
                         " is not a node"));
      }
      if (parent[child] != -1 || child == i) {
        return absl::InvalidArgumentError(absl::StrCat(
            path, ": nodes[", child, "]: a child of nodes[",
            parent[child] == -1 ? i : parent[child], "] and of nodes[", i,
            "] (a node has one parent at most)"));
      }
      parent[child] = i;
    }
  }
  // With one parent each, a cycle is a walk up that never ends.
  for (int i = 0; i < count; ++i) {
    int steps = 0;
    for (int at = parent[i]; at != -1; at = parent[at]) {
      if (++steps > count) {
        return absl::InvalidArgumentError(
            absl::StrCat(path, ": nodes[", i, "]: its ancestors form a cycle"));
      }
    }
  }
  return parent;
}

// Each node's model-space matrix, given its parents (ParentsOf);
// INVALID_ARGUMENT for a transform that is not finite.
absl::StatusOr<std::vector<glm::dmat4>> WorldMatrices(
    const std::string& path, const tinygltf::Model& model,
    const std::vector<int>& parent) {
  const int count = static_cast<int>(model.nodes.size());
  std::vector<glm::dmat4> local(count);
  for (int i = 0; i < count; ++i) {
    absl::StatusOr<glm::dmat4> matrix = LocalMatrix(path, model.nodes[i], i);
    if (!matrix.ok()) return matrix.status();
    local[i] = *matrix;
  }
  std::vector<glm::dmat4> world(count, glm::dmat4(1.0));
  std::vector<bool> done(count, false);
  for (int i = 0; i < count; ++i) {
    std::vector<int> up;  // i and its ancestors not computed yet
    for (int at = i; at != -1 && !done[at]; at = parent[at]) {
      up.push_back(at);
    }
    for (auto it = up.rbegin(); it != up.rend(); ++it) {
      world[*it] =
          parent[*it] == -1 ? local[*it] : world[parent[*it]] * local[*it];
      done[*it] = true;
    }
  }
  // Finite numbers can still overflow once multiplied down the hierarchy.
  for (int i = 0; i < count; ++i) {
    for (int column = 0; column < 4; ++column) {
      for (int row = 0; row < 4; ++row) {
        if (!std::isfinite(world[i][column][row])) {
          return absl::InvalidArgumentError(absl::StrCat(
              path, ": nodes[", i,
              "]: its model-space transform is not finite (the scales or "
              "translations above it overflow)"));
        }
      }
    }
  }
  return world;
}

absl::StatusOr<Hierarchy> BuildHierarchy(const std::string& path,
                                         const tinygltf::Model& model) {
  Hierarchy hierarchy;
  absl::StatusOr<std::vector<int>> parent = ParentsOf(path, model);
  if (!parent.ok()) return parent.status();
  hierarchy.parent = *std::move(parent);
  absl::StatusOr<std::vector<glm::dmat4>> world =
      WorldMatrices(path, model, hierarchy.parent);
  if (!world.ok()) return world.status();
  hierarchy.world = *std::move(world);
  return hierarchy;
}

// --- Names ------------------------------------------------------------------

bool ValidNameCharacter(char c) {
  return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '_' ||
         c == '-' || c == '.';
}

// The node's name made a valid, unique joint name.
std::string JointName(const tinygltf::Node& node, int index,
                      std::set<std::string>& taken) {
  std::string name = node.name.substr(0, kMaxNameLength);
  for (char& c : name) {
    if (!ValidNameCharacter(c)) c = '_';
  }
  if (name.empty()) name = absl::StrCat("joint_", index);
  const std::string base = name.substr(0, kMaxNameLength - 6);
  for (int n = 2; !taken.insert(name).second; ++n) {
    name = absl::StrCat(base, "_", n);
  }
  return name;
}

// --- The skin ---------------------------------------------------------------

// options.skin's skin; INVALID_ARGUMENT when the file has no such skin or
// it lists no joints.
absl::StatusOr<const tinygltf::Skin*> SelectSkin(
    const std::string& path, const tinygltf::Model& model,
    const GltfImportOptions& options) {
  if (model.skins.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": skins: the file has no skin (no skeleton)"));
  }
  if (options.skin < 0 ||
      options.skin >= static_cast<int>(model.skins.size())) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": skins[", options.skin, "]: the file has ",
                     model.skins.size(), " skin(s)"));
  }
  const tinygltf::Skin& skin = model.skins[options.skin];
  if (skin.joints.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": skins[", options.skin, "].joints: empty"));
  }
  return &skin;
}

// The skin's joints as a tree, by position in skin.joints.
struct SkinTree {
  std::vector<int> parent;  // -1 for a root
  std::vector<int> order;   // parents before children
};

// Each joint's parent is its nearest joint ancestor; the order is depth
// first from the roots, in skin order. INVALID_ARGUMENT (under
// `skin_path`) for a joint that is not a node or is listed twice.
absl::StatusOr<SkinTree> TreeOf(const std::string& skin_path,
                                const tinygltf::Skin& skin, int node_count,
                                const Hierarchy& hierarchy) {
  std::map<int, int> skin_index;  // node -> position in skin.joints
  for (size_t k = 0; k < skin.joints.size(); ++k) {
    const int node = skin.joints[k];
    if (node < 0 || node >= node_count ||
        !skin_index.emplace(node, static_cast<int>(k)).second) {
      return absl::InvalidArgumentError(
          absl::StrCat(skin_path, ".joints[", k, "]: ", node,
                       " is not a node, or is listed twice"));
    }
  }
  SkinTree tree;
  tree.parent.assign(skin.joints.size(), -1);
  std::vector<std::vector<int>> children(skin.joints.size());
  std::vector<int> roots;
  for (size_t k = 0; k < skin.joints.size(); ++k) {
    int at = hierarchy.parent[skin.joints[k]];
    while (at != -1 && skin_index.count(at) == 0) at = hierarchy.parent[at];
    if (at == -1) {
      roots.push_back(static_cast<int>(k));
    } else {
      tree.parent[k] = skin_index[at];
      children[tree.parent[k]].push_back(static_cast<int>(k));
    }
  }
  std::vector<int> stack(roots.rbegin(), roots.rend());
  while (!stack.empty()) {
    const int k = stack.back();
    stack.pop_back();
    tree.order.push_back(k);
    stack.insert(stack.end(), children[k].rbegin(), children[k].rend());
  }
  return tree;
}

// --- The rig ----------------------------------------------------------------

void SetVec(const glm::dvec3& value, v1::Vec3& out) {
  out.set_x(value.x);
  out.set_y(value.y);
  out.set_z(value.z);
}

// Rotation and uniform-ness of a model-space matrix's upper 3x3.
struct Frame {
  glm::dquat rotation;
  bool uniform_scale = true;
  bool mirrored = false;
};

Frame FrameOf(const glm::dmat4& matrix) {
  glm::dmat3 basis(matrix);
  Frame frame;
  const glm::dvec3 lengths(glm::length(basis[0]), glm::length(basis[1]),
                           glm::length(basis[2]));
  for (int i = 0; i < 3; ++i) basis[i] /= lengths[i];
  frame.mirrored = glm::determinant(basis) < 0.0;
  const double largest = std::max({lengths.x, lengths.y, lengths.z});
  frame.uniform_scale =
      largest - std::min({lengths.x, lengths.y, lengths.z}) <= 1e-6 * largest;
  frame.rotation = glm::normalize(glm::quat_cast(basis));
  return frame;
}

std::string BaseName(const std::string& path) {
  std::string name = path.substr(path.find_last_of('/') + 1);
  const size_t dot = name.rfind('.');
  if (dot != std::string::npos && dot > 0) name = name.substr(0, dot);
  for (char& c : name) {
    if (!ValidNameCharacter(c)) c = '_';
  }
  return name.empty() ? "imported" : name.substr(0, kMaxNameLength);
}

// Adds `joint` to `rig` with its local rest: relative to the parent's
// rotation and position, so scales end up in the translations (in metres)
// and the joints carry none. `joints`: those imported before it.
void AddRigJoint(const ImportedJoint& joint,
                 const std::vector<ImportedJoint>& joints, v1::Rig& rig) {
  glm::dvec3 translation = joint.position_model;
  glm::dquat rotation = joint.rotation_model;
  if (joint.parent != -1) {
    const ImportedJoint& parent = joints[joint.parent];
    const glm::dquat inverse = glm::conjugate(parent.rotation_model);
    translation = inverse * (joint.position_model - parent.position_model);
    rotation = glm::normalize(inverse * joint.rotation_model);
  }
  if (rotation.w < 0.0) rotation = -rotation;
  v1::Joint* out = rig.add_joints();
  out->set_name(joint.name);
  if (joint.parent != -1) out->set_parent(joints[joint.parent].name);
  SetVec(translation, *out->mutable_rest()->mutable_translation());
  v1::Quat* quat = out->mutable_rest()->mutable_rotation();
  quat->set_x(rotation.x);
  quat->set_y(rotation.y);
  quat->set_z(rotation.z);
  quat->set_w(rotation.w);
}

// The notes on renamed joints and non-uniform scales.
void NoteChanges(const std::vector<std::string>& renamed, int scaled,
                 std::vector<std::string>& notes) {
  if (!renamed.empty()) {
    // Names take 1-128 of [A-Za-z0-9_.-]; a node without one is named
    // after its index.
    const size_t shown = std::min<size_t>(renamed.size(), 3);
    notes.push_back(absl::StrCat(
        renamed.size(), " joint name(s) made valid: ",
        absl::StrJoin(renamed.begin(), renamed.begin() + shown, ", "),
        renamed.size() > shown ? ", ..." : ""));
  }
  if (scaled > 0) {
    notes.push_back(
        absl::StrCat(scaled,
                     " joint(s) under a non-uniform scale: positions kept, the "
                     "scale's stretch of their children's directions is not"));
  }
}

// The skin's joints in `tree`'s order, each added to `rig`; notes on what
// was changed into `notes`. INVALID_ARGUMENT for a mirroring scale.
absl::StatusOr<std::vector<ImportedJoint>> ImportJoints(
    const std::string& path, const tinygltf::Model& model,
    const Hierarchy& hierarchy, const tinygltf::Skin& skin,
    const SkinTree& tree, v1::Rig& rig, std::vector<std::string>& notes) {
  std::vector<ImportedJoint> joints;
  std::vector<int> imported_index(skin.joints.size(), -1);
  std::set<std::string> taken;
  std::vector<std::string> renamed;
  int scaled = 0;
  for (int k : tree.order) {
    const int node = skin.joints[k];
    ImportedJoint joint;
    joint.node = node;
    joint.parent = tree.parent[k] == -1 ? -1 : imported_index[tree.parent[k]];
    joint.name = JointName(model.nodes[node], node, taken);
    joint.node_name = model.nodes[node].name;
    if (joint.name != model.nodes[node].name) {
      renamed.push_back(absl::StrCat("nodes[", node, "] '",
                                     model.nodes[node].name, "' -> '",
                                     joint.name, "'"));
    }
    const glm::dmat4& world = hierarchy.world[node];
    const Frame frame = FrameOf(world);
    if (frame.mirrored) {
      return absl::InvalidArgumentError(absl::StrCat(
          path, ": nodes[", node,
          "]: a mirroring (negative) scale, which a rig cannot hold"));
    }
    if (!frame.uniform_scale) ++scaled;
    joint.position_model = glm::dvec3(world[3]);
    joint.rotation_model = frame.rotation;
    AddRigJoint(joint, joints, rig);
    imported_index[k] = static_cast<int>(joints.size());
    joints.push_back(std::move(joint));
  }
  NoteChanges(renamed, scaled, notes);
  return joints;
}

// The chains added by hand, each replacing a proposed chain of its name;
// INVALID_ARGUMENT for one whose joints are not a root-to-tip path.
absl::Status AddChains(const std::vector<GltfChainSpec>& specs,
                       const std::vector<ImportedJoint>& joints, v1::Rig& rig) {
  for (const GltfChainSpec& spec : specs) {
    auto index_of = [&joints](const std::string& name) {
      for (size_t i = 0; i < joints.size(); ++i) {
        if (joints[i].name == name) return static_cast<int>(i);
      }
      return -1;
    };
    const int root = index_of(spec.root);
    const int tip = index_of(spec.tip);
    if (root < 0 || tip < 0 || PathBetween(joints, root, tip).size() < 2) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--chain ", spec.name, "=", spec.root, ":", spec.tip,
          ": needs two joints of the imported rig, the tip below the root"));
    }
    auto* chains = rig.mutable_chains();
    chains->erase(std::remove_if(chains->begin(), chains->end(),
                                 [&spec](const v1::Chain& chain) {
                                   return chain.name() == spec.name;
                                 }),
                  chains->end());
    v1::Chain* chain = rig.add_chains();
    chain->set_name(spec.name);
    chain->set_root(spec.root);
    chain->set_tip(spec.tip);
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<GltfImport> ImportGltfRig(const std::string& path,
                                         const GltfImportOptions& options) {
  absl::StatusOr<tinygltf::Model> model = Load(path);
  if (!model.ok()) return model.status();
  absl::StatusOr<Hierarchy> hierarchy = BuildHierarchy(path, *model);
  if (!hierarchy.ok()) return hierarchy.status();
  absl::StatusOr<const tinygltf::Skin*> skin =
      SelectSkin(path, *model, options);
  if (!skin.ok()) return skin.status();
  absl::StatusOr<SkinTree> tree =
      TreeOf(absl::StrCat(path, ": skins[", options.skin, "]"), **skin,
             static_cast<int>(model->nodes.size()), *hierarchy);
  if (!tree.ok()) return tree.status();

  GltfImport imported;
  v1::Rig& rig = imported.rig;
  rig.set_name(options.name.empty() ? BaseName(path) : options.name);
  absl::StatusOr<std::vector<ImportedJoint>> joints = ImportJoints(
      path, *model, *hierarchy, **skin, *tree, rig, imported.notes);
  if (!joints.ok()) return joints.status();
  gltf_import::ProposeHumanoidParts(*joints, rig, imported.notes);
  if (absl::Status status = AddChains(options.chains, *joints, rig);
      !status.ok()) {
    return status;
  }
  return imported;
}

}  // namespace ik
