#include "gltf_humanoid.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <optional>
#include <set>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace ik::gltf_import {
namespace {

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

// The side and part a bone name names, for the naming schemes gltf_rig.h
// lists; nullopt for any other bone (spine, fingers, twist bones, ...).
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

// Each humanoid part the joints' node names name once (a part that two
// joints claim is left out), as the joint's index.
std::map<std::pair<Side, Part>, int> FindParts(
    const std::vector<ImportedJoint>& joints) {
  std::map<std::pair<Side, Part>, int> found;
  std::set<std::pair<Side, Part>> ambiguous;
  for (size_t i = 0; i < joints.size(); ++i) {
    auto bone = HumanoidBone(joints[i].node_name);
    if (!bone.has_value()) continue;
    if (!found.emplace(*bone, static_cast<int>(i)).second) {
      ambiguous.insert(*bone);
    }
  }
  for (const auto& bone : ambiguous) found.erase(bone);
  return found;
}

}  // namespace

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

namespace {

// The leg chain `chain` (joints `path`, hip to ankle) as a Leg too, with
// the toe `toes` (-1: none) when it descends from the ankle, and the
// ankle's height above the ground or the `lowest` joint, whichever is
// lower. A path that is not hip -> knee -> ankle gets a note instead.
void AddLeg(const std::vector<ImportedJoint>& joints, const v1::Chain& chain,
            const std::vector<int>& path, int toes, double lowest, v1::Rig& rig,
            std::vector<std::string>& notes) {
  if (path.size() != 3) {
    notes.push_back(
        absl::StrCat("no leg ", chain.name(),
                     ": a leg needs hip -> knee -> ankle as parent and child"));
    return;
  }
  const int end = path[2];
  v1::Leg* rig_leg = rig.add_legs();
  rig_leg->set_name(chain.name());
  rig_leg->set_hip(joints[path[0]].name);
  rig_leg->set_knee(joints[path[1]].name);
  rig_leg->set_ankle(joints[end].name);
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

}  // namespace

void ProposeHumanoidParts(const std::vector<ImportedJoint>& joints,
                          v1::Rig& rig, std::vector<std::string>& notes) {
  const std::map<std::pair<Side, Part>, int> found = FindParts(joints);
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
      if (leg) {
        AddLeg(joints, *chain, path, at(side, Part::kToes), lowest, rig, notes);
      }
    }
  }
  if (any) {
    rig.mutable_forward()->set_x(0.0);
    rig.mutable_forward()->set_y(0.0);
    rig.mutable_forward()->set_z(1.0);
  }
}

}  // namespace ik::gltf_import
