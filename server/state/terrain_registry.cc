#include "state/terrain_registry.h"

#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "convert/terrain.h"
#include "ik/base/field_error.h"
#include "ik/base/validate.h"

namespace ik::server {

v1::TerrainKind TerrainEntry::kind() const {
  return mesh.has_value() ? v1::TERRAIN_KIND_MESH
                          : v1::TERRAIN_KIND_HEIGHTFIELD;
}

int TerrainEntry::vertex_count() const {
  return mesh.has_value() ? mesh->vertex_count()
                          : heightfield->columns() * heightfield->rows();
}

int TerrainEntry::triangle_count() const {
  return mesh.has_value() ? mesh->triangle_count()
                          : heightfield->triangle_count();
}

const Aabb& TerrainEntry::bounds() const {
  return mesh.has_value() ? mesh->bounds() : heightfield->bounds();
}

absl::Status TerrainSizeWithin(const v1::Terrain& terrain,
                               const ServiceLimits& limits,
                               absl::string_view path) {
  switch (terrain.shape_case()) {
    case v1::Terrain::kHeightfield:
      return HeightfieldSizeWithin(
          terrain.heightfield(), limits.max_heightfield_samples,
          "max_heightfield_samples", FieldPath(path, "heightfield"));
    case v1::Terrain::kMesh:
      return MeshSizeWithin(terrain.mesh(), limits.max_mesh_triangles,
                            FieldPath(path, "mesh"));
    default:
      return absl::OkStatus();  // BuildTerrainEntry says what is wrong
  }
}

absl::StatusOr<std::shared_ptr<const TerrainEntry>> BuildTerrainEntry(
    const v1::Terrain& terrain, const ServiceLimits& limits,
    absl::string_view path, absl::FunctionRef<void()> pause) {
  if (absl::Status status =
          ValidateName(terrain.name(), FieldPath(path, "name"));
      !status.ok()) {
    return status;
  }
  auto entry = std::make_shared<TerrainEntry>();
  entry->terrain_name = terrain.name();
  switch (terrain.shape_case()) {
    case v1::Terrain::kHeightfield: {
      absl::StatusOr<Heightfield> field = HeightfieldFromProto(
          terrain.heightfield(), limits.max_heightfield_samples,
          "max_heightfield_samples", FieldPath(path, "heightfield"));
      if (!field.ok()) return field.status();
      entry->heightfield.emplace(*std::move(field));
      break;
    }
    case v1::Terrain::kMesh: {
      absl::StatusOr<TriangleMesh> mesh =
          MeshFromProto(terrain.mesh(), limits.max_mesh_triangles,
                        FieldPath(path, "mesh"), pause);
      if (!mesh.ok()) return mesh.status();
      entry->mesh.emplace(*std::move(mesh));
      break;
    }
    case v1::Terrain::SHAPE_NOT_SET:
      return InvalidField(FieldPath(path, "heightfield"),
                          "one of heightfield or mesh is required");
  }
  entry->revision = ContentRevision(terrain, pause);
  entry->bytes = static_cast<std::int64_t>(
      sizeof(TerrainEntry) + entry->terrain_name.capacity() +
      (entry->mesh.has_value() ? entry->mesh->memory_bytes()
                               : entry->heightfield->memory_bytes()));
  if (limits.keep_terrain_definitions) {
    entry->definition = std::make_shared<const v1::Terrain>(terrain);
    entry->bytes +=
        static_cast<std::int64_t>(entry->definition->SpaceUsedLong());
  }
  return std::shared_ptr<const TerrainEntry>(std::move(entry));
}

}  // namespace ik::server
