// ikctl replay FILE|DIR: re-sends an ikd recording's calls (ikd
// --record_dir; proto/ik/v1/recording.proto) to --server, after registering
// the recorded rigs and terrains, and compares every answer with the
// recorded one, bit for bit. The request bytes go out exactly as recorded
// and the answers' bytes are compared as received (gRPC's ByteBuffer, no
// re-serialisation); where they differ, protobuf's MessageDifferencer names
// the fields. A TickStream's ticks go, in order, on one stream of their
// own, as they did. A recording is a file from anywhere: only the solving
// calls (SolveChain, GroundFeet, StepDynamics, Tick, TickStream) are sent
// unless --allow_registry_changes also sends its RegisterRig, DeleteRig,
// RegisterTerrain and DeleteTerrain calls; any other method is skipped, and
// the summary counts what was skipped. A file that is not a recording or
// ends inside a record is named with the record it stopped at and what it
// replayed, and the directory's other files go on.
#include <google/protobuf/io/zero_copy_stream_impl.h>
#include <google/protobuf/util/delimited_message_util.h>
#include <google/protobuf/util/message_differencer.h>
#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>
#include <grpcpp/impl/codegen/client_unary_call.h>
#include <grpcpp/impl/codegen/sync_stream.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "ik/v1/recording.pb.h"
#include "ikctl_util.h"

ABSL_FLAG(int, max_differences, 10,
          "replay: differences printed at most (all are counted)");
ABSL_FLAG(bool, allow_registry_changes, false,
          "replay: also send the recording's RegisterRig, DeleteRig, "
          "RegisterTerrain and DeleteTerrain calls (by default only its "
          "solving calls are sent)");
ABSL_DECLARE_FLAG(bool, replace);
ABSL_DECLARE_FLAG(double, timeout);

namespace ik::ctl {
namespace {

using Stream = grpc::ClientReaderWriter<grpc::ByteBuffer, grpc::ByteBuffer>;

// What replay does with a recorded method.
enum class Sent { kAlways, kWhenAllowed, kNever };
Sent SentOf(const std::string& method) {
  static const std::set<std::string> solving = {
      "SolveChain", "GroundFeet", "StepDynamics", "Tick", "TickStream"};
  static const std::set<std::string> registry = {
      "RegisterRig", "DeleteRig", "RegisterTerrain", "DeleteTerrain"};
  if (solving.count(method) > 0) return Sent::kAlways;
  if (registry.count(method) > 0) return Sent::kWhenAllowed;
  return Sent::kNever;
}

// The recording's files: FILE itself, or DIR's *.ikrec in name order
// (files of one recording sort in the order they were written).
absl::StatusOr<std::vector<std::string>> RecordingFiles(
    const std::string& path) {
  std::error_code error;
  if (!std::filesystem::is_directory(path, error)) {
    if (!std::filesystem::exists(path, error)) {
      return absl::NotFoundError(absl::StrCat(path, ": no such file"));
    }
    return std::vector<std::string>{path};
  }
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(path, error)) {
    if (entry.path().extension() == ".ikrec") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  if (files.empty()) {
    return absl::NotFoundError(absl::StrCat(path, ": no .ikrec files"));
  }
  return files;
}

grpc::ByteBuffer ToBuffer(const std::string& bytes) {
  grpc::Slice slice(bytes);
  return grpc::ByteBuffer(&slice, 1);
}

std::string FromBuffer(const grpc::ByteBuffer& buffer) {
  std::vector<grpc::Slice> slices;
  std::string bytes;
  if (!buffer.Dump(&slices).ok()) return bytes;
  for (const grpc::Slice& slice : slices) {
    bytes.append(reinterpret_cast<const char*>(slice.begin()), slice.size());
  }
  return bytes;
}

// The API's answer type of a recorded method (for naming differences).
std::unique_ptr<google::protobuf::Message> AnswerOf(const std::string& method) {
  if (method == "Tick" || method == "TickStream") {
    return std::make_unique<v1::TickResponse>();
  }
  if (method == "SolveChain") return std::make_unique<v1::SolveChainResponse>();
  if (method == "GroundFeet") return std::make_unique<v1::GroundFeetResponse>();
  if (method == "StepDynamics") {
    return std::make_unique<v1::StepDynamicsResponse>();
  }
  return nullptr;
}

// The fields where `before` and `after` differ, one per line (indented), as
// protobuf's MessageDifferencer reports them; the first --max_differences.
std::string Differences(const google::protobuf::Message& before,
                        const google::protobuf::Message& after) {
  std::string report;
  {
    google::protobuf::io::StringOutputStream stream(&report);
    google::protobuf::util::MessageDifferencer::StreamReporter reporter(
        &stream);
    google::protobuf::util::MessageDifferencer differencer;
    differencer.ReportDifferencesTo(&reporter);
    differencer.Compare(before, after);
  }
  // Each field on a line, at most --max_differences of them.
  const int most = absl::GetFlag(FLAGS_max_differences);
  std::string indented;
  int lines = 0;
  for (absl::string_view line : absl::StrSplit(report, '\n')) {
    if (line.empty()) continue;
    // A whole message deleted or added prints on one line: cut it.
    if (lines++ < most) {
      absl::StrAppend(&indented, "  ", line.substr(0, 240),
                      line.size() > 240 ? " ..." : "", "\n");
    }
  }
  if (lines > most) {
    absl::StrAppend(&indented, "  ... ", lines - most, " more fields\n");
  }
  return indented;
}

// The fields where `recorded` and `replayed` (bytes of `method`'s answer)
// differ, one per line, as protobuf's MessageDifferencer reports them.
std::string FieldDifferences(const std::string& method,
                             const std::string& recorded,
                             const std::string& replayed) {
  std::unique_ptr<google::protobuf::Message> before = AnswerOf(method);
  std::unique_ptr<google::protobuf::Message> after = AnswerOf(method);
  if (before == nullptr || !before->ParseFromString(recorded) ||
      !after->ParseFromString(replayed)) {
    return "  the answers do not parse as the method's answer\n";
  }
  const std::string differences = Differences(*before, *after);
  return differences.empty()
             ? "  the same values in different bytes (field order, -0)\n"
             : differences;
}

class Replay {
 public:
  explicit Replay(ik::Client& client) : client_(client) {}
  ~Replay() { CloseStreams(); }

  // Reads and replays one file's entries; false (the reason on stderr) when
  // it is not a recording or ends inside a record.
  bool File(const std::string& path);
  void CloseStreams();
  int Summary() const;

 private:
  void Rig(const v1::RecordedRig& rig);
  void Register(const v1::RecordedCall& call);
  void Terrain(const v1::RecordedTerrain& terrain);
  void Call(const v1::RecordedCall& call);
  void Compare(const v1::RecordedCall& call, const grpc::Status& status,
               const std::string& answer);
  void Differ(const std::string& what);
  grpc::Status Send(const v1::RecordedCall& call, std::string& answer);

  ik::Client& client_;
  std::map<std::string, v1::RecordedRig> rigs_;  // by revision
  std::map<std::string, v1::RecordedTerrain> terrains_;
  std::set<std::string> registered_;
  std::map<std::uint64_t, std::unique_ptr<grpc::ClientContext>> contexts_;
  std::map<std::uint64_t, std::unique_ptr<Stream>> streams_;
  int calls_ = 0;
  std::map<std::string, int> skipped_;  // by method
  int bad_files_ = 0;
  int differing_ = 0;
  int printed_ = 0;
  int gaps_ = 0;
};

void Replay::Differ(const std::string& what) {
  ++differing_;
  if (printed_++ < absl::GetFlag(FLAGS_max_differences)) {
    absl::PrintF("%s", what);
  }
}

bool Replay::File(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    absl::FPrintF(stderr, "ikctl: %s: %s\n", path, std::strerror(errno));
    return false;
  }
  google::protobuf::io::IstreamInputStream stream(&in);
  v1::RecordEntry entry;
  bool first = true;
  bool clean_eof = false;
  int records = 0;
  const int calls_before = calls_;
  // Parsing merges into the message: cleared after each entry.
  for (; google::protobuf::util::ParseDelimitedFromZeroCopyStream(
           &entry, &stream, &clean_eof);
       entry.Clear()) {
    ++records;
    if (first &&
        (!entry.has_header() || entry.header().format() != "ikd recording 1")) {
      break;
    }
    first = false;
    if (entry.has_rig()) Rig(entry.rig());
    if (entry.has_terrain()) Terrain(entry.terrain());
    if (entry.has_call()) Call(entry.call());
    if (entry.has_gap()) {
      ++gaps_;
      absl::PrintF("%s: %d calls were dropped from the recording here\n", path,
                   entry.gap().dropped());
    }
  }
  if (first || !clean_eof) {
    ++bad_files_;
    absl::FPrintF(
        stderr, "ikctl: %s: %s; %d calls of it replayed\n", path,
        first ? "not an ikd recording (no header record)"
              : absl::StrCat("record ", records + 1,
                             " does not parse (the file was cut short, or "
                             "its bytes changed)"),
        calls_ - calls_before);
    return false;
  }
  return true;
}

void Replay::Rig(const v1::RecordedRig& rig) { rigs_[rig.revision()] = rig; }

void Replay::Terrain(const v1::RecordedTerrain& terrain) {
  terrains_[terrain.revision()] = terrain;
}

// Registers the call's rigs and terrains once each (replacing the server's
// with --replace); a different rig already registered under the name is a
// difference, named field by field.
void Replay::Register(const v1::RecordedCall& call) {
  for (const v1::RecordedRevision& used : call.rigs()) {
    auto found = rigs_.find(used.revision());
    if (found == rigs_.end() ||
        !registered_.insert("rig:" + used.revision()).second) {
      continue;
    }
    absl::StatusOr<v1::RegisterRigResponse> registered =
        client_.RegisterRig(found->second.rig(), absl::GetFlag(FLAGS_replace));
    if (registered.ok()) continue;
    absl::StatusOr<v1::GetRigResponse> held = client_.GetRig(used.name());
    if (!held.ok()) {
      Differ(absl::StrCat("rig ", used.name(), ": cannot be registered: ",
                          registered.status().ToString(), "\n"));
      continue;
    }
    Differ(absl::StrCat("rig ", used.name(), ": the server holds revision ",
                        held->revision(), ", the recording ", used.revision(),
                        " (--replace registers the recorded one):\n",
                        Differences(found->second.rig(), held->rig())));
  }
  for (const v1::RecordedRevision& used : call.terrains()) {
    auto found = terrains_.find(used.revision());
    if (found == terrains_.end() ||
        !registered_.insert("terrain:" + used.revision()).second) {
      continue;
    }
    absl::StatusOr<v1::RegisterTerrainResponse> registered =
        client_.RegisterTerrain(found->second.terrain(),
                                absl::GetFlag(FLAGS_replace));
    if (!registered.ok()) {
      Differ(absl::StrCat("terrain ", used.name(), ": ",
                          registered.status().ToString(),
                          " (--replace registers the recorded one)\n"));
    }
  }
}

// Sends the recorded request as it was recorded; the answer's bytes into
// `answer`.
grpc::Status Replay::Send(const v1::RecordedCall& call, std::string& answer) {
  const std::string method = "/ik.v1.IkService/" + call.method();
  grpc::ByteBuffer request = ToBuffer(call.request());
  grpc::ByteBuffer response;
  if (call.method() != "TickStream") {
    grpc::ClientContext context;
    client_.PrepareContext(context);
    context.set_deadline(absl::ToChronoTime(
        absl::Now() + absl::Seconds(absl::GetFlag(FLAGS_timeout))));
    const grpc::Status status =
        grpc::internal::BlockingUnaryCall<grpc::ByteBuffer, grpc::ByteBuffer>(
            client_.channel().get(),
            grpc::internal::RpcMethod(method.c_str(),
                                      grpc::internal::RpcMethod::NORMAL_RPC),
            &context, request, &response);
    answer = FromBuffer(response);
    return status;
  }
  std::unique_ptr<Stream>& stream = streams_[call.stream()];
  if (stream == nullptr) {
    auto& context = contexts_[call.stream()];
    context = std::make_unique<grpc::ClientContext>();
    client_.PrepareContext(*context);
    stream.reset(grpc::internal::ClientReaderWriterFactory<grpc::ByteBuffer,
                                                           grpc::ByteBuffer>::
                     Create(client_.channel().get(),
                            grpc::internal::RpcMethod(
                                method.c_str(),
                                grpc::internal::RpcMethod::BIDI_STREAMING),
                            context.get()));
  }
  if (!stream->Write(request) || !stream->Read(&response)) {
    stream->WritesDone();
    grpc::Status status = stream->Finish();
    streams_.erase(call.stream());
    return status.ok() ? grpc::Status(grpc::StatusCode::UNAVAILABLE,
                                      "the stream ended before its answer")
                       : status;
  }
  answer = FromBuffer(response);
  return grpc::Status::OK;
}

void Replay::Call(const v1::RecordedCall& call) {
  const Sent sent = SentOf(call.method());
  if (sent == Sent::kNever || (sent == Sent::kWhenAllowed &&
                               !absl::GetFlag(FLAGS_allow_registry_changes))) {
    ++skipped_[call.method()];
    return;
  }
  ++calls_;
  Register(call);
  std::string answer;
  const grpc::Status status = Send(call, answer);
  Compare(call, status, answer);
}

void Replay::Compare(const v1::RecordedCall& call, const grpc::Status& status,
                     const std::string& answer) {
  const std::string which =
      call.method() == "TickStream"
          ? absl::StrCat("call ", calls_, " (TickStream ", call.stream(),
                         ", tick ", call.stream_tick(), ")")
          : absl::StrCat("call ", calls_, " (", call.method(), ")");
  if (static_cast<int>(status.error_code()) != call.code() ||
      (call.code() != 0 && status.error_message() != call.message())) {
    Differ(absl::StrCat(which, ": recorded status ", call.code(), " \"",
                        call.message(), "\", replayed ",
                        static_cast<int>(status.error_code()), " \"",
                        status.error_message(), "\"\n"));
    return;
  }
  if (call.code() == 0 && answer != call.response()) {
    Differ(
        absl::StrCat(which, ": the answers differ:\n",
                     FieldDifferences(call.method(), call.response(), answer)));
  }
}

void Replay::CloseStreams() {
  for (auto& [number, stream] : streams_) {
    stream->WritesDone();
    stream->Finish().ok();
  }
  streams_.clear();
  contexts_.clear();
}

int Replay::Summary() const {
  for (const auto& [method, count] : skipped_) {
    absl::PrintF("skipped %d %s call(s): %s\n", count,
                 method.empty() ? "unnamed" : method,
                 SentOf(method) == Sent::kWhenAllowed
                     ? "a registry change (--allow_registry_changes sends them)"
                     : "not a call replay sends");
  }
  if (bad_files_ > 0) {
    absl::PrintF(
        "replayed %d calls; %d file(s) could not be read to the end "
        "(named above)\n",
        calls_, bad_files_);
    return kFailed;
  }
  if (differing_ == 0) {
    absl::PrintF("replayed %d calls: every answer identical, bit for bit%s\n",
                 calls_,
                 gaps_ > 0 ? " (the recording has gaps, listed above)" : "");
    return kOk;
  }
  absl::PrintF("replayed %d calls: %d differences%s\n", calls_, differing_,
               printed_ > absl::GetFlag(FLAGS_max_differences)
                   ? " (the first printed)"
                   : "");
  return kFailed;
}

}  // namespace

int ReplayCommand(ik::Client& client, const std::vector<std::string>& args) {
  if (args.size() != 1) return Usage("replay: needs FILE or DIR");
  absl::StatusOr<std::vector<std::string>> files = RecordingFiles(args[0]);
  if (!files.ok()) return Failed(files.status());
  Replay replay(client);
  for (const std::string& file : *files) replay.File(file);
  replay.CloseStreams();
  return replay.Summary();
}

}  // namespace ik::ctl
