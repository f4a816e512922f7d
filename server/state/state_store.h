// ikd's --state_dir: every rig and terrain registered, replaced or deleted
// over the API, kept on disk so a restart (or kill -9) loses none of them.
//
// One file per kind and name, `rig.<name>.binpb` / `terrain.<name>.binpb`,
// holding an ik.state.StoredEntry (proto/ik/state/state.proto): the latest
// definition, or a mark that the name was deleted. A change is written to
// `<file>.tmp`, fsynced, renamed over the file, and the directory fsynced;
// only then is it made in the registry and acknowledged. At start, after
// --rig_dir and --terrain_dir, Replay applies the files (API changes win);
// a damaged file (unreadable, or whose definition no longer hashes to the
// revision it was acknowledged with) is reported and skipped.
//
//   auto store = StateStore::Open("/var/lib/ikd");
//   StateStore::Replayed replayed = (*store)->Replay(limits, rigs, terrains);
//   registry.Register(entry, replace, [&] { return store->SaveRig(...); });
#ifndef IK_SERVER_STATE_STATE_STORE_H_
#define IK_SERVER_STATE_STATE_STORE_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "ik/v1/ik.pb.h"
#include "service_limits.h"
#include "state/rig_registry.h"
#include "state/terrain_registry.h"

namespace ik::server {

class StateStore {
 public:
  // Opens (creating it if needed) the state directory; removes the
  // temporary files of a change cut short by a crash (never acknowledged).
  static absl::StatusOr<std::unique_ptr<StateStore>> Open(
      const std::string& directory);
  ~StateStore();
  StateStore(const StateStore&) = delete;
  StateStore& operator=(const StateStore&) = delete;

  const std::string& directory() const { return directory_; }

  // Durably records a registration (`revision`: the entry's) or a deletion.
  // Errors name `path` ("rig", "terrain", "name"): RESOURCE_EXHAUSTED when
  // the disk is full, INTERNAL for any other failure to write.
  absl::Status SaveRig(const v1::Rig& rig, absl::string_view revision,
                       absl::string_view path) const;
  absl::Status SaveTerrain(const v1::Terrain& terrain,
                           absl::string_view revision,
                           absl::string_view path) const;
  absl::Status SaveRigDeleted(absl::string_view name,
                              absl::string_view path) const;
  absl::Status SaveTerrainDeleted(absl::string_view name,
                                  absl::string_view path) const;

  struct Replayed {
    int rigs = 0;      // registered or replaced
    int terrains = 0;  // registered or replaced
    int deleted = 0;   // names removed again
    // One line per file skipped, starting with its path.
    std::vector<std::string> skipped;
  };
  // Applies every file to the registries, in file-name order; never fails.
  Replayed Replay(const ServiceLimits& limits, RigRegistry& rigs,
                  TerrainRegistry& terrains) const;

 private:
  StateStore(std::string directory, int directory_fd);
  // Writes the file of `kind` `name`: `definition` as StoredEntry field
  // `field`, or (null) the mark that the name was deleted.
  absl::Status Save(absl::string_view kind, absl::string_view name,
                    absl::string_view revision, int field,
                    const google::protobuf::MessageLite* definition,
                    absl::string_view path) const;

  const std::string directory_;
  const int directory_fd_;
};

}  // namespace ik::server

#endif  // IK_SERVER_STATE_STATE_STORE_H_
