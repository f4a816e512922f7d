#include "recording.h"

#include <filesystem>
#include <fstream>
#include <string>
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
  other.mutable_call()->set_method("SolveChain");
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
