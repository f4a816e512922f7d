#include "state/state_store.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl.h"
#include "google/protobuf/wire_format_lite.h"
#include "ik/base/field_error.h"
#include "ik/base/validate.h"
#include "ik/state/state.pb.h"

namespace ik::server {
namespace {

constexpr int kFormat = 1;
constexpr absl::string_view kSuffix = ".binpb";
constexpr absl::string_view kTemporary = ".tmp";

std::string FileName(absl::string_view kind, absl::string_view name) {
  return absl::StrCat(kind, ".", name, kSuffix);
}

// The failure to write a change, naming the request field it came in.
absl::Status WriteError(absl::string_view path, absl::string_view directory,
                        absl::string_view step, int error) {
  const absl::StatusCode code = error == ENOSPC || error == EDQUOT
                                    ? absl::StatusCode::kResourceExhausted
                                    : absl::StatusCode::kInternal;
  return FieldError(
      code, path,
      absl::StrCat("not saved, nothing changed: --state_dir ", directory, ": ",
                   step, ": ", std::strerror(error)));
}

// Writes `stored`, then `definition` as its field `field` (not copied into
// it: a mesh may be hundreds of megabytes), to `file` in `directory_fd` so
// that after a crash the file holds either its old content or all of the
// new: a temporary file written and fsynced, renamed over `file`, then the
// directory fsynced. Returns the failing step and errno, or {"", 0}.
std::pair<const char*, int> WriteDurably(
    int directory_fd, const std::string& file, const state::StoredEntry& stored,
    int field, const google::protobuf::MessageLite* definition) {
  const std::string temporary = absl::StrCat(file, kTemporary);
  const int fd = openat(directory_fd, temporary.c_str(),
                        O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return {"open", errno};
  auto fail = [&](const char* step, int error) -> std::pair<const char*, int> {
    close(fd);
    unlinkat(directory_fd, temporary.c_str(), 0);
    return {step, error};
  };
  {
    google::protobuf::io::FileOutputStream out(fd);
    {
      google::protobuf::io::CodedOutputStream coded(&out);
      stored.SerializeWithCachedSizes(&coded);
      if (definition != nullptr) {
        definition->ByteSizeLong();  // caches the sizes WriteMessage writes
        google::protobuf::internal::WireFormatLite::WriteMessage(
            field, *definition, &coded);
      }
    }
    if (!out.Flush()) return fail("write", out.GetErrno());
  }
  if (fsync(fd) != 0) return fail("fsync", errno);
  if (close(fd) != 0) {
    const int error = errno;
    unlinkat(directory_fd, temporary.c_str(), 0);
    return {"close", error};
  }
  if (renameat(directory_fd, temporary.c_str(), directory_fd, file.c_str()) !=
      0) {
    const int error = errno;
    unlinkat(directory_fd, temporary.c_str(), 0);
    return {"rename", error};
  }
  if (fsync(directory_fd) != 0) return {"fsync of the directory", errno};
  return {"", 0};
}

// The regular files of `directory`, sorted.
std::vector<std::string> FilesOf(const std::string& directory) {
  namespace fs = std::filesystem;
  std::error_code error;
  std::vector<std::string> files;
  for (const fs::directory_entry& file :
       fs::directory_iterator(directory, error)) {
    if (file.is_regular_file(error)) {
      files.push_back(file.path().filename().string());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

// Applies one stored change to `registry`; `build` makes the entry from its
// definition. An error says why the file is skipped.
template <typename Entry, typename Definition, typename Build>
absl::Status Apply(const state::StoredEntry& stored,
                   const Definition& definition, Build build,
                   Registry<Entry>& registry, StateStore::Replayed& replayed,
                   int& registered) {
  if (stored.deleted()) {
    if (registry.Delete({stored.name(), "name"}).ok()) ++replayed.deleted;
    return absl::OkStatus();
  }
  absl::StatusOr<std::shared_ptr<const Entry>> entry = build(definition);
  if (!entry.ok()) return entry.status();
  if ((*entry)->name() != stored.name()) {
    return absl::DataLossError(absl::StrCat("the definition is named ",
                                            Quoted((*entry)->name()), ", not ",
                                            Quoted(stored.name())));
  }
  if ((*entry)->revision != stored.revision()) {
    return absl::DataLossError(absl::StrCat(
        "the definition hashes to ", (*entry)->revision,
        ", not to the acknowledged ", stored.revision(), " (damaged file)"));
  }
  auto done = registry.Register(*std::move(entry), /*replace=*/true);
  if (!done.ok()) return done.status();
  ++registered;
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::unique_ptr<StateStore>> StateStore::Open(
    const std::string& directory) {
  std::error_code error;
  std::filesystem::create_directories(directory, error);
  if (error) {
    return absl::FailedPreconditionError(absl::StrCat(
        "--state_dir ", directory, ": cannot create (", error.message(), ")"));
  }
  const int fd = open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("--state_dir ", directory, ": cannot open (",
                     std::strerror(errno), ")"));
  }
  // Writable? (A read-only volume would fail every registration later.)
  const std::string probe = ".ikd-write-probe";
  const int probe_fd =
      openat(fd, probe.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (probe_fd < 0) {
    const int probe_error = errno;
    close(fd);
    return absl::FailedPreconditionError(
        absl::StrCat("--state_dir ", directory, ": not writable (",
                     std::strerror(probe_error), ")"));
  }
  close(probe_fd);
  unlinkat(fd, probe.c_str(), 0);
  for (const std::string& file : FilesOf(directory)) {
    if (absl::EndsWith(file, kTemporary)) unlinkat(fd, file.c_str(), 0);
  }
  return std::unique_ptr<StateStore>(new StateStore(directory, fd));
}

StateStore::StateStore(std::string directory, int directory_fd)
    : directory_(std::move(directory)), directory_fd_(directory_fd) {}

StateStore::~StateStore() { close(directory_fd_); }

absl::Status StateStore::Save(absl::string_view kind, absl::string_view name,
                              absl::string_view revision, int field,
                              const google::protobuf::MessageLite* definition,
                              absl::string_view path) const {
  state::StoredEntry stored;
  stored.set_format(kFormat);
  stored.set_name(std::string(name));
  stored.set_revision(std::string(revision));
  if (definition == nullptr) stored.set_deleted(true);
  stored.ByteSizeLong();  // caches the sizes SerializeWithCachedSizes uses
  const auto [step, error] = WriteDurably(directory_fd_, FileName(kind, name),
                                          stored, field, definition);
  if (error != 0) return WriteError(path, directory_, step, error);
  return absl::OkStatus();
}

absl::Status StateStore::SaveRig(const v1::Rig& rig, absl::string_view revision,
                                 absl::string_view path) const {
  return Save("rig", rig.name(), revision, state::StoredEntry::kRigFieldNumber,
              &rig, path);
}

absl::Status StateStore::SaveTerrain(const v1::Terrain& terrain,
                                     absl::string_view revision,
                                     absl::string_view path) const {
  return Save("terrain", terrain.name(), revision,
              state::StoredEntry::kTerrainFieldNumber, &terrain, path);
}

absl::Status StateStore::SaveRigDeleted(absl::string_view name,
                                        absl::string_view path) const {
  return Save("rig", name, "", 0, nullptr, path);
}

absl::Status StateStore::SaveTerrainDeleted(absl::string_view name,
                                            absl::string_view path) const {
  return Save("terrain", name, "", 0, nullptr, path);
}

StateStore::Replayed StateStore::Replay(const ServiceLimits& limits,
                                        RigRegistry& rigs,
                                        TerrainRegistry& terrains) const {
  Replayed replayed;
  for (const std::string& file : FilesOf(directory_)) {
    if (!absl::EndsWith(file, kSuffix)) continue;
    const std::string path = absl::StrCat(directory_, "/", file);
    auto skip = [&](absl::string_view why) {
      replayed.skipped.push_back(absl::StrCat(path, ": ", why));
    };
    state::StoredEntry stored;
    {
      const int fd = openat(directory_fd_, file.c_str(), O_RDONLY | O_CLOEXEC);
      if (fd < 0) {
        skip(absl::StrCat("cannot open (", std::strerror(errno), ")"));
        continue;
      }
      const bool parsed = stored.ParseFromFileDescriptor(fd);
      close(fd);
      if (!parsed) {
        skip("not a stored entry (damaged file)");
        continue;
      }
    }
    if (stored.format() != kFormat) {
      skip(absl::StrCat("format ", stored.format(), ", this ikd reads ",
                        kFormat));
      continue;
    }
    absl::Status applied;
    if (file == FileName("rig", stored.name()) &&
        (stored.has_rig() || stored.deleted())) {
      applied = Apply(
          stored, stored.rig(),
          [&](const v1::Rig& rig) { return BuildRigEntry(rig, limits, ""); },
          rigs, replayed, replayed.rigs);
    } else if (file == FileName("terrain", stored.name()) &&
               (stored.has_terrain() || stored.deleted())) {
      applied = Apply(
          stored, stored.terrain(),
          [&](const v1::Terrain& terrain) {
            return BuildTerrainEntry(terrain, limits, "");
          },
          terrains, replayed, replayed.terrains);
    } else {
      applied = absl::DataLossError(
          absl::StrCat("holds ", Quoted(stored.name()),
                       ", which does not match the file's name and kind"));
    }
    if (!applied.ok()) skip(applied.message());
  }
  return replayed;
}

}  // namespace ik::server
