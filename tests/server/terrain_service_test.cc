// RegisterTerrain, ListTerrains and DeleteTerrain through a real channel:
// idempotent registration, replacement, listing, deletion, every bad input
// (with nothing half-registered), the service's size limits, the terrain
// directory loaded at start-up, and the message size limit with a
// 100,000-triangle mesh.
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ik/rig_json.h"
#include "tests/server/service_fixture.h"

namespace ik::server {
namespace {

using ::ik::testing::GridMesh;
using ::ik::testing::Vec;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::MatchesRegex;
using ::testing::StartsWith;

// A level square of ground: 2 x 2 cells of 0.5 m (9 vertices, 8
// triangles) centred on the origin at height `y`.
v1::Terrain Floor(const std::string& name, double y = 0.0) {
  v1::Terrain terrain;
  terrain.set_name(name);
  *terrain.mutable_mesh() = GridMesh(2, 2, 0.5, -0.5, -0.5, y, 0.0);
  return terrain;
}

// A 3 x 3 heightfield from (1, 2, 3), 0.5 m apart.
v1::Terrain Hills(const std::string& name, double peak = 0.4) {
  v1::Terrain terrain;
  terrain.set_name(name);
  v1::Heightfield& field = *terrain.mutable_heightfield();
  *field.mutable_origin() = Vec(1, 2, 3);
  field.set_spacing_x(0.5);
  field.set_spacing_z(0.5);
  field.set_columns(3);
  field.set_rows(3);
  for (double height : {0.0, 0.1, 0.0, 0.1, peak, 0.1, -0.2, 0.1, 0.0}) {
    field.add_heights(height);
  }
  return terrain;
}

void ExpectVec(const v1::Vec3& actual, double x, double y, double z) {
  EXPECT_NEAR(actual.x(), x, 1e-12);
  EXPECT_NEAR(actual.y(), y, 1e-12);
  EXPECT_NEAR(actual.z(), z, 1e-12);
}

class TerrainServiceTest : public IkServiceTest {
 protected:
  grpc::Status RegisterTerrain(const v1::Terrain& terrain, bool replace,
                               v1::RegisterTerrainResponse* response) {
    v1::RegisterTerrainRequest request;
    *request.mutable_terrain() = terrain;
    request.set_replace(replace);
    return stub_->RegisterTerrain(Context().get(), request, response);
  }

  // Registers `terrain`, which must succeed; returns its revision.
  std::string MustRegister(const v1::Terrain& terrain) {
    v1::RegisterTerrainResponse response;
    grpc::Status status = RegisterTerrain(terrain, false, &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return response.revision();
  }

  v1::ListTerrainsResponse List() {
    v1::ListTerrainsResponse response;
    grpc::Status status = stub_->ListTerrains(
        Context().get(), v1::ListTerrainsRequest(), &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return response;
  }

  std::vector<std::string> Names() {
    std::vector<std::string> names;
    const v1::ListTerrainsResponse list = List();
    for (const v1::TerrainSummary& terrain : list.terrains()) {
      names.push_back(terrain.name());
    }
    return names;
  }

  grpc::Status DeleteTerrain(const std::string& name,
                             const std::string& revision,
                             v1::DeleteTerrainResponse* response) {
    v1::DeleteTerrainRequest request;
    request.set_name(name);
    request.set_revision(revision);
    return stub_->DeleteTerrain(Context().get(), request, response);
  }

  void RegisterHumanoid() {
    absl::StatusOr<v1::Rig> rig =
        ReadRigFile(std::string(IK_EXAMPLES_DIR) + "/rigs/humanoid.json");
    ASSERT_TRUE(rig.ok()) << rig.status();
    v1::RegisterRigResponse response;
    grpc::Status status = Register(*rig, false, &response);
    ASSERT_TRUE(status.ok()) << status.error_message();
  }

  // The humanoid at the origin, planted on the named terrain.
  grpc::Status GroundOn(const std::string& terrain,
                        v1::GroundFeetResponse* response) {
    v1::GroundFeetRequest request;
    request.set_rig("humanoid");
    request.mutable_ground()->add_terrains(terrain);
    return stub_->GroundFeet(Context().get(), request, response);
  }
};

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
              StartsWith("terrain 'floor' is not registered"));
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
        BadTerrain{
            "EmptyName", [](auto& r) { r.mutable_terrain()->clear_name(); },
            grpc::StatusCode::INVALID_ARGUMENT, "terrain.name: required"},
        BadTerrain{"NameWithASlash",
                   [](auto& r) { r.mutable_terrain()->set_name("keep/2"); },
                   grpc::StatusCode::INVALID_ARGUMENT,
                   "terrain.name: 'keep/2' has a character outside "
                   "[A-Za-z0-9_.-]"},
        BadTerrain{"NameWithASpace",
                   [](auto& r) { r.mutable_terrain()->set_name("my floor"); },
                   grpc::StatusCode::INVALID_ARGUMENT, "terrain.name: "},
        BadTerrain{"NameTooLong",
                   [](auto& r) {
                     r.mutable_terrain()->set_name(std::string(129, 'k'));
                   },
                   grpc::StatusCode::INVALID_ARGUMENT,
                   "terrain.name: 129 characters, at most 128"},
        BadTerrain{"NoShape",
                   [](auto& r) { r.mutable_terrain()->clear_shape(); },
                   grpc::StatusCode::INVALID_ARGUMENT,
                   "terrain.shape: one of heightfield or mesh is required"},
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

TEST_F(TerrainServiceTest, BundledTerrainDirectoryLoads) {
  ServerOptions options;
  options.terrain_dir = std::string(IK_EXAMPLES_DIR) + "/terrains";
  StartServer(options);
  EXPECT_EQ(server_->loaded_terrains(), 2);
  const v1::ListTerrainsResponse list = List();
  ASSERT_EQ(list.terrains_size(), 2);
  const v1::TerrainSummary& slope = list.terrains(0);
  EXPECT_EQ(slope.name(), "slope");
  EXPECT_EQ(slope.kind(), v1::TERRAIN_KIND_HEIGHTFIELD);
  EXPECT_EQ(slope.vertex_count(), 21 * 21);
  EXPECT_EQ(slope.triangle_count(), 2 * 20 * 20);
  const double rise = 2.5 * std::tan(12.0 * kPi / 180.0);
  EXPECT_NEAR(slope.bounds_min().y(), -rise, 1e-6);
  EXPECT_NEAR(slope.bounds_max().y(), rise, 1e-6);
  ExpectVec(Vec(slope.bounds_min().x(), 0, slope.bounds_min().z()), -2.5, 0,
            -2.5);
  ExpectVec(Vec(slope.bounds_max().x(), 0, slope.bounds_max().z()), 2.5, 0,
            2.5);
  const v1::TerrainSummary& stairs = list.terrains(1);
  EXPECT_EQ(stairs.name(), "stairs");
  EXPECT_EQ(stairs.kind(), v1::TERRAIN_KIND_MESH);
  EXPECT_EQ(stairs.vertex_count(), 52);
  EXPECT_EQ(stairs.triangle_count(), 26);
  ExpectVec(stairs.bounds_min(), -1.0, 0.0, -1.0);
  ExpectVec(stairs.bounds_max(), 1.0, 0.9, 2.8);

  // A file's terrain has the revision the same terrain gets by request.
  absl::StatusOr<v1::Terrain> file =
      ReadTerrainFile(std::string(IK_EXAMPLES_DIR) + "/terrains/stairs.json");
  ASSERT_TRUE(file.ok()) << file.status();
  v1::RegisterTerrainResponse response;
  ASSERT_TRUE(RegisterTerrain(*file, false, &response).ok());
  EXPECT_FALSE(response.created());
  EXPECT_EQ(response.revision(), stairs.revision());
}

class TerrainDirectoryTest : public TerrainServiceTest {
 protected:
  void SetUp() override {
    directory_ =
        std::filesystem::path(::testing::TempDir()) /
        absl::StrCat(
            "terrains_",
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(directory_);
    std::filesystem::create_directories(directory_);
  }
  void TearDown() override { std::filesystem::remove_all(directory_); }

  std::string Write(const std::string& file, const std::string& json) {
    const std::string path = (directory_ / file).string();
    std::ofstream out(path);
    out << json;
    EXPECT_TRUE(out.good()) << path;
    return path;
  }
  std::string Write(const std::string& file, const v1::Terrain& terrain) {
    return Write(file, ToJson(terrain));
  }

  absl::Status Start(int max_terrains = 256) {
    ServerOptions options;
    options.listen = "127.0.0.1:0";
    options.terrain_dir = directory_.string();
    options.limits.max_terrains = max_terrains;
    return IkServer::Start(options).status();
  }

  std::filesystem::path directory_;
};

TEST_F(TerrainDirectoryTest, LoadsEveryJsonFileAndIgnoresOthers) {
  Write("a.json", Floor("floor"));
  Write("b.json", Hills("hills"));
  Write("notes.txt", "not a terrain");
  ServerOptions options;
  options.terrain_dir = directory_.string();
  StartServer(options);
  EXPECT_EQ(server_->loaded_terrains(), 2);
  EXPECT_THAT(Names(), ElementsAre("floor", "hills"));
}

TEST_F(TerrainDirectoryTest, BadFileNamesTheFileAndTheField) {
  Write("a.json", Floor("floor"));
  v1::Terrain bad = Floor("broken");
  bad.mutable_mesh()->set_indices(5, 40);
  const std::string path = Write("b.json", bad);
  absl::Status status = Start();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(status.message()),
              StartsWith(absl::StrCat(path,
                                      ": mesh.indices[5]: 40 is out of "
                                      "range [0, 9)")));
}

TEST_F(TerrainDirectoryTest, BadNameInAFileNamesTheFileAndTheField) {
  const std::string path = Write("a.json", Hills("no good"));
  absl::Status status = Start();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(status.message()),
              StartsWith(absl::StrCat(path, ": name: ")));
}

TEST_F(TerrainDirectoryTest, UnknownJsonFieldNamesTheFileAndTheField) {
  const std::string path =
      Write("a.json", R"({"name": "floor", "mesh": {"vertex": [0, 0, 0]}})");
  absl::Status status = Start();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(status.message()),
              StartsWith(absl::StrCat(path, ": ")));
  EXPECT_THAT(std::string(status.message()), HasSubstr("vertex"));
}

TEST_F(TerrainDirectoryTest, SameNameInTwoFilesIsAnError) {
  const std::string first = Write("a.json", Floor("floor"));
  const std::string second = Write("b.json", Floor("floor", 1.0));
  absl::Status status = Start();
  EXPECT_EQ(status.code(), absl::StatusCode::kAlreadyExists);
  EXPECT_THAT(std::string(status.message()),
              StartsWith(absl::StrCat(second,
                                      ": name: terrain 'floor' is "
                                      "already defined by ",
                                      first)));
}

TEST_F(TerrainDirectoryTest, MoreFilesThanTheLimitIsResourceExhausted) {
  Write("a.json", Floor("a"));
  Write("b.json", Floor("b"));
  const std::string third = Write("c.json", Floor("c"));
  absl::Status status = Start(/*max_terrains=*/2);
  EXPECT_EQ(status.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(std::string(status.message()),
              StartsWith(absl::StrCat(third, ": ")));
}

TEST_F(TerrainDirectoryTest, MissingDirectoryIsNotFound) {
  directory_ /= "missing";
  absl::Status status = Start();
  EXPECT_EQ(status.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(status.message()), HasSubstr(directory_.string()));
}

// 224 x 224 cells of 5 cm on the plane y = 0.1 z: 50,625 vertices and
// 100,352 triangles, about 2 MiB on the wire.
v1::Terrain LargeRamp() {
  v1::Terrain terrain;
  terrain.set_name("large");
  *terrain.mutable_mesh() = GridMesh(224, 224, 0.05, -5.6, -5.6, 0.0, 0.1);
  return terrain;
}

TEST_F(TerrainServiceTest, LargeMeshFitsABigEnoughMessageLimit) {
  ServerOptions options;
  options.max_receive_message_bytes = 16 * 1024 * 1024;
  StartServer(options);
  RegisterHumanoid();
  const v1::Terrain large = LargeRamp();
  ASSERT_GT(large.ByteSizeLong(), 1024u * 1024u);
  v1::RegisterTerrainResponse response;
  grpc::Status status = RegisterTerrain(large, false, &response);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_TRUE(response.created());
  const v1::ListTerrainsResponse list = List();
  ASSERT_EQ(list.terrains_size(), 1);
  EXPECT_EQ(list.terrains(0).vertex_count(), 225 * 225);
  EXPECT_EQ(list.terrains(0).triangle_count(), 2 * 224 * 224);

  v1::GroundFeetResponse grounded;
  status = GroundOn("large", &grounded);
  ASSERT_TRUE(status.ok()) << status.error_message();
  ASSERT_EQ(grounded.feet_size(), 2);
  for (const v1::FootResult& foot : grounded.feet()) {
    SCOPED_TRACE(foot.leg());
    EXPECT_TRUE(foot.grounded());
    EXPECT_TRUE(foot.reached());
    EXPECT_NEAR(foot.contact_point().y(), 0.1 * foot.contact_point().z(), 1e-9);
    EXPECT_GT(foot.tilt(), 0.0);
  }
}

TEST_F(TerrainServiceTest, LargeMeshOverTheMessageLimitIsRefused) {
  ServerOptions options;
  options.max_receive_message_bytes = 1024 * 1024;
  StartServer(options);
  v1::RegisterTerrainResponse response;
  grpc::Status status = RegisterTerrain(LargeRamp(), false, &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_EQ(List().terrains_size(), 0);
  // The server keeps serving.
  MustRegister(Floor("floor"));
  EXPECT_THAT(Names(), ElementsAre("floor"));
}

}  // namespace
}  // namespace ik::server
