// Terrains loaded at start-up and large meshes, through a real server: the
// bundled terrain directory, bad files (named with their field), duplicate
// names and the directory limit, and the gRPC message size limit with a
// 100,000-triangle mesh.

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
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
