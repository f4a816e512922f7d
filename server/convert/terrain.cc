#include "convert/terrain.h"

#include <cmath>
#include <cstdint>
#include <utility>

#include "absl/strings/str_cat.h"
#include "convert/values.h"
#include "ik/base/field_error.h"
#include "ik/base/math.h"
#include "ik/base/pacer.h"

namespace ik::server {
namespace {

absl::Status TooLarge(absl::string_view path, absl::string_view what,
                      int64_t count, int limit, absl::string_view flag) {
  return FieldError(absl::StatusCode::kResourceExhausted, path,
                    absl::StrCat(count, " ", what, " exceed the limit of ",
                                 limit, " (ikd --", flag, ")"));
}

}  // namespace

absl::Status HeightfieldSizeWithin(const v1::Heightfield& field,
                                   int max_samples,
                                   absl::string_view limit_flag,
                                   absl::string_view path) {
  const int64_t samples = static_cast<int64_t>(field.columns()) * field.rows();
  const std::string heights_path = absl::StrCat(path, ".heights");
  if (field.columns() >= 2 && field.rows() >= 2 && samples > max_samples) {
    return TooLarge(
        heights_path,
        absl::StrCat("samples (", field.columns(), " x ", field.rows(), ")"),
        samples, max_samples, limit_flag);
  }
  if (field.heights_size() > max_samples) {
    return TooLarge(heights_path, "heights", field.heights_size(), max_samples,
                    limit_flag);
  }
  return absl::OkStatus();
}

absl::Status MeshSizeWithin(const v1::TriangleMesh& mesh, int max_triangles,
                            absl::string_view path) {
  const std::string vertices_path = absl::StrCat(path, ".vertices");
  if (mesh.vertices_size() % 3 != 0) {
    return InvalidField(
        vertices_path,
        absl::StrCat(mesh.vertices_size(),
                     " values, not a multiple of 3 (x, y, z per vertex)"));
  }
  const int vertex_count = mesh.vertices_size() / 3;
  if (vertex_count > max_triangles) {
    return TooLarge(vertices_path, "vertices", vertex_count, max_triangles,
                    "max_mesh_triangles");
  }
  if (mesh.indices_size() / 3 > max_triangles) {
    return TooLarge(absl::StrCat(path, ".indices"), "triangles",
                    mesh.indices_size() / 3, max_triangles,
                    "max_mesh_triangles");
  }
  return absl::OkStatus();
}

absl::StatusOr<Heightfield> HeightfieldFromProto(const v1::Heightfield& field,
                                                 int max_samples,
                                                 absl::string_view limit_flag,
                                                 absl::string_view path) {
  if (absl::Status status =
          HeightfieldSizeWithin(field, max_samples, limit_flag, path);
      !status.ok()) {
    return status;
  }
  HeightfieldDefinition definition;
  definition.origin = FromProto(field.origin());
  definition.spacing_x = field.spacing_x();
  definition.spacing_z = field.spacing_z();
  definition.columns = field.columns();
  definition.rows = field.rows();
  definition.heights.assign(field.heights().begin(), field.heights().end());
  return Heightfield::Create(std::move(definition), path);
}

absl::StatusOr<TriangleMesh> MeshFromProto(const v1::TriangleMesh& mesh,
                                           int max_triangles,
                                           absl::string_view path,
                                           absl::FunctionRef<void()> pause) {
  if (absl::Status status = MeshSizeWithin(mesh, max_triangles, path);
      !status.ok()) {
    return status;
  }
  Pacer pacer(pause);
  const std::string vertices_path = absl::StrCat(path, ".vertices");
  const int vertex_count = mesh.vertices_size() / 3;
  for (int i = 0; i < mesh.vertices_size(); ++i) {
    pacer.Step();
    const double value = mesh.vertices(i);
    if (!std::isfinite(value)) {
      return InvalidField(absl::StrCat(vertices_path, "[", i, "]"),
                          "not finite");
    }
    if (std::abs(value) > kMaxCoordinate) {
      return InvalidField(
          absl::StrCat(vertices_path, "[", i, "]"),
          absl::StrCat(value, " is beyond ", kMaxCoordinate, " m"));
    }
  }
  TriangleMeshDefinition definition;
  definition.vertices.reserve(vertex_count);
  for (int v = 0; v < vertex_count; ++v) {
    pacer.Step(3);
    definition.vertices.emplace_back(mesh.vertices(3 * v),
                                     mesh.vertices(3 * v + 1),
                                     mesh.vertices(3 * v + 2));
  }
  definition.indices.assign(mesh.indices().begin(), mesh.indices().end());
  return TriangleMesh::Create(std::move(definition), path, pause);
}

}  // namespace ik::server
