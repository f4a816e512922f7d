#include "state/directory_loader.h"

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
namespace {

// The *.json regular files of `directory`, sorted.
absl::StatusOr<std::vector<std::string>> JsonFiles(const std::string& directory,
                                                   absl::string_view kind) {
  namespace fs = std::filesystem;
  std::error_code error;
  fs::directory_iterator it(directory, error);
  if (error) {
    return absl::NotFoundError(absl::StrCat(kind, " directory ", directory,
                                            ": cannot read (", error.message(),
                                            ")"));
  }
  std::vector<std::string> files;
  for (const fs::directory_entry& file : it) {
    if (file.path().extension() == ".json" && file.is_regular_file(error)) {
      files.push_back(file.path().string());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

// Reads (`read`) and builds (`build`) an entry from every file, then
// registers them all. A start-up error names the file, then the field
// within it ("rigs/arm.json: joints[1].parent: ...").
template <typename Message, typename Entry>
absl::StatusOr<int> LoadDirectory(
    const std::string& directory, absl::string_view kind,
    absl::StatusOr<Message> (*read)(const std::string& path),
    absl::StatusOr<std::shared_ptr<const Entry>> (*build)(
        const Message& message, const ServiceLimits& limits,
        absl::string_view path),
    const ServiceLimits& limits, Registry<Entry>& registry) {
  absl::StatusOr<std::vector<std::string>> files = JsonFiles(directory, kind);
  if (!files.ok()) return files.status();
  std::vector<std::shared_ptr<const Entry>> entries;
  std::map<std::string, std::string> file_of_name;
  for (const std::string& file : *files) {
    absl::StatusOr<Message> message = read(file);
    if (!message.ok()) return message.status();
    absl::StatusOr<std::shared_ptr<const Entry>> entry =
        build(*message, limits, "");
    if (!entry.ok()) {
      return absl::Status(entry.status().code(),
                          absl::StrCat(file, ": ", entry.status().message()));
    }
    auto [previous, inserted] = file_of_name.emplace((*entry)->name(), file);
    if (!inserted) {
      return absl::AlreadyExistsError(
          absl::StrCat(file, ": name: ", kind, " '", (*entry)->name(),
                       "' is already defined by ", previous->second));
    }
    entries.push_back(*std::move(entry));
  }
  for (size_t i = 0; i < entries.size(); ++i) {
    auto registered = registry.Register(entries[i], /*replace=*/false);
    if (!registered.ok()) {
      return absl::Status(
          registered.status().code(),
          absl::StrCat((*files)[i], ": ", registered.status().message()));
    }
  }
  return static_cast<int>(entries.size());
}

}  // namespace

absl::StatusOr<int> LoadRigDirectory(const std::string& directory,
                                     const ServiceLimits& limits,
                                     RigRegistry& registry) {
  return LoadDirectory<v1::Rig, RigEntry>(directory, "rig", &ReadRigFile,
                                          &BuildRigEntry, limits, registry);
}

absl::StatusOr<int> LoadTerrainDirectory(const std::string& directory,
                                         const ServiceLimits& limits,
                                         TerrainRegistry& registry) {
  return LoadDirectory<v1::Terrain, TerrainEntry>(
      directory, "terrain", &ReadTerrainFile,
      +[](const v1::Terrain& terrain, const ServiceLimits& terrain_limits,
          absl::string_view path) {
        return BuildTerrainEntry(terrain, terrain_limits, path);
      },
      limits, registry);
}

}  // namespace ik::server
