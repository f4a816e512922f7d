// Conversion of ground and terrain messages (planes, heightfields, meshes)
// to the core's ground types, with the service's size limits checked first.
// Errors start with the field path under `path` ("ground.planes[1].normal:
// zero length", "terrain.mesh.indices[7]: 1200 is out of range [0, 1000)").
#ifndef IK_SERVER_CONVERT_GROUND_H_
#define IK_SERVER_CONVERT_GROUND_H_

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "ik/ground_plane.h"
#include "ik/heightfield.h"
#include "ik/triangle_mesh.h"
#include "ik/v1/ik.pb.h"

namespace ik::server {

absl::StatusOr<GroundPlane> PlaneFromProto(const v1::Plane& plane,
                                           absl::string_view path);

// RESOURCE_EXHAUSTED when the grid has more than `max_samples` samples (the
// message names `limit_flag`, the ikd flag that sets it).
absl::StatusOr<Heightfield> HeightfieldFromProto(const v1::Heightfield& field,
                                                 int max_samples,
                                                 absl::string_view limit_flag,
                                                 absl::string_view path);

// Validates and builds the BVH. RESOURCE_EXHAUSTED when the mesh has more
// than `max_triangles` triangles or vertices; vertex values are checked one
// by one (path "....vertices[5]" names the value, vertex 1's z).
absl::StatusOr<TriangleMesh> MeshFromProto(const v1::TriangleMesh& mesh,
                                           int max_triangles,
                                           absl::string_view path);

// A terrain's name: 1..kMaxNameLength characters of [A-Za-z0-9_.-].
absl::Status ValidateTerrainName(absl::string_view name,
                                 absl::string_view path);

}  // namespace ik::server

#endif  // IK_SERVER_CONVERT_GROUND_H_
