// ikd --record_dir over a real channel: what the files hold (a header, each
// rig once per file before the calls that used it, every recorded call's
// request and answer bytes and status), the character filter, the size
// bound with rotation, and a full buffer that drops calls, counted, without
// holding them up.
#include <google/protobuf/io/zero_copy_stream_impl.h>
#include <google/protobuf/util/delimited_message_util.h>
#include <sys/resource.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "ik/v1/recording.pb.h"
#include "service_fixture.h"
#include "terrain_service_fixture.h"

namespace ik::server {
namespace {

// Every entry of the recording file at `path`.
std::vector<v1::RecordEntry> ReadEntries(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  google::protobuf::io::IstreamInputStream stream(&in);
  std::vector<v1::RecordEntry> entries;
  bool clean_eof = false;
  // Parsing merges into the message: a fresh one each time.
  for (v1::RecordEntry entry;
       google::protobuf::util::ParseDelimitedFromZeroCopyStream(&entry, &stream,
                                                                &clean_eof);
       entry.Clear()) {
    entries.push_back(entry);
  }
  EXPECT_TRUE(clean_eof) << path;
  return entries;
}

class RecorderTest : public IkServiceTest {
 protected:
  void SetUp() override {}
  void TearDown() override { std::filesystem::remove_all(dir_); }

  void StartRecording(RecorderOptions record) {
    record.dir = dir_;
    ServerOptions options;
    options.record = std::move(record);
    StartServer(options);
    RegisterArm();
  }

  // A tick of the arm rig: characters `ids`, each with the arm's goal.
  static v1::TickRequest ArmTick(const std::vector<std::string>& ids) {
    v1::TickRequest tick;
    for (const std::string& id : ids) {
      v1::TickCharacter& character = *tick.add_characters();
      character.set_id(id);
      character.set_rig("arm");
      *character.add_goals() = ArmRequest().goals(0);
    }
    return tick;
  }

  const std::string dir_ = (std::filesystem::temp_directory_path() /
                            ("ikd_recorder_test_" + std::to_string(::getpid())))
                               .string();
};

TEST_F(RecorderTest, RecordsEachCallWithItsRigOncePerFile) {
  RecorderOptions record;
  record.methods = {"Tick", "SolveChain"};
  StartRecording(record);
  std::vector<v1::SolveChainResponse> answers(3);
  for (v1::SolveChainResponse& answer : answers) {
    ASSERT_TRUE(Solve(ArmRequest(), &answer).ok());
  }
  v1::SolveChainRequest unknown = ArmRequest();
  unknown.mutable_goals(0)->set_chain("no_such_chain");
  v1::SolveChainResponse refused;
  const grpc::Status failed = Solve(unknown, &refused);
  ASSERT_FALSE(failed.ok());
  v1::TickResponse tick_answer;
  ASSERT_TRUE(
      stub_->Tick(Context().get(), ArmTick({"a", "b"}), &tick_answer).ok());
  // Not recorded: a method left out of the options.
  v1::ListRigsResponse rigs;
  ASSERT_TRUE(stub_->ListRigs(Context().get(), {}, &rigs).ok());
  server_->recorder()->Flush();

  const std::vector<std::string> files = server_->recorder()->files();
  ASSERT_EQ(files.size(), 1u);
  const std::vector<v1::RecordEntry> entries = ReadEntries(files[0]);
  ASSERT_EQ(entries.size(), 7u);  // header, the rig, 5 calls
  ASSERT_TRUE(entries[0].has_header());
  EXPECT_EQ(entries[0].header().format(), "ikd recording 1");
  EXPECT_FALSE(entries[0].header().ikd_version().empty());
  ASSERT_TRUE(entries[1].has_rig());
  EXPECT_EQ(entries[1].rig().revision(), answers[0].revision());
  EXPECT_EQ(entries[1].rig().rig().name(), "arm");
  for (int k = 0; k < 3; ++k) {
    const v1::RecordedCall& call = entries[2 + k].call();
    EXPECT_EQ(call.method(), "SolveChain");
    EXPECT_EQ(call.request(), ArmRequest().SerializeAsString());
    EXPECT_EQ(call.response(), answers[k].SerializeAsString());
    EXPECT_EQ(call.code(), 0);
    ASSERT_EQ(call.rigs_size(), 1);
    EXPECT_EQ(call.rigs(0).revision(), answers[0].revision());
  }
  const v1::RecordedCall& refused_call = entries[5].call();
  EXPECT_EQ(refused_call.code(), static_cast<int>(failed.error_code()));
  EXPECT_EQ(refused_call.message(), failed.error_message());
  EXPECT_TRUE(refused_call.response().empty());
  const v1::RecordedCall& tick = entries[6].call();
  EXPECT_EQ(tick.method(), "Tick");
  EXPECT_EQ(tick.request(), ArmTick({"a", "b"}).SerializeAsString());
  EXPECT_EQ(tick.response(), tick_answer.SerializeAsString());
  EXPECT_EQ(server_->recorder()->counters().recorded.load(), 5);
}

// A tick's rigs and terrains are the entries its characters ran on: the
// shared ground's terrain, a character's own ground's, the rig once; a
// character whose rig is unknown adds nothing.
TEST_F(RecorderTest, ATickStoresTheRigAndTheTerrainsItsCharactersUsed) {
  StartRecording(RecorderOptions());
  v1::RegisterTerrainRequest terrain;
  v1::RegisterTerrainResponse registered;
  std::vector<std::string> revisions;
  for (const v1::Terrain& each : {Floor("floor"), Hills("hills")}) {
    *terrain.mutable_terrain() = each;
    ASSERT_TRUE(
        stub_->RegisterTerrain(Context().get(), terrain, &registered).ok());
    revisions.push_back(registered.revision());
  }
  v1::TickRequest tick = ArmTick({"a", "b", "c"});
  tick.mutable_shared_ground()->add_terrains("floor");
  tick.mutable_characters(1)->mutable_ground()->mutable_ground()->add_terrains(
      "hills");
  tick.mutable_characters(2)->set_rig("no_such_rig");
  v1::TickResponse answer;
  ASSERT_TRUE(stub_->Tick(Context().get(), tick, &answer).ok());
  ASSERT_EQ(answer.characters_size(), 3);
  EXPECT_EQ(answer.characters(2).status().code(), grpc::StatusCode::NOT_FOUND);
  server_->recorder()->Flush();

  const std::vector<v1::RecordEntry> entries =
      ReadEntries(server_->recorder()->files().back());
  ASSERT_EQ(entries.size(), 5u);  // header, rig, two terrains, the tick
  ASSERT_TRUE(entries[1].has_rig());
  EXPECT_EQ(entries[1].rig().revision(), answer.characters(0).revision());
  ASSERT_TRUE(entries[2].has_terrain());
  EXPECT_EQ(entries[2].terrain().terrain().name(), "floor");
  EXPECT_EQ(entries[2].terrain().revision(), revisions[0]);
  ASSERT_TRUE(entries[3].has_terrain());
  EXPECT_EQ(entries[3].terrain().terrain().name(), "hills");
  EXPECT_EQ(entries[3].terrain().revision(), revisions[1]);
  const v1::RecordedCall& call = entries[4].call();
  ASSERT_EQ(call.rigs_size(), 1);
  EXPECT_EQ(call.rigs(0).name(), "arm");
  ASSERT_EQ(call.terrains_size(), 2);
  EXPECT_EQ(call.terrains(0).name(), "floor");
  EXPECT_EQ(call.terrains(1).name(), "hills");
}

TEST_F(RecorderTest, KeepsOnlyTheFilteredCharactersOfATick) {
  RecorderOptions record;
  record.characters = {"b"};
  StartRecording(record);
  v1::TickResponse answer;
  ASSERT_TRUE(
      stub_->Tick(Context().get(), ArmTick({"a", "b", "c"}), &answer).ok());
  // A tick without the character is not recorded.
  ASSERT_TRUE(stub_->Tick(Context().get(), ArmTick({"a"}), &answer).ok());
  server_->recorder()->Flush();
  const std::vector<v1::RecordEntry> entries =
      ReadEntries(server_->recorder()->files().at(0));
  ASSERT_EQ(entries.size(), 3u);
  v1::TickRequest request;
  v1::TickResponse response;
  ASSERT_TRUE(request.ParseFromString(entries[2].call().request()));
  ASSERT_TRUE(response.ParseFromString(entries[2].call().response()));
  ASSERT_EQ(request.characters_size(), 1);
  EXPECT_EQ(request.characters(0).id(), "b");
  ASSERT_EQ(response.characters_size(), 1);
  EXPECT_EQ(response.characters(0).id(), "b");
}

TEST_F(RecorderTest, RotatesFilesAndKeepsTheirSizeBound) {
  RecorderOptions record;
  record.methods = {"SolveChain"};
  record.max_bytes = 8000;  // files of 2,000 bytes
  StartRecording(record);
  for (int k = 0; k < 60; ++k) {
    v1::SolveChainResponse answer;
    ASSERT_TRUE(Solve(ArmRequest(), &answer).ok());
  }
  server_->recorder()->Flush();
  const std::vector<std::string> files = server_->recorder()->files();
  ASSERT_GE(files.size(), 2u);
  std::uintmax_t total = 0;
  std::uint64_t number = 0;
  for (const std::string& file : files) {
    total += std::filesystem::file_size(file);
    const std::vector<v1::RecordEntry> entries = ReadEntries(file);
    ASSERT_GE(entries.size(), 3u) << file;
    // Every file stands alone: its header, then the rig, then calls.
    EXPECT_GT(entries[0].header().file_number(), number);
    number = entries[0].header().file_number();
    EXPECT_TRUE(entries[1].has_rig()) << file;
    EXPECT_TRUE(entries[2].has_call()) << file;
  }
  EXPECT_GT(number, files.size());  // the oldest were deleted
  EXPECT_LE(total, 8000u + 2000u);  // the bound, plus the open file's last
  int on_disk = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir_)) {
    on_disk += entry.path().extension() == ".ikrec";
  }
  EXPECT_EQ(on_disk, static_cast<int>(files.size()));
}

TEST_F(RecorderTest, AFullBufferDropsCallsAndCountsThem) {
  RecorderOptions record;
  record.methods = {"SolveChain"};
  record.buffer_bytes = 1;  // no call fits
  StartRecording(record);
  for (int k = 0; k < 5; ++k) {
    v1::SolveChainResponse answer;
    ASSERT_TRUE(Solve(ArmRequest(), &answer).ok());
    EXPECT_TRUE(answer.results(0).reached());
  }
  server_->recorder()->Flush();
  EXPECT_EQ(server_->recorder()->counters().dropped_buffer_full.load(), 5);
  EXPECT_EQ(server_->recorder()->counters().recorded.load(), 0);
}

// A disk that refuses the writes (here the process's file size limit, as a
// full disk would: EFBIG instead of ENOSPC): the records are dropped and
// counted, the calls answered as ever.
TEST_F(RecorderTest, AFailingDiskDropsRecordsAndCountsThem) {
  RecorderOptions record;
  record.methods = {"SolveChain"};
  StartRecording(record);
  rlimit before{};
  ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &before), 0);
  const auto previous = std::signal(SIGXFSZ, SIG_IGN);
  rlimit small = before;
  small.rlim_cur = 16;  // not even a file's header fits
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &small), 0);
  for (int k = 0; k < 3; ++k) {
    v1::SolveChainResponse answer;
    EXPECT_TRUE(Solve(ArmRequest(), &answer).ok());
    server_->recorder()->Flush();
  }
  setrlimit(RLIMIT_FSIZE, &before);
  std::signal(SIGXFSZ, previous);
  EXPECT_EQ(server_->recorder()->counters().dropped_write_failed.load(), 3);
  EXPECT_EQ(server_->recorder()->counters().recorded.load(), 0);
  // Space again: the next call is recorded, in a file of its own.
  v1::SolveChainResponse answer;
  ASSERT_TRUE(Solve(ArmRequest(), &answer).ok());
  server_->recorder()->Flush();
  EXPECT_EQ(server_->recorder()->counters().recorded.load(), 1);
  const std::vector<v1::RecordEntry> entries =
      ReadEntries(server_->recorder()->files().back());
  ASSERT_EQ(entries.size(), 3u);  // header, rig, the call
  EXPECT_TRUE(entries[2].has_call());
}

TEST(RecorderOptionsTest, RefusesBadOptionsNamingTheFlag) {
  RigRegistry rigs(1);
  TerrainRegistry terrains(1);
  RecorderOptions options;
  options.dir = "/tmp";
  options.methods = {"Tick", "RegisterRig"};
  absl::StatusOr<std::unique_ptr<Recorder>> recorder =
      Recorder::Start(options, rigs, terrains);
  ASSERT_FALSE(recorder.ok());
  EXPECT_EQ(recorder.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StartsWith(recorder.status().message(), "--record_methods"))
      << recorder.status();
  options.methods = {"Tick"};
  options.sample = 0.0;
  recorder = Recorder::Start(options, rigs, terrains);
  ASSERT_FALSE(recorder.ok());
  EXPECT_TRUE(absl::StartsWith(recorder.status().message(), "--record_sample"))
      << recorder.status();
}

}  // namespace
}  // namespace ik::server
