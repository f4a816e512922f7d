#include "recording.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "baselines.h"
#include "google/protobuf/io/zero_copy_stream_impl.h"
#include "google/protobuf/util/delimited_message_util.h"
#include "single_call.h"

namespace ik::inspector {
namespace {

// RecordingHeader.format of every file this reader understands.
constexpr char kFormat[] = "ikd recording 1";
constexpr char kExtension[] = ".ikrec";

// The files `path` names: itself, or a directory's *.ikrec files by name
// (the recorder numbers its files so that name order is write order).
absl::StatusOr<std::vector<std::string>> RecordingFiles(
    const std::string& path) {
  std::error_code error;
  if (!std::filesystem::is_directory(path, error)) return {{path}};
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(path, error)) {
    const std::string name = entry.path().string();
    if (absl::EndsWith(name, kExtension)) files.push_back(name);
  }
  if (error) {
    return absl::NotFoundError(
        absl::StrCat(path, ": cannot list the directory: ", error.message()));
  }
  if (files.empty()) {
    return absl::NotFoundError(
        absl::StrCat(path, ": no ", kExtension, " files in the directory"));
  }
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace

bool CharacterFailed(const v1::TickCharacterResult& result) {
  return result.status().code() != 0 || result.ground_status().code() != 0 ||
         result.goals_status().code() != 0 ||
         result.dynamics_status().code() != 0 ||
         result.check_status().code() != 0;
}

namespace {

// The timeline's counts over one tick's characters.
void Summarise(const v1::TickRequest& request, const v1::TickResponse& response,
               bool call_failed, RecordedTick& tick) {
  tick.characters = request.characters_size();
  if (call_failed || response.status().code() != 0) {
    tick.failed = tick.characters;
    return;
  }
  for (const v1::TickCharacterResult& result : response.characters()) {
    tick.failed += CharacterFailed(result);
    tick.violations += result.check().violations_size() > 0;
    tick.unreached +=
        std::any_of(result.goals().begin(), result.goals().end(),
                    [](const v1::GoalResult& goal) { return !goal.reached(); });
  }
}

// Reads files into one Recording, completing TickStream baselines across
// them (a stream may continue in the next file).
class Reader {
 public:
  absl::Status ReadFile(const std::string& path);
  Recording Take() { return std::move(recording_); }

 private:
  void TakeEntry(const v1::RecordEntry& entry, const std::string& file);
  // A Tick, TickStream or single call (single_call.h) as a tick.
  void TakeCall(const v1::RecordedCall& call, const std::string& file);

  Recording recording_;
  StreamBaselines baselines_;
};

absl::Status Reader::ReadFile(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) return absl::NotFoundError(absl::StrCat(path, ": cannot open"));
  google::protobuf::io::IstreamInputStream input(&file);
  recording_.files.push_back(path);
  for (int index = 0;; ++index) {
    v1::RecordEntry entry;
    bool clean_eof = false;
    const bool parsed =
        google::protobuf::util::ParseDelimitedFromZeroCopyStream(&entry, &input,
                                                                 &clean_eof);
    if (!parsed && clean_eof && index > 0) return absl::OkStatus();
    const bool header =
        parsed && entry.has_header() && entry.header().format() == kFormat;
    if (index == 0 && !header) {
      return absl::InvalidArgumentError(absl::StrCat(
          path, ": not an ikd recording (it does not start with an \"", kFormat,
          "\" header)"));
    }
    if (!parsed) {
      // A server stopped while writing leaves a truncated last entry: what
      // came before it is still worth showing.
      recording_.warnings.push_back(
          absl::StrCat(path, ": entry ", index,
                       " is truncated or corrupt; the rest of the file is "
                       "skipped"));
      return absl::OkStatus();
    }
    TakeEntry(entry, path);
  }
}

void Reader::TakeEntry(const v1::RecordEntry& entry, const std::string& file) {
  switch (entry.entry_case()) {
    case v1::RecordEntry::kHeader:
      recording_.headers.push_back(entry.header());
      break;
    case v1::RecordEntry::kRig:
      recording_.rigs[entry.rig().revision()] = entry.rig();
      break;
    case v1::RecordEntry::kTerrain:
      recording_.terrains[entry.terrain().revision()] = entry.terrain();
      break;
    case v1::RecordEntry::kCall:
      if (entry.call().method() == "Tick" ||
          entry.call().method() == "TickStream" ||
          IsSingleCall(entry.call().method())) {
        TakeCall(entry.call(), file);
      } else {
        ++recording_.other_calls;
      }
      break;
    case v1::RecordEntry::kGap:
      recording_.dropped += entry.gap().dropped();
      break;
    case v1::RecordEntry::ENTRY_NOT_SET:
      break;
  }
}

void Reader::TakeCall(const v1::RecordedCall& call, const std::string& file) {
  RecordedTick tick;
  tick.call = call;
  tick.file = file;
  v1::TickRequest request;
  v1::TickResponse response;
  const bool single = IsSingleCall(call.method());
  // A call whose bytes do not parse is listed with no characters.
  if (single ? !SingleCallAsTick(call, request, response)
             : !request.ParseFromString(call.request())) {
    if (single) {  // its bytes are not a tick's
      tick.call.clear_request();
      tick.call.clear_response();
    }
    recording_.ticks.push_back(std::move(tick));
    return;
  }
  if (single) {
    tick.call.set_request(request.SerializeAsString());
    tick.call.set_response(response.SerializeAsString());
  } else {
    response.ParseFromString(call.response());
  }
  if (call.method() == "TickStream") {
    tick.unknown_baselines = baselines_.Complete(call.stream(), request);
    if (call.code() == 0) baselines_.Absorb(call.stream(), request, response);
    tick.call.set_request(request.SerializeAsString());
  }
  tick.sequence = request.sequence();
  Summarise(request, response, call.code() != 0, tick);
  recording_.ticks.push_back(std::move(tick));
}

}  // namespace

absl::StatusOr<Recording> ReadRecording(const std::string& path) {
  std::error_code error;
  if (!std::filesystem::exists(path, error)) {
    return absl::NotFoundError(absl::StrCat(path, ": no such file"));
  }
  absl::StatusOr<std::vector<std::string>> files = RecordingFiles(path);
  if (!files.ok()) return files.status();
  Reader reader;
  for (const std::string& file : *files) {
    if (absl::Status read = reader.ReadFile(file); !read.ok()) return read;
  }
  return reader.Take();
}

const v1::RecordedRig* FindRig(const Recording& recording,
                               const std::string& name,
                               const std::string& revision) {
  if (!revision.empty()) {
    const auto found = recording.rigs.find(revision);
    return found == recording.rigs.end() ? nullptr : &found->second;
  }
  const v1::RecordedRig* only = nullptr;
  for (const auto& [stored_revision, rig] : recording.rigs) {
    if (rig.rig().name() != name) continue;
    if (only != nullptr) return nullptr;
    only = &rig;
  }
  return only;
}

}  // namespace ik::inspector
