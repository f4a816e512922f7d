// IkHandlers' registry methods: Register/Get/List/Delete for rigs and
// terrains, and the pinned-rig lookup every solving method starts with.
#include <memory>
#include <utility>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "convert/values.h"
#include "handlers/handlers.h"
#include "ik/base/field_error.h"
#include "ik/base/validate.h"

namespace ik::server {
namespace {

// A name a request looks up: required, and following the name rule (so a
// name that cannot be registered is INVALID_ARGUMENT, not NOT_FOUND).
absl::Status RequireName(absl::string_view name, absl::string_view path) {
  if (name.empty()) return InvalidField(path, "required");
  return ValidateName(name, path);
}

// What building an entry from a definition of `definition_bytes` on the
// wire may take at most, counted in the registry budget while it is built:
// the built entry (vertices, indices, a mesh's hierarchy and grid, a rig's
// tables) and the build's own scratch.
constexpr std::int64_t kBuildBytesPerDefinitionByte = 5;

// Register{Rig,Terrain}: builds the entry (`build()`) with its estimate held
// in the registry budget -- refused before building when that does not fit
// -- and registers it, after `save` wrote `definition` to the state store,
// if there is one; fills the answer.
template <typename Entry, typename Definition, typename Response,
          typename Build>
absl::Status RegisterEntry(Build build, bool replace, Registry<Entry>& registry,
                           const StateStore* store,
                           absl::Status (StateStore::*save)(const Definition&,
                                                            absl::string_view,
                                                            absl::string_view)
                               const,
                           const Definition& definition, absl::string_view path,
                           Response& response) {
  absl::StatusOr<std::shared_ptr<const Entry>> entry;
  {
    const std::int64_t estimate =
        kBuildBytesPerDefinitionByte *
        static_cast<std::int64_t>(definition.ByteSizeLong());
    const RegistryBudget::Hold hold(registry.budget(), estimate);
    if (!hold.ok()) {
      const RegistryBudget& budget = *registry.budget();
      return FieldError(
          absl::StatusCode::kResourceExhausted, path,
          absl::StrCat("building it may take ", estimate, " bytes (",
                       kBuildBytesPerDefinitionByte,
                       " per byte of its definition), more than the "
                       "registry budget has left: ",
                       budget.held(), " of ", budget.max_bytes(),
                       " bytes are held (ikd --max_registry_bytes)"));
    }
    entry = build();
  }
  if (!entry.ok()) return entry.status();
  const std::string revision = (*entry)->revision;
  auto registered = registry.Register(*std::move(entry), replace, [&] {
    return store == nullptr ? absl::OkStatus()
                            : (store->*save)(definition, revision, path);
  });
  if (!registered.ok()) return registered.status();
  response.set_name(registered->entry->name());
  response.set_revision(registered->entry->revision);
  response.set_created(registered->created);
  response.set_replaced(registered->replaced);
  return absl::OkStatus();
}

// Delete{Rig,Terrain}, written to the state store first (`save_deleted`).
template <typename Entry, typename Request, typename Response>
absl::Status DeleteEntry(const Request& request, Registry<Entry>& registry,
                         const StateStore* store,
                         absl::Status (StateStore::*save_deleted)(
                             absl::string_view, absl::string_view) const,
                         Response& response) {
  if (absl::Status status = RequireName(request.name(), "name"); !status.ok()) {
    return status;
  }
  absl::StatusOr<std::string> removed =
      registry.Delete({request.name(), "name", request.revision()}, [&] {
        return store == nullptr
                   ? absl::OkStatus()
                   : (store->*save_deleted)(request.name(), "name");
      });
  if (!removed.ok()) return removed.status();
  response.set_revision(*std::move(removed));
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::shared_ptr<const RigEntry>> IkHandlers::PinnedRig(
    absl::string_view name, absl::string_view revision) const {
  if (absl::Status status = RequireName(name, "rig"); !status.ok()) {
    return status;
  }
  return registry_.Get({name, "rig", revision});
}

absl::Status IkHandlers::RegisterRig(const v1::RegisterRigRequest& request,
                                     v1::RegisterRigResponse& response) {
  if (!request.has_rig()) {
    return InvalidField("rig", "required");
  }
  return RegisterEntry(
      [&] { return BuildRigEntry(request.rig(), limits_, "rig"); },
      request.replace(), registry_, store_, &StateStore::SaveRig, request.rig(),
      "rig", response);
}

absl::Status IkHandlers::GetRig(const v1::GetRigRequest& request,
                                v1::GetRigResponse& response) {
  if (absl::Status status = RequireName(request.name(), "name"); !status.ok()) {
    return status;
  }
  absl::StatusOr<std::shared_ptr<const RigEntry>> entry =
      registry_.Get({request.name(), "name"});
  if (!entry.ok()) return entry.status();
  *response.mutable_rig() = (*entry)->definition;
  response.set_revision((*entry)->revision);
  return absl::OkStatus();
}

absl::Status IkHandlers::ListRigs(const v1::ListRigsRequest& /*request*/,
                                  v1::ListRigsResponse& response) {
  for (const std::shared_ptr<const RigEntry>& entry : registry_.List()) {
    v1::RigSummary* summary = response.add_rigs();
    summary->set_name(entry->rig().name());
    summary->set_revision(entry->revision);
    summary->set_joint_count(entry->rig().joint_count());
    for (const Chain& chain : entry->rig().chains()) {
      summary->add_chains(chain.name);
    }
  }
  return absl::OkStatus();
}

absl::Status IkHandlers::DeleteRig(const v1::DeleteRigRequest& request,
                                   v1::DeleteRigResponse& response) {
  return DeleteEntry<RigEntry>(request, registry_, store_,
                               &StateStore::SaveRigDeleted, response);
}

absl::Status IkHandlers::RegisterTerrain(
    const v1::RegisterTerrainRequest& request,
    v1::RegisterTerrainResponse& response, const CallScope* scope) {
  if (!request.has_terrain()) {
    return InvalidField("terrain", "required");
  }
  if (absl::Status status =
          TerrainSizeWithin(request.terrain(), limits_, "terrain");
      !status.ok()) {
    return status;
  }
  // A mesh is built in pieces; other callers' calls may run between them.
  const auto pause = [scope] {
    if (scope != nullptr) scope->Yield();
  };
  return RegisterEntry(
      [&] {
        return BuildTerrainEntry(request.terrain(), limits_, "terrain", pause);
      },
      request.replace(), terrains_, store_, &StateStore::SaveTerrain,
      request.terrain(), "terrain", response);
}

absl::Status IkHandlers::ListTerrains(
    const v1::ListTerrainsRequest& /*request*/,
    v1::ListTerrainsResponse& response) {
  for (const std::shared_ptr<const TerrainEntry>& entry : terrains_.List()) {
    v1::TerrainSummary* summary = response.add_terrains();
    summary->set_name(entry->name());
    summary->set_revision(entry->revision);
    summary->set_kind(entry->kind());
    summary->set_vertex_count(entry->vertex_count());
    summary->set_triangle_count(entry->triangle_count());
    ToProto(entry->bounds().min, summary->mutable_bounds_min());
    ToProto(entry->bounds().max, summary->mutable_bounds_max());
  }
  return absl::OkStatus();
}

absl::Status IkHandlers::DeleteTerrain(const v1::DeleteTerrainRequest& request,
                                       v1::DeleteTerrainResponse& response) {
  return DeleteEntry<TerrainEntry>(request, terrains_, store_,
                                   &StateStore::SaveTerrainDeleted, response);
}

}  // namespace ik::server
