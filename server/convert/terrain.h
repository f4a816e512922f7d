// Wire -> core for terrain shapes (ik/v1/ground.proto): heightfields and
// triangle meshes, registered as terrains or (heightfields) sent inline with
// a GroundFeet request, with the service's size limits checked first. Errors
// start with the field path under `path` ("terrain.mesh.indices[7]: 1200 is
// out of range [0, 1000)", "ground.heightfields[0].rows: ...").
#ifndef IK_SERVER_CONVERT_TERRAIN_H_
#define IK_SERVER_CONVERT_TERRAIN_H_

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "ik/base/pacer.h"
#include "ik/ground/heightfield.h"
#include "ik/ground/triangle_mesh.h"
#include "ik/v1/ground.pb.h"

namespace ik::server {

// RESOURCE_EXHAUSTED when the grid has more than `max_samples` samples (the
// message names `limit_flag`, the ikd flag that sets it).
absl::StatusOr<Heightfield> HeightfieldFromProto(const v1::Heightfield& field,
                                                 int max_samples,
                                                 absl::string_view limit_flag,
                                                 absl::string_view path);

// The size checks of HeightfieldFromProto and MeshFromProto alone: cheap,
// and specific (RESOURCE_EXHAUSTED naming the flag and the field), so a
// registration runs them before any estimate of its memory.
absl::Status HeightfieldSizeWithin(const v1::Heightfield& field,
                                   int max_samples,
                                   absl::string_view limit_flag,
                                   absl::string_view path);
absl::Status MeshSizeWithin(const v1::TriangleMesh& mesh, int max_triangles,
                            absl::string_view path);

// Validates and builds the BVH. RESOURCE_EXHAUSTED when the mesh has more
// than `max_triangles` triangles or vertices; vertex values are checked one
// by one (path "....vertices[5]" names the value, vertex 1's z). `pause`
// is called between pieces of the conversion and the build
// (ik/base/pacer.h).
absl::StatusOr<TriangleMesh> MeshFromProto(
    const v1::TriangleMesh& mesh, int max_triangles, absl::string_view path,
    absl::FunctionRef<void()> pause = NoPause);

}  // namespace ik::server

#endif  // IK_SERVER_CONVERT_TERRAIN_H_
