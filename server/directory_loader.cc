#include "server/rig_loader.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <memory>
#include <system_error>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "ik/rig_json.h"

namespace ik::server {

absl::StatusOr<int> LoadRigDirectory(const std::string& directory,
                                     const ServiceLimits& limits,
                                     RigRegistry& registry) {
  namespace fs = std::filesystem;
  std::error_code error;
  fs::directory_iterator it(directory, error);
  if (error) {
    return absl::NotFoundError(absl::StrCat(
        "rig directory ", directory, ": cannot read (", error.message(), ")"));
  }
  std::vector<std::string> files;
  for (const fs::directory_entry& file : it) {
    if (file.path().extension() == ".json" && file.is_regular_file(error)) {
      files.push_back(file.path().string());
    }
  }
  std::sort(files.begin(), files.end());

  std::vector<std::shared_ptr<const RigEntry>> entries;
  std::map<std::string, std::string> file_of_rig;
  for (const std::string& file : files) {
    absl::StatusOr<v1::Rig> rig = ReadRigFile(file);
    if (!rig.ok()) return rig.status();
    absl::StatusOr<std::shared_ptr<const RigEntry>> entry =
        BuildRigEntry(*rig, limits, absl::StrCat(file, ": "));
    if (!entry.ok()) return entry.status();
    auto [previous, inserted] = file_of_rig.emplace((*entry)->rig.name(), file);
    if (!inserted) {
      return absl::AlreadyExistsError(
          absl::StrCat(file, ": name: rig '", (*entry)->rig.name(),
                       "' is already defined by ", previous->second));
    }
    entries.push_back(*std::move(entry));
  }
  for (size_t i = 0; i < entries.size(); ++i) {
    absl::StatusOr<RigRegistry::RegisterResult> registered =
        registry.Register(entries[i], /*replace=*/false);
    if (!registered.ok()) {
      return absl::Status(
          registered.status().code(),
          absl::StrCat(files[i], ": ", registered.status().message()));
    }
  }
  return static_cast<int>(entries.size());
}

}  // namespace ik::server
