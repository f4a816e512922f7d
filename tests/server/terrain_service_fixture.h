// The fixture of the terrain service tests (terrain_service_test.cc,
// terrain_loading_test.cc): a real server and channel, terrain builders
// and the registry calls.
#ifndef IK_TESTS_SERVER_TERRAIN_SERVICE_FIXTURE_H_
#define IK_TESTS_SERVER_TERRAIN_SERVICE_FIXTURE_H_

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
#include "service_fixture.h"

namespace ik::server {

// A level square of ground: 2 x 2 cells of 0.5 m (9 vertices, 8
// triangles) centred on the origin at height `y`.
inline v1::Terrain Floor(const std::string& name, double y = 0.0) {
  v1::Terrain terrain;
  terrain.set_name(name);
  *terrain.mutable_mesh() =
      ::ik::testing::GridMesh(2, 2, 0.5, -0.5, -0.5, y, 0.0);
  return terrain;
}

// A 3 x 3 heightfield from (1, 2, 3), 0.5 m apart.
inline v1::Terrain Hills(const std::string& name, double peak = 0.4) {
  v1::Terrain terrain;
  terrain.set_name(name);
  v1::Heightfield& field = *terrain.mutable_heightfield();
  *field.mutable_origin() = ::ik::testing::Vec(1, 2, 3);
  field.set_spacing_x(0.5);
  field.set_spacing_z(0.5);
  field.set_columns(3);
  field.set_rows(3);
  for (double height : {0.0, 0.1, 0.0, 0.1, peak, 0.1, -0.2, 0.1, 0.0}) {
    field.add_heights(height);
  }
  return terrain;
}

inline void ExpectVec(const v1::Vec3& actual, double x, double y, double z) {
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

}  // namespace ik::server

#endif  // IK_TESTS_SERVER_TERRAIN_SERVICE_FIXTURE_H_
