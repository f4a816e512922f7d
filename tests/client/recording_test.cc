#include "recording.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "google/protobuf/util/delimited_message_util.h"
#include "gtest/gtest.h"
#include "ik/v1/tick.pb.h"

namespace ik::inspector {
namespace {

using ::testing::HasSubstr;

// A fresh directory under the test's temporary directory.
std::string FreshDirectory(const std::string& name) {
  const std::string path = ::testing::TempDir() + "/recording_test_" + name;
  std::filesystem::remove_all(path);
  std::filesystem::create_directories(path);
  return path;
}

v1::RecordEntry Header(uint64_t file_number) {
  v1::RecordEntry entry;
  entry.mutable_header()->set_format("ikd recording 1");
  entry.mutable_header()->set_file_number(file_number);
  return entry;
}

v1::RecordEntry Rig(const std::string& name, const std::string& revision) {
  v1::RecordEntry entry;
  entry.mutable_rig()->set_revision(revision);
  entry.mutable_rig()->mutable_rig()->set_name(name);
  return entry;
}

// A Tick call of one character `id`; its answer fails the character when
// `code` is not 0.
v1::RecordEntry TickCall(const std::string& id, uint64_t sequence, int code) {
  v1::TickRequest request;
  request.set_sequence(sequence);
  request.add_characters()->set_id(id);
  v1::TickResponse response;
  response.add_characters()->mutable_status()->set_code(code);
  v1::RecordEntry entry;
  entry.mutable_call()->set_method("Tick");
  entry.mutable_call()->set_request(request.SerializeAsString());
  entry.mutable_call()->set_response(response.SerializeAsString());
  return entry;
}

void Write(const std::string& path, const std::vector<v1::RecordEntry>& entries,
           const std::string& tail = "") {
  std::ofstream out(path, std::ios::binary);
  for (const v1::RecordEntry& entry : entries) {
    ASSERT_TRUE(
        google::protobuf::util::SerializeDelimitedToOstream(entry, &out));
  }
  out << tail;
}

TEST(ReadRecordingTest, ReadsADirectorysFilesInNameOrder) {
  const std::string dir = FreshDirectory("order");
  v1::RecordEntry other;
  other.mutable_call()->set_method("Frobnicate");
  Write(dir + "/b.ikrec", {Header(2), TickCall("second", 2, 0)});
  Write(dir + "/a.ikrec",
        {Header(1), Rig("arm", "sha256:1"), TickCall("first", 1, 5), other});
  Write(dir + "/notes.txt", {});
  absl::StatusOr<Recording> recording = ReadRecording(dir);
  ASSERT_TRUE(recording.ok()) << recording.status();
  ASSERT_EQ(recording->files.size(), 2u);
  EXPECT_THAT(recording->files[0], HasSubstr("a.ikrec"));
  ASSERT_EQ(recording->ticks.size(), 2u);
  EXPECT_EQ(recording->ticks[0].sequence, 1u);
  EXPECT_EQ(recording->ticks[0].failed, 1);
  EXPECT_EQ(recording->ticks[1].sequence, 2u);
  EXPECT_EQ(recording->other_calls, 1);
  EXPECT_EQ(FindRig(*recording, "arm", "")->revision(), "sha256:1");
  EXPECT_EQ(FindRig(*recording, "arm", "sha256:2"), nullptr);
}

v1::JointRotation Turn(int index, double z) {
  v1::JointRotation rotation;
  rotation.set_name("ignored");
  rotation.set_index(index);
  rotation.mutable_rotation()->set_z(z);
  rotation.mutable_rotation()->set_w(std::sqrt(1.0 - z * z));
  return rotation;
}

v1::RecordEntry SingleCall(const std::string& method,
                           const google::protobuf::Message& request,
                           const google::protobuf::Message& response,
                           int code = 0) {
  v1::RecordEntry entry;
  entry.mutable_call()->set_method(method);
  entry.mutable_call()->set_request(request.SerializeAsString());
  if (code == 0) {
    entry.mutable_call()->set_response(response.SerializeAsString());
  }
  entry.mutable_call()->set_code(code);
  return entry;
}

// The character's final pose as (joint, z) pairs.
std::vector<std::pair<int, double>> FinalTurns(
    const v1::TickCharacterResult& result) {
  std::vector<std::pair<int, double>> out;
  for (int k = 0; k < result.joints_size(); ++k) {
    out.emplace_back(result.joints(k), result.rotations(4 * k + 2));
  }
  return out;
}

TEST(ReadRecordingTest, ReadsSingleCallsAsOneCharacterTicks) {
  v1::Pose pose;
  pose.mutable_root()->mutable_translation()->set_y(2.0);
  pose.add_rotations(0.0);

  v1::SolveChainRequest solve;
  solve.set_rig("arm");
  solve.set_revision("sha256:1");
  *solve.mutable_pose() = pose;
  solve.add_goals()->set_chain("upper");
  solve.add_goals()->set_chain("lower");
  v1::SolveChainResponse solved;
  solved.set_revision("sha256:1");
  v1::GoalResult* first = solved.add_results();
  *first->add_rotations() = Turn(3, 0.1);
  *first->add_rotations() = Turn(1, 0.2);
  first->set_branch_switch(true);
  // The second goal turns joint 3 again: the final pose has its last turn.
  *solved.add_results()->add_rotations() = Turn(3, 0.3);
  solved.mutable_results(1)->set_reached(false);

  v1::GroundFeetRequest ground;
  ground.set_rig("biped");
  *ground.mutable_pose() = pose;
  ground.mutable_ground()->add_terrains("stairs");
  v1::GroundFeetResponse grounded;
  grounded.mutable_root_offset()->set_y(-0.25);
  *grounded.add_rotations() = Turn(2, 0.4);

  v1::StepDynamicsRequest dynamics;
  dynamics.set_rig("tail");
  dynamics.set_delta_time(0.5);
  v1::StepDynamicsResponse stepped;
  *stepped.add_results()->add_rotations() = Turn(5, 0.5);

  const std::string dir = FreshDirectory("single");
  Write(dir + "/a.ikrec",
        {Header(1), SingleCall("SolveChain", solve, solved),
         SingleCall("GroundFeet", ground, grounded),
         SingleCall("StepDynamics", dynamics, stepped),
         SingleCall("SolveChain", solve, solved, /*code=*/3)});
  absl::StatusOr<Recording> recording = ReadRecording(dir);
  ASSERT_TRUE(recording.ok()) << recording.status();
  EXPECT_EQ(recording->other_calls, 0);
  ASSERT_EQ(recording->ticks.size(), 4u);
  std::vector<v1::TickRequest> requests(4);
  std::vector<v1::TickResponse> responses(4);
  for (int i = 0; i < 4; ++i) {
    const RecordedTick& tick = recording->ticks[i];
    ASSERT_TRUE(requests[i].ParseFromString(tick.call.request()));
    ASSERT_TRUE(responses[i].ParseFromString(tick.call.response()));
    ASSERT_EQ(requests[i].characters_size(), 1);
    ASSERT_EQ(responses[i].characters_size(), 1);
    EXPECT_TRUE(requests[i].job_rotations());
    EXPECT_EQ(requests[i].characters(0).id(), tick.call.method());
    EXPECT_EQ(responses[i].characters(0).id(), tick.call.method());
    EXPECT_EQ(tick.characters, 1);
  }

  // SolveChain: its goals the character's, its results the goals' answers.
  const v1::TickCharacter& solver = requests[0].characters(0);
  EXPECT_EQ(solver.rig(), "arm");
  EXPECT_EQ(solver.revision(), "sha256:1");
  EXPECT_EQ(solver.pose().root().translation().y(), 2.0);
  ASSERT_EQ(solver.goals_size(), 2);
  EXPECT_EQ(solver.goals(1).chain(), "lower");
  const v1::TickCharacterResult& solution = responses[0].characters(0);
  EXPECT_EQ(solution.revision(), "sha256:1");
  ASSERT_EQ(solution.goals_size(), 2);
  EXPECT_TRUE(solution.goals(0).branch_switch());
  EXPECT_THAT(FinalTurns(solution),
              ::testing::ElementsAre(std::pair(1, 0.2), std::pair(3, 0.3)));
  EXPECT_EQ(solution.root().translation().y(), 2.0);
  EXPECT_EQ(recording->ticks[0].unreached, 1);
  EXPECT_EQ(recording->ticks[0].failed, 0);

  // GroundFeet: the job the character's ground, the root lowered.
  const v1::TickCharacter& walker = requests[1].characters(0);
  EXPECT_TRUE(walker.has_ground());
  EXPECT_EQ(walker.ground().rig(), "");
  EXPECT_FALSE(walker.ground().has_pose());
  EXPECT_EQ(walker.ground().ground().terrains(0), "stairs");
  const v1::TickCharacterResult& grounding = responses[1].characters(0);
  EXPECT_EQ(grounding.root().translation().y(), 1.75);
  EXPECT_THAT(FinalTurns(grounding), ::testing::ElementsAre(std::pair(2, 0.4)));

  // StepDynamics: its chains' rotations the final pose.
  EXPECT_EQ(requests[2].characters(0).dynamics().delta_time(), 0.5);
  EXPECT_EQ(requests[2].characters(0).rig(), "tail");
  EXPECT_THAT(FinalTurns(responses[2].characters(0)),
              ::testing::ElementsAre(std::pair(5, 0.5)));

  // A failed call: its one character failed, no answer read.
  EXPECT_EQ(recording->ticks[3].failed, 1);
  EXPECT_EQ(recording->ticks[3].call.code(), 3);
  EXPECT_EQ(responses[3].characters(0).goals_size(), 0);
}

TEST(ReadRecordingTest, ListsASingleCallWhoseRequestDoesNotParseAsEmpty) {
  v1::RecordEntry entry;
  entry.mutable_call()->set_method("GroundFeet");
  entry.mutable_call()->set_request("\xff\xff\xff");
  const std::string dir = FreshDirectory("single_bad");
  Write(dir + "/a.ikrec", {Header(1), entry});
  absl::StatusOr<Recording> recording = ReadRecording(dir);
  ASSERT_TRUE(recording.ok()) << recording.status();
  ASSERT_EQ(recording->ticks.size(), 1u);
  EXPECT_EQ(recording->ticks[0].characters, 0);
  EXPECT_TRUE(recording->ticks[0].call.request().empty());
}

TEST(ReadRecordingTest, RefusesAFileWithoutARecordingHeaderNamingIt) {
  const std::string dir = FreshDirectory("not");
  const std::string path = dir + "/rig.json.ikrec";
  std::ofstream(path) << "{\"name\": \"arm\"}";
  absl::StatusOr<Recording> recording = ReadRecording(path);
  EXPECT_EQ(recording.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(recording.status().message(),
              HasSubstr(path + ": not an ikd recording"));

  Write(path, {});  // empty
  EXPECT_EQ(ReadRecording(path).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(ReadRecordingTest, SaysWhenThereIsNothingToRead) {
  const std::string dir = FreshDirectory("empty");
  EXPECT_EQ(ReadRecording(dir).status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(ReadRecording(dir + "/missing.ikrec").status().message(),
              HasSubstr("missing.ikrec: no such file"));
}

TEST(ReadRecordingTest, KeepsWhatCameBeforeATruncatedLastEntry) {
  const std::string dir = FreshDirectory("truncated");
  // A length of 100 bytes followed by 3.
  Write(dir + "/a.ikrec", {Header(1), TickCall("whole", 1, 0)},
        std::string("\x64xyz", 4));
  absl::StatusOr<Recording> recording = ReadRecording(dir);
  ASSERT_TRUE(recording.ok()) << recording.status();
  EXPECT_EQ(recording->ticks.size(), 1u);
  ASSERT_EQ(recording->warnings.size(), 1u);
  EXPECT_THAT(recording->warnings[0], HasSubstr("entry 2 is truncated"));
}

}  // namespace
}  // namespace ik::inspector
