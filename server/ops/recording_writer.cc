#include "ops/recording_writer.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/stubs/common.h>
#include <google/protobuf/wire_format_lite.h>
#include <grpcpp/grpcpp.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"

namespace ik::server {
namespace {

using google::protobuf::internal::WireFormatLite;

constexpr std::int64_t kMaxFileBytes = std::int64_t{64} << 20;

}  // namespace

RecordingWriter::RecordingWriter(const RecorderOptions& options,
                                 const RigRegistry& rigs,
                                 const TerrainRegistry& terrains,
                                 RecorderCounters& counters)
    : options_(options),
      rigs_(rigs),
      terrains_(terrains),
      counters_(counters),
      file_bytes_(std::min(kMaxFileBytes,
                           std::max<std::int64_t>(options.max_bytes / 4, 1))),
      recording_(absl::StrCat(
          absl::FormatTime("%Y%m%dT%H%M%SZ", absl::Now(), absl::UTCTimeZone()),
          "-", getpid())) {}

// Counts `lost` records (the call being written, if any) and those given
// before and not yet in the file as dropped, says so (the first failure and
// then one in a thousand: a full disk must not fill the log too) and
// abandons the file; the next call opens another.
void RecordingWriter::Failed(const absl::Status& status, std::int64_t lost) {
  lost += static_cast<std::int64_t>(call_ends_.size());
  call_ends_.clear();
  counters_.dropped_write_failed += lost;
  if (failures_++ % 1000 == 0) {
    absl::FPrintF(
        stderr, "ikd: recording: %s; %d record(s) dropped (%d so far)\n",
        status.message(), lost, counters_.dropped_write_failed.load());
  }
  file_.Abandon();
  settled_ = 0;
  tail_due_ = absl::InfiniteFuture();
}

bool RecordingWriter::Open() {
  ++file_number_;
  const std::string path =
      (std::filesystem::path(options_.dir) /
       absl::StrFormat("ikd-%s-%06d.ikrec", recording_, file_number_))
          .string();
  if (absl::Status opened = file_.Open(path); !opened.ok()) {
    Failed(opened, 1);
    return false;
  }
  settled_ = 0;
  stored_.clear();
  files_.emplace_back(path, 0);
  v1::RecordEntry entry;
  v1::RecordingHeader& header = *entry.mutable_header();
  header.set_format("ikd recording 1");
  header.set_ikd_version(IK_VERSION);
  header.set_grpc_version(grpc::Version());
  header.set_protobuf_version(
      google::protobuf::internal::VersionString(GOOGLE_PROTOBUF_VERSION));
  header.set_recording(recording_);
  header.set_file_number(file_number_);
  for (const std::string& method : options_.methods) header.add_methods(method);
  header.set_sample(options_.sample);
  for (const std::string& id : options_.characters) header.add_characters(id);
  return Put(entry);
}

void RecordingWriter::Close() {
  WriteTail();
  file_.Abandon();
  settled_ = 0;
}

void RecordingWriter::WriteTail() {
  tail_due_ = absl::InfiniteFuture();
  if (!file_.is_open()) return;
  if (absl::Status wrote = file_.WriteTail(); !wrote.ok()) {
    Failed(wrote, 0);
    return;
  }
  Settle();
}

// Counts the bytes and the calls that reached the file.
void RecordingWriter::Settle() {
  const std::int64_t written = file_.written();
  counters_.bytes_written += written - settled_;
  settled_ = written;
  while (!call_ends_.empty() && call_ends_.front() <= written) {
    ++counters_.recorded;
    call_ends_.pop_front();
  }
}

// Appends `pieces` to the open file; on failure the call being written is
// dropped with those waiting, and the file abandoned.
bool RecordingWriter::WriteAll(const std::vector<iovec>& pieces) {
  const std::int64_t before = file_.size();
  if (absl::Status wrote = file_.Append(pieces.data(), pieces.size());
      !wrote.ok()) {
    Failed(wrote, 1);
    return false;
  }
  files_.back().second += file_.size() - before;
  Settle();
  return true;
}

bool RecordingWriter::Put(const v1::RecordEntry& entry) {
  std::string bytes;
  {
    google::protobuf::io::StringOutputStream stream(&bytes);
    google::protobuf::io::CodedOutputStream out(&stream);
    out.WriteVarint32(static_cast<std::uint32_t>(entry.ByteSizeLong()));
    entry.SerializeWithCachedSizes(&out);
  }
  std::vector<iovec> pieces = {{bytes.data(), bytes.size()}};
  return WriteAll(pieces);
}

// The call's entry: RecordEntry.call with `rest`'s fields, and the request
// and answer (RecordedCall fields 4 and 5) written from their slices -- the
// fields out of number order, which protobuf reads alike.
bool RecordingWriter::PutCall(const v1::RecordedCall& rest,
                              RecordedCallBytes& call) {
  std::vector<grpc::Slice> request;
  std::vector<grpc::Slice> response;
  if (!call.request.Dump(&request).ok() ||
      (call.response.Length() > 0 && !call.response.Dump(&response).ok())) {
    return false;
  }
  const std::string fields = rest.SerializeAsString();
  const auto field_bytes = [](size_t length) -> size_t {
    return length == 0
               ? 0
               : 1 +
                     google::protobuf::io::CodedOutputStream::VarintSize32(
                         static_cast<std::uint32_t>(length)) +
                     length;
  };
  const size_t call_bytes = fields.size() + field_bytes(call.request.Length()) +
                            field_bytes(call.response.Length());
  std::string head;
  std::string middle;
  {
    google::protobuf::io::StringOutputStream stream(&head);
    google::protobuf::io::CodedOutputStream out(&stream);
    out.WriteVarint32(static_cast<std::uint32_t>(
        1 + out.VarintSize32(static_cast<std::uint32_t>(call_bytes)) +
        call_bytes));
    WireFormatLite::WriteTag(4, WireFormatLite::WIRETYPE_LENGTH_DELIMITED,
                             &out);
    out.WriteVarint32(static_cast<std::uint32_t>(call_bytes));
    if (call.request.Length() > 0) {
      WireFormatLite::WriteTag(4, WireFormatLite::WIRETYPE_LENGTH_DELIMITED,
                               &out);
      out.WriteVarint32(static_cast<std::uint32_t>(call.request.Length()));
    }
  }
  if (call.response.Length() > 0) {
    google::protobuf::io::StringOutputStream stream(&middle);
    google::protobuf::io::CodedOutputStream out(&stream);
    WireFormatLite::WriteTag(5, WireFormatLite::WIRETYPE_LENGTH_DELIMITED,
                             &out);
    out.WriteVarint32(static_cast<std::uint32_t>(call.response.Length()));
  }
  std::vector<iovec> pieces;
  pieces.push_back({head.data(), head.size()});
  for (grpc::Slice& slice : request) {
    pieces.push_back({const_cast<std::uint8_t*>(slice.begin()), slice.size()});
  }
  pieces.push_back({middle.data(), middle.size()});
  for (grpc::Slice& slice : response) {
    pieces.push_back({const_cast<std::uint8_t*>(slice.begin()), slice.size()});
  }
  pieces.push_back({const_cast<char*>(fields.data()), fields.size()});
  return WriteAll(pieces);
}

// The registry entries of the rigs and terrains `names` holds; false (the
// record dropped, counted) when a rig was replaced since the call used it.
bool RecordingWriter::Lookup(const CallNames& names, CallUses& uses) {
  std::vector<std::pair<std::string, std::string>> rigs(names.rigs.begin(),
                                                        names.rigs.end());
  std::sort(rigs.begin(), rigs.end());
  for (const auto& [name, used] : rigs) {
    absl::StatusOr<std::shared_ptr<const RigEntry>> rig =
        rigs_.Get({name, "rig"});
    if (!rig.ok()) continue;  // the call failed on it: nothing to store
    if (!used.empty() && used != (*rig)->revision) {
      ++counters_.dropped_changed;
      return false;
    }
    uses.Add(*rig);
  }
  for (const std::string& name : names.terrains) {
    absl::StatusOr<std::shared_ptr<const TerrainEntry>> terrain =
        terrains_.Get({name, "terrain"});
    if (terrain.ok()) uses.Add(*terrain);
  }
  return true;
}

// Stores the rigs and terrains of `uses` in the open file unless they are
// already; their revisions into `call`.
bool RecordingWriter::PutUses(const CallUses& uses, v1::RecordedCall& call) {
  for (const std::shared_ptr<const RigEntry>& rig : uses.rigs) {
    v1::RecordedRevision& revision = *call.add_rigs();
    revision.set_name(rig->name());
    revision.set_revision(rig->revision);
    if (!stored_.insert(absl::StrCat("rig:", rig->revision)).second) continue;
    v1::RecordEntry entry;
    entry.mutable_rig()->set_revision(rig->revision);
    *entry.mutable_rig()->mutable_rig() = rig->definition;
    if (!Put(entry)) return false;
  }
  for (const std::shared_ptr<const TerrainEntry>& terrain : uses.terrains) {
    if (terrain->definition == nullptr) continue;
    v1::RecordedRevision& revision = *call.add_terrains();
    revision.set_name(terrain->name());
    revision.set_revision(terrain->revision);
    if (!stored_.insert(absl::StrCat("terrain:", terrain->revision)).second) {
      continue;
    }
    v1::RecordEntry entry;
    entry.mutable_terrain()->set_revision(terrain->revision);
    *entry.mutable_terrain()->mutable_terrain() = *terrain->definition;
    if (!Put(entry)) return false;
  }
  return true;
}

void RecordingWriter::Write(RecordedCallBytes& call) {
  if (IsTick(call.method) && !options_.characters.empty()) {
    if (!FilterCharacters(options_.characters, call.request, call.response)) {
      // A filter that never matches records nothing: said once.
      if (!filter_matched_ && ++unmatched_ticks_ == kUnmatchedTicksLogged) {
        absl::FPrintF(stderr,
                      "ikd: recording: --record_characters matched no "
                      "character of %d ticks; nothing is recorded\n",
                      kUnmatchedTicksLogged);
      }
      return;
    }
    filter_matched_ = true;
  }
  if (file_.is_open() && file_.size() >= file_bytes_) Close();
  if (!file_.is_open() && !Open()) return;
  if (call.gap_before > 0) {
    v1::RecordEntry gap;
    gap.mutable_gap()->set_dropped(call.gap_before);
    if (!Put(gap)) return;
  }
  if (!call.uses.has_value() && !Lookup(NamesOf(call), call.uses.emplace())) {
    return;
  }
  v1::RecordedCall rest;
  if (!PutUses(*call.uses, rest)) return;
  rest.set_method(call.method);
  rest.set_stream(call.stream);
  rest.set_stream_tick(call.stream_tick);
  rest.set_code(call.code);
  rest.set_message(call.message);
  rest.set_unix_nanos(call.unix_nanos);
  rest.set_queued_nanos(call.timing.queued_nanos);
  rest.set_ran_nanos(call.timing.ran_nanos);
  if (!PutCall(rest, call)) return;
  call_ends_.push_back(file_.size());
  Settle();
  if (file_.has_tail() && tail_due_ == absl::InfiniteFuture()) {
    tail_due_ = absl::Now() + absl::Seconds(1);
  }
  Trim();
}

// Deletes this recording's oldest files while all of them hold more than
// --record_max_bytes (never the open one).
void RecordingWriter::Trim() {
  std::int64_t total = 0;
  for (const auto& [path, bytes] : files_) total += bytes;
  while (total > options_.max_bytes && files_.size() > 1) {
    std::error_code ignored;
    std::filesystem::remove(files_.front().first, ignored);
    total -= files_.front().second;
    files_.erase(files_.begin());
  }
}

}  // namespace ik::server
