#include "handlers/request_ground.h"

#include <memory>
#include <string>
#include <utility>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "convert/ground.h"
#include "convert/terrain.h"
#include "ik/base/field_error.h"
#include "ik/base/validate.h"

namespace ik::server {

absl::Status RequestGround::Build(const v1::Ground& ground,
                                  const TerrainRegistry& terrains,
                                  const ServiceLimits& limits,
                                  absl::string_view path) {
  const int shapes = ground.planes_size() + ground.heightfields_size() +
                     ground.terrains_size();
  if (shapes > limits.max_ground_shapes) {
    return FieldError(
        absl::StatusCode::kResourceExhausted, path,
        absl::StrCat(shapes,
                     " planes, heightfields and terrains exceed the limit of ",
                     limits.max_ground_shapes, " (ikd --max_ground_shapes)"));
  }
  planes_.reserve(ground.planes_size());
  for (int i = 0; i < ground.planes_size(); ++i) {
    absl::StatusOr<GroundPlane> plane = PlaneFromProto(
        ground.planes(i), absl::StrCat(path, ".planes[", i, "]"));
    if (!plane.ok()) return plane.status();
    planes_.push_back(*std::move(plane));
  }
  patches_.reserve(ground.heightfields_size());
  for (int i = 0; i < ground.heightfields_size(); ++i) {
    absl::StatusOr<Heightfield> field = HeightfieldFromProto(
        ground.heightfields(i), limits.max_inline_heightfield_samples,
        "max_inline_heightfield_samples",
        absl::StrCat(path, ".heightfields[", i, "]"));
    if (!field.ok()) return field.status();
    patches_.push_back(*std::move(field));
  }
  for (const Heightfield& field : patches_) heightfields_.push_back(&field);
  for (int i = 0; i < ground.terrains_size(); ++i) {
    const std::string terrain_path = absl::StrCat(path, ".terrains[", i, "]");
    if (ground.terrains(i).empty()) {
      return InvalidField(terrain_path, "empty name");
    }
    if (absl::Status status = ValidateName(ground.terrains(i), terrain_path);
        !status.ok()) {
      return status;
    }
    absl::StatusOr<std::shared_ptr<const TerrainEntry>> entry =
        terrains.Get({ground.terrains(i), terrain_path});
    if (!entry.ok()) return entry.status();
    const TerrainEntry& terrain = **entry;
    if (terrain.mesh.has_value()) meshes_.push_back(&*terrain.mesh);
    if (terrain.heightfield.has_value()) {
      heightfields_.push_back(&*terrain.heightfield);
    }
    pinned_.push_back(*std::move(entry));
  }
  return absl::OkStatus();
}

}  // namespace ik::server
