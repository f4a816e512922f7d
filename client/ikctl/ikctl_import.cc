// ikctl rigs import: a rig from a glTF 2.0 skin (gltf_rig.h), printed as
// JSON (the rig file format of --rig_dir and `rigs register`) or registered.
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "gltf_rig.h"
#include "ik/rig_json.h"
#include "ikctl_util.h"

ABSL_FLAG(std::string, name, "",
          "rigs import: the rig's name (default: the file's name)");
ABSL_FLAG(int, skin, 0, "rigs import: which skin of the file (skins[K])");
ABSL_FLAG(bool, register, false,
          "rigs import: register the rig instead of printing it");

namespace ik::ctl {

int ImportCommand(ik::Client& client, const std::string& path,
                  const std::vector<std::string>& chains, bool replace) {
  GltfImportOptions options;
  options.name = absl::GetFlag(FLAGS_name);
  options.skin = absl::GetFlag(FLAGS_skin);
  for (const std::string& chain : chains) {
    // name=root:tip
    std::vector<std::string> name_and_joints = absl::StrSplit(chain, '=');
    std::vector<std::string> joints =
        name_and_joints.size() == 2
            ? std::vector<std::string>(absl::StrSplit(name_and_joints[1], ':'))
            : std::vector<std::string>();
    if (joints.size() != 2 || name_and_joints[0].empty() || joints[0].empty() ||
        joints[1].empty()) {
      return Usage("rigs import: --chain is NAME=ROOT:TIP, got '" + chain +
                   "'");
    }
    options.chains.push_back({name_and_joints[0], joints[0], joints[1]});
  }
  absl::StatusOr<GltfImport> imported = ImportGltfRig(path, options);
  if (!imported.ok()) return Failed(imported.status());
  for (const std::string& note : imported->notes) {
    absl::FPrintF(stderr, "ikctl: import: %s\n", note);
  }
  absl::FPrintF(stderr,
                "ikctl: import: rig '%s': %d joints, %d chains, %d legs\n",
                imported->rig.name(), imported->rig.joints_size(),
                imported->rig.chains_size(), imported->rig.legs_size());
  if (absl::GetFlag(FLAGS_register)) {
    return PrintRegistered(client.RegisterRig(imported->rig, replace));
  }
  absl::PrintF("%s\n", ToJson(imported->rig));
  return 0;
}

}  // namespace ik::ctl
