// Recordings are files from anywhere: the inspector reads seeded
// corruptions of a real-shaped recording (cut short anywhere, bytes
// flipped, bytes inserted) and crafted records (a heightfield whose
// columns x rows overflow an int, counts that do not match the heights,
// mesh indices past the vertices, single calls' answers naming joints the
// rig does not have) and never crashes: each either reads,
// inspects and draws every tick, or is refused with a message naming the
// file.
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "google/protobuf/util/delimited_message_util.h"
#include "gtest/gtest.h"
#include "ik/v1/tick.pb.h"
#include "inspection.h"
#include "inspector_test_rig.h"
#include "recording.h"

namespace ik::inspector {
namespace {

std::string FreshFile(const std::string& name) {
  const std::string directory =
      ::testing::TempDir() + "/inspection_fuzz_test_" + name;
  std::filesystem::remove_all(directory);
  std::filesystem::create_directories(directory);
  return directory + "/ikd-0001.ikrec";
}

std::string Delimited(const std::vector<v1::RecordEntry>& entries) {
  std::string bytes;
  for (const v1::RecordEntry& entry : entries) {
    google::protobuf::io::StringOutputStream out(&bytes);
    EXPECT_TRUE(google::protobuf::util::SerializeDelimitedToZeroCopyStream(
        entry, &out));
  }
  return bytes;
}

// A recording of the test rig: a heightfield, a mesh, and ticks whose
// characters carry poses, goals and answers.
std::vector<v1::RecordEntry> Entries() {
  std::vector<v1::RecordEntry> entries(3);
  entries[0].mutable_header()->set_format("ikd recording 1");
  entries[0].mutable_header()->set_file_number(1);
  *entries[1].mutable_rig() = TestRig();
  v1::RecordedTerrain& field = *entries[2].mutable_terrain();
  field.set_revision("sha256:field");
  field.mutable_terrain()->set_name("field");
  v1::Heightfield& heights = *field.mutable_terrain()->mutable_heightfield();
  heights.set_columns(3);
  heights.set_rows(2);
  heights.set_spacing_x(1.0);
  heights.set_spacing_z(1.0);
  for (int i = 0; i < 6; ++i) heights.add_heights(0.1 * i);
  v1::RecordEntry mesh;
  mesh.mutable_terrain()->set_revision("sha256:mesh");
  v1::TriangleMesh& triangles =
      *mesh.mutable_terrain()->mutable_terrain()->mutable_mesh();
  mesh.mutable_terrain()->mutable_terrain()->set_name("mesh");
  for (const double v : {0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0}) {
    triangles.add_vertices(v);
  }
  for (const uint32_t i : {0u, 1u, 2u}) triangles.add_indices(i);
  entries.push_back(mesh);
  for (int tick = 0; tick < 4; ++tick) {
    v1::TickRequest request;
    request.set_sequence(tick + 1);
    v1::TickResponse response;
    for (int c = 0; c < 3; ++c) {
      v1::TickCharacter& character = *request.add_characters();
      character.set_id("npc-" + std::to_string(c));
      character.set_rig("arm");
      character.set_revision("sha256:test");
      v1::Pose& pose = *character.mutable_pose();
      for (int j = 0; j < 4; ++j) {
        pose.add_rotations(0.0);
        pose.add_rotations(0.0);
        pose.add_rotations(0.1 * j);
        pose.add_rotations(1.0);
      }
      character.add_goals()->set_chain("arm");
      v1::TickCharacterResult& result = *response.add_characters();
      result.set_id(character.id());
      result.mutable_status()->set_code(c == 2 ? 3 : 0);
    }
    v1::RecordEntry call;
    call.mutable_call()->set_method("Tick");
    call.mutable_call()->set_request(request.SerializeAsString());
    call.mutable_call()->set_response(response.SerializeAsString());
    call.mutable_call()->add_terrains()->set_revision("sha256:field");
    entries.push_back(call);
  }
  // Single calls, drawn as one-character ticks; one answer names a joint
  // past the rig's, one a negative index.
  v1::Pose pose;
  pose.mutable_root()->mutable_translation()->set_x(1.0);
  v1::SolveChainRequest solve;
  solve.set_rig("arm");
  *solve.mutable_pose() = pose;
  solve.add_goals()->set_chain("arm");
  v1::SolveChainResponse solved;
  v1::GoalResult& goal = *solved.add_results();
  for (const int index : {1, 2, 1000000, -5}) {
    v1::JointRotation& rotation = *goal.add_rotations();
    rotation.set_index(index);
    rotation.mutable_rotation()->set_w(1.0);
  }
  v1::GroundFeetRequest ground;
  ground.set_rig("arm");
  v1::GroundFeetResponse grounded;
  grounded.mutable_root_offset()->set_y(-0.1);
  v1::StepDynamicsRequest dynamics;
  dynamics.set_rig("arm");
  v1::StepDynamicsResponse stepped;
  stepped.add_results()->add_rotations()->set_index(3);
  const auto single = [&](const std::string& method,
                          const google::protobuf::Message& request,
                          const google::protobuf::Message& response) {
    v1::RecordEntry call;
    call.mutable_call()->set_method(method);
    call.mutable_call()->set_request(request.SerializeAsString());
    call.mutable_call()->set_response(response.SerializeAsString());
    entries.push_back(call);
  };
  single("SolveChain", solve, solved);
  single("GroundFeet", ground, grounded);
  single("StepDynamics", dynamics, stepped);
  return entries;
}

// Reads `bytes` as a recording file and, where it reads, inspects it and
// draws every tick. Returns whether it read.
bool InspectBytes(const std::string& name, const std::string& bytes) {
  const std::string path = FreshFile(name);
  std::ofstream(path, std::ios::binary) << bytes;
  absl::StatusOr<Recording> recording = ReadRecording(path);
  if (!recording.ok()) {
    EXPECT_NE(recording.status().message().find("ikd-0001.ikrec"),
              std::string::npos)
        << recording.status();
    return false;
  }
  Inspection inspection(*std::move(recording));
  EXPECT_FALSE(inspection.RecordingJson().empty());
  for (int i = 0; i < inspection.tick_count(); ++i) {
    EXPECT_TRUE(inspection.TickJson(i).ok()) << name << " tick " << i;
  }
  for (const std::string id : {"npc-0", "npc-2", "SolveChain"}) {
    EXPECT_FALSE(inspection.TrackJson(id).empty());
  }
  return true;
}

TEST(InspectionFuzzTest, TheUncorruptedRecordingInspects) {
  EXPECT_TRUE(InspectBytes("clean", Delimited(Entries())));
  const std::string path = FreshFile("count");
  std::ofstream(path, std::ios::binary) << Delimited(Entries());
  absl::StatusOr<Recording> recording = ReadRecording(path);
  ASSERT_TRUE(recording.ok()) << recording.status();
  // Four ticks and the three single calls.
  EXPECT_EQ(recording->ticks.size(), 7u);
}

TEST(InspectionFuzzTest, CraftedTerrainsDrawWithoutReadingPastTheirData) {
  std::vector<v1::RecordEntry> entries = Entries();
  v1::Heightfield& heights =
      *entries[2].mutable_terrain()->mutable_terrain()->mutable_heightfield();
  // 65,536 x 65,536 overflows an int to 0: no heights match that.
  heights.set_columns(65536);
  heights.set_rows(65536);
  heights.clear_heights();
  EXPECT_TRUE(InspectBytes("overflow", Delimited(entries)));
  heights.set_columns(-3);
  heights.set_rows(-2);
  EXPECT_TRUE(InspectBytes("negative", Delimited(entries)));
  v1::TriangleMesh& mesh =
      *entries[3].mutable_terrain()->mutable_terrain()->mutable_mesh();
  mesh.add_indices(4000000000u);
  mesh.add_vertices(1.0);
  EXPECT_TRUE(InspectBytes("indices", Delimited(entries)));
}

TEST(InspectionFuzzTest, SeededCorruptionsReadOrAreRefusedNeverCrash) {
  const std::string clean = Delimited(Entries());
  std::mt19937_64 engine(20261207);
  int read = 0;
  for (int i = 0; i < 400; ++i) {
    std::string bytes = clean;
    std::uniform_int_distribution<size_t> at(0, bytes.size() - 1);
    switch (i % 4) {
      case 0:  // cut short anywhere
        bytes.resize(at(engine));
        break;
      case 1:  // 1 to 8 bytes flipped
        for (int k = 1 + static_cast<int>(engine() % 8); k > 0; --k) {
          bytes[at(engine)] ^= static_cast<char>(1 + engine() % 255);
        }
        break;
      case 2:  // random bytes inserted
        bytes.insert(at(engine), std::string(1 + engine() % 16,
                                             static_cast<char>(engine())));
        break;
      default:  // one byte set to a large varint's
        bytes[at(engine)] = static_cast<char>(0xFF);
        break;
    }
    read += InspectBytes("seed" + std::to_string(i % 8), bytes);
  }
  // Most corruptions leave a readable prefix (a recording keeps what came
  // before a record it cannot read).
  EXPECT_GT(read, 100);
}

}  // namespace
}  // namespace ik::inspector
