#include "gltf_rig.h"

#include <tiny_gltf.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <fstream>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "glm/gtc/quaternion.hpp"
#include "glm/gtc/type_ptr.hpp"
#include "glm/mat3x3.hpp"
#include "glm/mat4x4.hpp"

namespace ik {
namespace {

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

absl::StatusOr<Hierarchy> BuildHierarchy(const std::string& path,
                                         const tinygltf::Model& model) {
  const int count = static_cast<int>(model.nodes.size());
  Hierarchy hierarchy;
  hierarchy.parent.assign(count, -1);
  for (int i = 0; i < count; ++i) {
    const std::vector<int>& children = model.nodes[i].children;
    for (size_t k = 0; k < children.size(); ++k) {
      const int child = children[k];
      if (child < 0 || child >= count) {
        return absl::InvalidArgumentError(
            absl::StrCat(path, ": nodes[", i, "].children[", k, "]: ", child,
                         " is not a node"));
      }
      if (hierarchy.parent[child] != -1 || child == i) {
        return absl::InvalidArgumentError(absl::StrCat(
            path, ": nodes[", child, "]: a child of nodes[",
            hierarchy.parent[child] == -1 ? i : hierarchy.parent[child],
            "] and of nodes[", i, "] (a node has one parent at most)"));
      }
      hierarchy.parent[child] = i;
    }
  }
  // With one parent each, a cycle is a walk up that never ends.
  for (int i = 0; i < count; ++i) {
    int steps = 0;
    for (int at = hierarchy.parent[i]; at != -1; at = hierarchy.parent[at]) {
      if (++steps > count) {
        return absl::InvalidArgumentError(
            absl::StrCat(path, ": nodes[", i, "]: its ancestors form a cycle"));
      }
    }
  }
  std::vector<glm::dmat4> local(count);
  for (int i = 0; i < count; ++i) {
    absl::StatusOr<glm::dmat4> matrix = LocalMatrix(path, model.nodes[i], i);
    if (!matrix.ok()) return matrix.status();
    local[i] = *matrix;
  }
  hierarchy.world.assign(count, glm::dmat4(1.0));
  std::vector<bool> done(count, false);
  for (int i = 0; i < count; ++i) {
    std::vector<int> up;  // i and its ancestors not computed yet
    for (int at = i; at != -1 && !done[at]; at = hierarchy.parent[at]) {
      up.push_back(at);
    }
    for (auto it = up.rbegin(); it != up.rend(); ++it) {
      const int parent = hierarchy.parent[*it];
      hierarchy.world[*it] =
          parent == -1 ? local[*it] : hierarchy.world[parent] * local[*it];
      done[*it] = true;
    }
  }
  // Finite numbers can still overflow once multiplied down the hierarchy.
  for (int i = 0; i < count; ++i) {
    for (int column = 0; column < 4; ++column) {
      for (int row = 0; row < 4; ++row) {
        if (!std::isfinite(hierarchy.world[i][column][row])) {
          return absl::InvalidArgumentError(absl::StrCat(
              path, ": nodes[", i,
              "]: its model-space transform is not finite (the scales or "
              "translations above it overflow)"));
        }
      }
    }
  }
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

// --- Humanoid bones by name
// ---------------------------------------------------

enum class Side { kLeft, kRight };
enum class Part {
  kUpperArm,
  kLowerArm,
  kHand,
  kUpperLeg,
  kLowerLeg,
  kFoot,
  kToes
};

// The side and part a bone name names, for the naming schemes in the
// header; nullopt for any other bone (spine, fingers, twist bones, ...).
std::optional<std::pair<Side, Part>> HumanoidBone(absl::string_view name) {
  std::string lower = absl::AsciiStrToLower(name);
  // Mixamo: "mixamorig:LeftForeArm" (also "mixamorig1:", "mixamorig_").
  if (const size_t colon = lower.rfind(':'); colon != std::string::npos) {
    lower = lower.substr(colon + 1);
  }
  if (absl::StartsWith(lower, "mixamorig")) {
    size_t end = 9;
    while (end < lower.size() &&
           (absl::ascii_isdigit(static_cast<unsigned char>(lower[end])) ||
            lower[end] == '_')) {
      ++end;
    }
    lower = lower.substr(end);
  }
  std::optional<Side> side;
  std::string base;
  // "leftUpperArm" (VRM), "LeftForeArm" (Mixamo).
  for (const auto& [prefix, named] :
       {std::pair{"left", Side::kLeft}, std::pair{"right", Side::kRight}}) {
    if (absl::StartsWith(lower, prefix) && lower.size() > strlen(prefix) &&
        absl::ascii_isalpha(
            static_cast<unsigned char>(lower[strlen(prefix)]))) {
      side = named;
      lower = lower.substr(strlen(prefix));
      break;
    }
  }
  // "upperarm_l", "UpperArm.L", "l_thigh", "J_Bip_L_UpperArm".
  for (absl::string_view token :
       absl::StrSplit(lower, absl::ByAnyChar("._- "), absl::SkipEmpty())) {
    if (token == "l" || token == "left") {
      if (side.has_value()) return std::nullopt;
      side = Side::kLeft;
    } else if (token == "r" || token == "right") {
      if (side.has_value()) return std::nullopt;
      side = Side::kRight;
    } else if (token != "j" && token != "bip" && token != "def" &&
               token != "bone") {
      absl::StrAppend(&base, token);
    }
  }
  if (!side.has_value()) return std::nullopt;
  static const auto* const kParts = new std::map<std::string, Part>{
      {"upperarm", Part::kUpperArm}, {"arm", Part::kUpperArm},
      {"uparm", Part::kUpperArm},    {"lowerarm", Part::kLowerArm},
      {"forearm", Part::kLowerArm},  {"hand", Part::kHand},
      {"upperleg", Part::kUpperLeg}, {"upleg", Part::kUpperLeg},
      {"thigh", Part::kUpperLeg},    {"lowerleg", Part::kLowerLeg},
      {"leg", Part::kLowerLeg},      {"calf", Part::kLowerLeg},
      {"shin", Part::kLowerLeg},     {"foot", Part::kFoot},
      {"toes", Part::kToes},         {"toe", Part::kToes},
      {"toebase", Part::kToes},      {"ball", Part::kToes}};
  auto found = kParts->find(base);
  if (found == kParts->end()) return std::nullopt;
  return std::pair{*side, found->second};
}

// --- The rig ----------------------------------------------------------------

struct ImportedJoint {
  int node = 0;
  int parent = -1;  // index into the imported joints
  std::string name;
  glm::dvec3 position_model{0.0};
  glm::dquat rotation_model{1.0, 0.0, 0.0, 0.0};
};

// The joint path root .. tip (indices), empty when tip does not descend
// from root.
std::vector<int> PathBetween(const std::vector<ImportedJoint>& joints, int root,
                             int tip) {
  std::vector<int> path;
  for (int at = tip; at != -1; at = joints[at].parent) {
    path.push_back(at);
    if (at == root) {
      std::reverse(path.begin(), path.end());
      return path;
    }
  }
  return {};
}

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

void ProposeHumanoidParts(const std::vector<ImportedJoint>& joints,
                          const tinygltf::Model& model, v1::Rig& rig,
                          std::vector<std::string>& notes) {
  std::map<std::pair<Side, Part>, int> found;
  std::set<std::pair<Side, Part>> ambiguous;
  for (size_t i = 0; i < joints.size(); ++i) {
    auto bone = HumanoidBone(model.nodes[joints[i].node].name);
    if (!bone.has_value()) continue;
    if (!found.emplace(*bone, static_cast<int>(i)).second) {
      ambiguous.insert(*bone);
    }
  }
  for (const auto& bone : ambiguous) found.erase(bone);
  auto at = [&found](Side side, Part part) {
    auto it = found.find({side, part});
    return it == found.end() ? -1 : it->second;
  };
  double lowest = 0.0;
  for (const ImportedJoint& joint : joints) {
    lowest = std::min(lowest, joint.position_model.y);
  }
  bool any = false;
  for (Side side : {Side::kLeft, Side::kRight}) {
    const std::string prefix = side == Side::kLeft ? "left" : "right";
    // upper -> (middle on the path) -> end, as a chain; legs also as a Leg.
    for (bool leg : {false, true}) {
      const int upper = at(side, leg ? Part::kUpperLeg : Part::kUpperArm);
      const int middle = at(side, leg ? Part::kLowerLeg : Part::kLowerArm);
      const int end = at(side, leg ? Part::kFoot : Part::kHand);
      if (upper < 0 || middle < 0 || end < 0) continue;
      const std::vector<int> path = PathBetween(joints, upper, end);
      if (path.size() < 3 ||
          std::find(path.begin(), path.end(), middle) == path.end()) {
        notes.push_back(
            absl::StrCat("no ", prefix, leg ? "_leg" : "_arm", ": ",
                         joints[end].name, " does not descend from ",
                         joints[upper].name, " through ", joints[middle].name));
        continue;
      }
      v1::Chain* chain = rig.add_chains();
      chain->set_name(absl::StrCat(prefix, leg ? "_leg" : "_arm"));
      chain->set_root(joints[upper].name);
      chain->set_tip(joints[end].name);
      notes.push_back(absl::StrCat("chain ", chain->name(), ": ", chain->root(),
                                   " -> ", chain->tip(), " (", path.size(),
                                   " joints)"));
      any = true;
      if (!leg) continue;
      if (path.size() != 3) {
        notes.push_back(absl::StrCat(
            "no leg ", chain->name(),
            ": a leg needs hip -> knee -> ankle as parent and child"));
        continue;
      }
      v1::Leg* rig_leg = rig.add_legs();
      rig_leg->set_name(chain->name());
      rig_leg->set_hip(joints[upper].name);
      rig_leg->set_knee(joints[middle].name);
      rig_leg->set_ankle(joints[end].name);
      const int toes = at(side, Part::kToes);
      if (toes >= 0 && !PathBetween(joints, end, toes).empty()) {
        rig_leg->set_toe(joints[toes].name);
      }
      // The sole: the ground (y = 0) or the lowest joint, if below it.
      rig_leg->set_ankle_height(
          std::max(0.0, joints[end].position_model.y - lowest));
      notes.push_back(absl::StrCat(
          "leg ", rig_leg->name(), ": ", rig_leg->hip(), ", ", rig_leg->knee(),
          ", ", rig_leg->ankle(),
          rig_leg->toe().empty() ? "" : absl::StrCat(", toe ", rig_leg->toe()),
          ", ankle height ", rig_leg->ankle_height(), " m"));
    }
  }
  if (any) SetVec(glm::dvec3(0.0, 0.0, 1.0), *rig.mutable_forward());
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

}  // namespace

absl::StatusOr<GltfImport> ImportGltfRig(const std::string& path,
                                         const GltfImportOptions& options) {
  absl::StatusOr<tinygltf::Model> model = Load(path);
  if (!model.ok()) return model.status();
  absl::StatusOr<Hierarchy> hierarchy = BuildHierarchy(path, *model);
  if (!hierarchy.ok()) return hierarchy.status();
  if (model->skins.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": skins: the file has no skin (no skeleton)"));
  }
  if (options.skin < 0 ||
      options.skin >= static_cast<int>(model->skins.size())) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": skins[", options.skin, "]: the file has ",
                     model->skins.size(), " skin(s)"));
  }
  const tinygltf::Skin& skin = model->skins[options.skin];
  const std::string skin_path =
      absl::StrCat(path, ": skins[", options.skin, "]");
  if (skin.joints.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(skin_path, ".joints: empty"));
  }
  // The skin's joints; each one's parent is its nearest joint ancestor.
  std::map<int, int> skin_index;  // node -> position in skin.joints
  for (size_t k = 0; k < skin.joints.size(); ++k) {
    const int node = skin.joints[k];
    if (node < 0 || node >= static_cast<int>(model->nodes.size()) ||
        !skin_index.emplace(node, static_cast<int>(k)).second) {
      return absl::InvalidArgumentError(
          absl::StrCat(skin_path, ".joints[", k, "]: ", node,
                       " is not a node, or is listed twice"));
    }
  }
  std::vector<int> joint_parent(skin.joints.size(), -1);  // skin positions
  std::vector<std::vector<int>> children(skin.joints.size());
  std::vector<int> roots;
  for (size_t k = 0; k < skin.joints.size(); ++k) {
    int at = hierarchy->parent[skin.joints[k]];
    while (at != -1 && skin_index.count(at) == 0) at = hierarchy->parent[at];
    if (at == -1) {
      roots.push_back(static_cast<int>(k));
    } else {
      joint_parent[k] = skin_index[at];
      children[joint_parent[k]].push_back(static_cast<int>(k));
    }
  }
  // Parents before children: depth first from the roots, in skin order.
  std::vector<int> order;
  std::vector<int> stack(roots.rbegin(), roots.rend());
  while (!stack.empty()) {
    const int k = stack.back();
    stack.pop_back();
    order.push_back(k);
    stack.insert(stack.end(), children[k].rbegin(), children[k].rend());
  }

  GltfImport imported;
  v1::Rig& rig = imported.rig;
  rig.set_name(options.name.empty() ? BaseName(path) : options.name);
  std::vector<ImportedJoint> joints;
  std::vector<int> imported_index(skin.joints.size(), -1);
  std::set<std::string> taken;
  std::vector<std::string> renamed;
  int scaled = 0;
  for (int k : order) {
    const int node = skin.joints[k];
    ImportedJoint joint;
    joint.node = node;
    joint.parent = joint_parent[k] == -1 ? -1 : imported_index[joint_parent[k]];
    joint.name = JointName(model->nodes[node], node, taken);
    if (joint.name != model->nodes[node].name) {
      renamed.push_back(absl::StrCat("nodes[", node, "] '",
                                     model->nodes[node].name, "' -> '",
                                     joint.name, "'"));
    }
    const glm::dmat4& world = hierarchy->world[node];
    const Frame frame = FrameOf(world);
    if (frame.mirrored) {
      return absl::InvalidArgumentError(absl::StrCat(
          path, ": nodes[", node,
          "]: a mirroring (negative) scale, which a rig cannot hold"));
    }
    if (!frame.uniform_scale) ++scaled;
    joint.position_model = glm::dvec3(world[3]);
    joint.rotation_model = frame.rotation;
    // Local rest: relative to the parent's rotation and position, so scales
    // end up in the translations (in metres) and the joints carry none.
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
    imported_index[k] = static_cast<int>(joints.size());
    joints.push_back(std::move(joint));
  }
  if (!renamed.empty()) {
    // Names take 1-128 of [A-Za-z0-9_.-]; a node without one is named
    // after its index.
    const size_t shown = std::min<size_t>(renamed.size(), 3);
    imported.notes.push_back(absl::StrCat(
        renamed.size(), " joint name(s) made valid: ",
        absl::StrJoin(renamed.begin(), renamed.begin() + shown, ", "),
        renamed.size() > shown ? ", ..." : ""));
  }
  if (scaled > 0) {
    imported.notes.push_back(
        absl::StrCat(scaled,
                     " joint(s) under a non-uniform scale: positions kept, the "
                     "scale's stretch of their children's directions is not"));
  }
  ProposeHumanoidParts(joints, *model, rig, imported.notes);

  for (const GltfChainSpec& spec : options.chains) {
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
  return imported;
}

}  // namespace ik
