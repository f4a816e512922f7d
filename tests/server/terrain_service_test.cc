// RegisterTerrain, ListTerrains and DeleteTerrain through a real channel:
// idempotent registration, replacement, listing, deletion, every bad input
// (with nothing half-registered) and the service's size limits.

#include <cmath>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "terrain_service_fixture.h"

namespace ik::server {
namespace {

using ::ik::testing::GridMesh;
using ::ik::testing::Vec;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::MatchesRegex;
using ::testing::StartsWith;

TEST_F(TerrainServiceTest, RegisterIsIdempotentAndReplacingNeedsConsent) {
  for (const v1::Terrain& terrain : {Floor("floor"), Hills("hills")}) {
    SCOPED_TRACE(terrain.name());
    v1::RegisterTerrainResponse first;
    ASSERT_TRUE(RegisterTerrain(terrain, false, &first).ok());
    EXPECT_EQ(first.name(), terrain.name());
    EXPECT_THAT(first.revision(), MatchesRegex("sha256:[0-9a-f]{16}"));
    EXPECT_TRUE(first.created());
    EXPECT_FALSE(first.replaced());

    // The same content again: nothing changes.
    v1::RegisterTerrainResponse again;
    ASSERT_TRUE(RegisterTerrain(terrain, false, &again).ok());
    EXPECT_EQ(again.revision(), first.revision());
    EXPECT_FALSE(again.created());
    EXPECT_FALSE(again.replaced());

    // Different content under the name needs replace.
    v1::Terrain changed = terrain;
    if (changed.has_mesh()) {
      changed.mutable_mesh()->set_vertices(1, 0.25);
    } else {
      changed.mutable_heightfield()->set_heights(4, 0.5);
    }
    v1::RegisterTerrainResponse refused;
    grpc::Status status = RegisterTerrain(changed, false, &refused);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::ALREADY_EXISTS);
    EXPECT_THAT(status.error_message(),
                StartsWith(absl::StrCat("terrain.name: terrain '",
                                        terrain.name(), "' is registered")));
    EXPECT_THAT(status.error_message(), HasSubstr(first.revision()));

    v1::RegisterTerrainResponse replaced;
    ASSERT_TRUE(RegisterTerrain(changed, true, &replaced).ok());
    EXPECT_TRUE(replaced.created());
    EXPECT_TRUE(replaced.replaced());
    EXPECT_NE(replaced.revision(), first.revision());
    // Replacing with the same content is a no-op.
    ASSERT_TRUE(RegisterTerrain(changed, true, &again).ok());
    EXPECT_FALSE(again.created());
    EXPECT_FALSE(again.replaced());
    EXPECT_EQ(again.revision(), replaced.revision());
  }
  EXPECT_THAT(Names(), ElementsAre("floor", "hills"));
}

TEST_F(TerrainServiceTest, SameContentGivesTheSameRevisionOnAnyServer) {
  const std::string revision = MustRegister(Hills("hills"));
  StartServer(ServerOptions());
  EXPECT_EQ(MustRegister(Hills("hills")), revision);
  // The name is part of the content.
  EXPECT_NE(MustRegister(Hills("hills2")), revision);
}

TEST_F(TerrainServiceTest, ListIsSortedWithKindCountsAndBounds) {
  const std::string zeta = MustRegister(Hills("zeta"));
  const std::string alpha = MustRegister(Floor("alpha", 0.25));
  v1::Terrain ramp;
  ramp.set_name("mid-ramp_2.0");
  *ramp.mutable_mesh() = GridMesh(3, 1, 1.0, 0.0, -2.0, 1.0, 0.5);
  const std::string mid = MustRegister(ramp);

  const v1::ListTerrainsResponse list = List();
  ASSERT_EQ(list.terrains_size(), 3);
  const v1::TerrainSummary& a = list.terrains(0);
  EXPECT_EQ(a.name(), "alpha");
  EXPECT_EQ(a.revision(), alpha);
  EXPECT_EQ(a.kind(), v1::TERRAIN_KIND_MESH);
  EXPECT_EQ(a.vertex_count(), 9);
  EXPECT_EQ(a.triangle_count(), 8);
  ExpectVec(a.bounds_min(), -0.5, 0.25, -0.5);
  ExpectVec(a.bounds_max(), 0.5, 0.25, 0.5);

  const v1::TerrainSummary& m = list.terrains(1);
  EXPECT_EQ(m.name(), "mid-ramp_2.0");
  EXPECT_EQ(m.revision(), mid);
  EXPECT_EQ(m.kind(), v1::TERRAIN_KIND_MESH);
  EXPECT_EQ(m.vertex_count(), 8);
  EXPECT_EQ(m.triangle_count(), 6);
  // y = 1 + 0.5 z for z in [-2, -1].
  ExpectVec(m.bounds_min(), 0.0, 0.0, -2.0);
  ExpectVec(m.bounds_max(), 3.0, 0.5, -1.0);

  const v1::TerrainSummary& z = list.terrains(2);
  EXPECT_EQ(z.name(), "zeta");
  EXPECT_EQ(z.revision(), zeta);
  EXPECT_EQ(z.kind(), v1::TERRAIN_KIND_HEIGHTFIELD);
  EXPECT_EQ(z.vertex_count(), 9);
  EXPECT_EQ(z.triangle_count(), 8);
  ExpectVec(z.bounds_min(), 1.0, 1.8, 3.0);
  ExpectVec(z.bounds_max(), 2.0, 2.4, 4.0);
}

TEST_F(TerrainServiceTest, DeleteChecksTheRevisionAndUsersSeeItGone) {
  RegisterHumanoid();
  const std::string revision = MustRegister(Floor("floor"));
  v1::GroundFeetResponse grounded;
  ASSERT_TRUE(GroundOn("floor", &grounded).ok());
  ASSERT_EQ(grounded.terrain_revisions_size(), 1);
  EXPECT_EQ(grounded.terrain_revisions(0), revision);

  v1::DeleteTerrainResponse deleted;
  grpc::Status status =
      DeleteTerrain("floor", "sha256:0123456789abcdef", &deleted);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_THAT(status.error_message(),
              StartsWith(absl::StrCat("revision: terrain 'floor' is at "
                                      "revision ",
                                      revision)));
  EXPECT_THAT(Names(), ElementsAre("floor"));

  ASSERT_TRUE(DeleteTerrain("floor", revision, &deleted).ok());
  EXPECT_EQ(deleted.revision(), revision);
  EXPECT_EQ(List().terrains_size(), 0);

  status = DeleteTerrain("floor", "", &deleted);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_THAT(status.error_message(),
              StartsWith("name: terrain 'floor' is not registered"));
  status = DeleteTerrain("", "", &deleted);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(), StartsWith("name: required"));

  status = GroundOn("floor", &grounded);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_THAT(status.error_message(),
              StartsWith("ground.terrains[0]: terrain 'floor' is not "
                         "registered"));

  // Deleting without a revision works too, and the name is free again.
  MustRegister(Floor("floor", 0.5));
  ASSERT_TRUE(DeleteTerrain("floor", "", &deleted).ok());
  EXPECT_EQ(List().terrains_size(), 0);
}

using BadTerrain = BadRequest<v1::RegisterTerrainRequest>;

class TerrainErrorTest : public TerrainServiceTest,
                         public ::testing::WithParamInterface<BadTerrain> {};

// Every bad request replaces a registered terrain: the old one must stay.
TEST_P(TerrainErrorTest, IsRejectedAndNothingChanges) {
  MustRegister(Floor("keep"));
  const std::string before = List().SerializeAsString();
  v1::RegisterTerrainRequest request;
  *request.mutable_terrain() = Floor("keep", 0.3);
  request.set_replace(true);
  GetParam().mutate(request);
  v1::RegisterTerrainResponse response;
  grpc::Status status =
      stub_->RegisterTerrain(Context().get(), request, &response);
  EXPECT_EQ(status.error_code(), GetParam().code) << status.error_message();
  EXPECT_THAT(status.error_message(), StartsWith(GetParam().message));
  EXPECT_EQ(List().SerializeAsString(), before);
}

v1::TriangleMesh& Mesh(v1::RegisterTerrainRequest& request) {
  return *request.mutable_terrain()->mutable_mesh();
}
// Turns the request's terrain into Hills("keep") and returns its grid.
v1::Heightfield& Field(v1::RegisterTerrainRequest& request) {
  *request.mutable_terrain() = Hills("keep");
  return *request.mutable_terrain()->mutable_heightfield();
}

INSTANTIATE_TEST_SUITE_P(
    All, TerrainErrorTest,
    ::testing::Values(
        BadTerrain{"NoTerrain", [](auto& r) { r.clear_terrain(); },
                   grpc::StatusCode::INVALID_ARGUMENT, "terrain: required"},
        BadTerrain{"EmptyName",
                   [](auto& r) { r.mutable_terrain()->clear_name(); },
                   grpc::StatusCode::INVALID_ARGUMENT, "terrain.name: empty"},
        BadTerrain{"NameWithASlash",
                   [](auto& r) { r.mutable_terrain()->set_name("keep/2"); },
                   grpc::StatusCode::INVALID_ARGUMENT,
                   "terrain.name: 'keep/2' is not a valid name"},
        BadTerrain{"NameWithASpace",
                   [](auto& r) { r.mutable_terrain()->set_name("my floor"); },
                   grpc::StatusCode::INVALID_ARGUMENT, "terrain.name: "},
        BadTerrain{"NameTooLong",
                   [](auto& r) {
                     r.mutable_terrain()->set_name(std::string(129, 'k'));
                   },
                   grpc::StatusCode::INVALID_ARGUMENT,
                   "terrain.name: "
                   "'kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk"
                   "kkkkkk"},
        BadTerrain{
            "NoShape", [](auto& r) { r.mutable_terrain()->clear_shape(); },
            grpc::StatusCode::INVALID_ARGUMENT,
            "terrain.heightfield: one of heightfield or mesh is required"},
        BadTerrain{"VerticesNotInThrees",
                   [](auto& r) { Mesh(r).add_vertices(0.0); },
                   grpc::StatusCode::INVALID_ARGUMENT,
                   "terrain.mesh.vertices: 28 values, not a multiple of 3"},
        BadTerrain{"VertexNotANumber",
                   [](auto& r) { Mesh(r).set_vertices(4, NAN); },
                   grpc::StatusCode::INVALID_ARGUMENT,
                   "terrain.mesh.vertices[4]: not finite"},
        BadTerrain{"VertexInfinite",
                   [](auto& r) { Mesh(r).set_vertices(4, -INFINITY); },
                   grpc::StatusCode::INVALID_ARGUMENT,
                   "terrain.mesh.vertices[4]: not finite"},
        BadTerrain{"VertexTooFar",
                   [](auto& r) { Mesh(r).set_vertices(4, 2e9); },
                   grpc::StatusCode::INVALID_ARGUMENT,
                   "terrain.mesh.vertices[4]: 2e+09 is beyond 1e+09 m"},
        BadTerrain{"IndexOutOfRange",
                   [](auto& r) { Mesh(r).set_indices(5, 9); },
                   grpc::StatusCode::INVALID_ARGUMENT,
                   "terrain.mesh.indices[5]: 9 is out of range [0, 9)"},
        BadTerrain{"IndicesNotInThrees",
                   [](auto& r) { Mesh(r).add_indices(0); },
                   grpc::StatusCode::INVALID_ARGUMENT,
                   "terrain.mesh.indices: 25 values, not a multiple of 3"},
        BadTerrain{"DegenerateTriangle",
                   [](auto& r) {
                     // Vertices 0, 1 and 2 lie on one line.
                     Mesh(r).set_indices(3, 0);
                     Mesh(r).set_indices(4, 1);
                     Mesh(r).set_indices(5, 2);
                   },
                   grpc::StatusCode::INVALID_ARGUMENT,
                   "terrain.mesh.indices[3]: triangle 1 (vertices 0, 1, 2) "
                   "is degenerate"},
        BadTerrain{"RepeatedVertexInATriangle",
                   [](auto& r) { Mesh(r).set_indices(7, 1); },
                   grpc::StatusCode::INVALID_ARGUMENT,
                   "terrain.mesh.indices[6]: triangle 2"},
        BadTerrain{"EmptyMesh", [](auto& r) { Mesh(r).Clear(); },
                   grpc::StatusCode::INVALID_ARGUMENT,
                   "terrain.mesh.vertices: empty"},
        BadTerrain{"NoTriangles", [](auto& r) { Mesh(r).clear_indices(); },
                   grpc::StatusCode::INVALID_ARGUMENT,
                   "terrain.mesh.indices: empty"},
        BadTerrain{"HeightfieldOneColumn",
                   [](auto& r) { Field(r).set_columns(1); },
                   grpc::StatusCode::INVALID_ARGUMENT,
                   "terrain.heightfield.columns: at least 2 needed, got 1"},
        BadTerrain{"HeightfieldNegativeSpacing",
                   [](auto& r) { Field(r).set_spacing_z(-0.5); },
                   grpc::StatusCode::INVALID_ARGUMENT,
                   "terrain.heightfield.spacing_z: "},
        BadTerrain{"HeightfieldHeightNotANumber",
                   [](auto& r) { Field(r).set_heights(4, NAN); },
                   grpc::StatusCode::INVALID_ARGUMENT,
                   "terrain.heightfield.heights[4]: not finite"},
        BadTerrain{"HeightfieldTooFewHeights",
                   [](auto& r) { Field(r).mutable_heights()->RemoveLast(); },
                   grpc::StatusCode::INVALID_ARGUMENT,
                   "terrain.heightfield.heights: 8 values, expected 9"},
        BadTerrain{"HeightfieldOriginNotFinite",
                   [](auto& r) { Field(r).mutable_origin()->set_x(INFINITY); },
                   grpc::StatusCode::INVALID_ARGUMENT,
                   "terrain.heightfield.origin: not finite"}),
    BadRequestName());

TEST_F(TerrainServiceTest, SizeLimitsAreResourceExhausted) {
  ServerOptions options;
  options.limits.max_mesh_triangles = 9;
  options.limits.max_heightfield_samples = 9;
  options.limits.max_terrains = 2;
  StartServer(options);
  v1::RegisterTerrainResponse response;

  // 16 vertices.
  v1::Terrain big = Floor("big");
  *big.mutable_mesh() = GridMesh(3, 3, 0.5, 0.0, 0.0, 0.0, 0.0);
  grpc::Status status = RegisterTerrain(big, false, &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_THAT(status.error_message(),
              StartsWith("terrain.mesh.vertices: 16 vertices exceed the "
                         "limit of 9"));
  // 4 vertices, 10 triangles (the same two, five times).
  *big.mutable_mesh() = GridMesh(1, 1, 0.5, 0.0, 0.0, 0.0, 0.0);
  for (int copy = 0; copy < 4; ++copy) {
    for (int i = 0; i < 6; ++i) {
      big.mutable_mesh()->add_indices(big.mesh().indices(i));
    }
  }
  status = RegisterTerrain(big, false, &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_THAT(status.error_message(),
              StartsWith("terrain.mesh.indices: 10 triangles exceed the "
                         "limit of 9"));
  // 12 samples.
  v1::Terrain wide = Hills("wide");
  v1::Heightfield& field = *wide.mutable_heightfield();
  field.set_columns(4);
  for (int i = 0; i < 3; ++i) field.add_heights(0.0);
  status = RegisterTerrain(wide, false, &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_THAT(status.error_message(),
              StartsWith("terrain.heightfield.heights: 12 samples (4 x 3) "
                         "exceed the limit of 9"));
  EXPECT_EQ(List().terrains_size(), 0);

  // At the limits: fine.
  MustRegister(Floor("a"));
  MustRegister(Hills("b"));
  status = RegisterTerrain(Floor("c"), false, &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_THAT(status.error_message(),
              StartsWith("terrain.name: the registry holds 2 terrains"));
  EXPECT_THAT(status.error_message(), HasSubstr("'c'"));
  // Registered names may still be registered again or replaced.
  ASSERT_TRUE(RegisterTerrain(Floor("a"), false, &response).ok());
  ASSERT_TRUE(RegisterTerrain(Floor("a", 1.0), true, &response).ok());
  EXPECT_TRUE(response.replaced());
  v1::DeleteTerrainResponse deleted;
  ASSERT_TRUE(DeleteTerrain("b", "", &deleted).ok());
  MustRegister(Floor("c"));
  EXPECT_THAT(Names(), ElementsAre("a", "c"));
}

}  // namespace
}  // namespace ik::server
