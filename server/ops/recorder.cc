#include "ops/recorder.h"

#include <fcntl.h>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/stubs/common.h>
#include <google/protobuf/wire_format_lite.h>
#include <grpcpp/grpcpp.h>
#include <grpcpp/support/proto_buffer_reader.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "ik/base/field_error.h"
#include "ik/v1/recording.pb.h"
#include "ik/wire/tick_bytes.pb.h"

namespace ik::server {

// A call waiting for the writer. Its request and answer are the call's own
// ByteBuffers, shared (their slices are reference-counted), not copied:
// recording costs the call's thread no copy of its bytes.
struct Recorder::Pending {
  std::string method;
  std::uint64_t stream = 0;
  std::uint64_t stream_tick = 0;
  grpc::ByteBuffer request;
  grpc::ByteBuffer response;  // empty when the call failed
  int code = 0;
  std::string message;
  std::int64_t unix_nanos = 0;
  std::uint64_t gap_before = 0;  // records dropped just before this one

  std::int64_t bytes() const {
    return static_cast<std::int64_t>(request.Length() + response.Length() +
                                     message.size() + sizeof(Pending));
  }
};

namespace {

using google::protobuf::internal::WireFormatLite;
using google::protobuf::io::CodedInputStream;

constexpr std::int64_t kMaxFileBytes = std::int64_t{64} << 20;
constexpr absl::string_view kMethods[] = {"Tick", "TickStream", "SolveChain",
                                          "GroundFeet", "StepDynamics"};

bool IsTick(absl::string_view method) {
  return method == "Tick" || method == "TickStream";
}

// Calls `visit(number, in)` for each length-delimited field (strings, bytes,
// messages) of the message `in` reads, up to its limit, with the field's
// bytes as `in`'s limit; what `visit` leaves unread is skipped. Other fields
// are skipped. Unlike parsing a message type that declares only the fields
// wanted, nothing skipped is copied (into unknown fields): a tick's poses
// are most of its bytes. False when the bytes do not parse.
template <typename Visit>
bool ForEachDelimited(CodedInputStream& in, Visit visit) {
  for (std::uint32_t tag; (tag = in.ReadTag()) != 0;) {
    if (WireFormatLite::GetTagWireType(tag) !=
        WireFormatLite::WIRETYPE_LENGTH_DELIMITED) {
      if (!WireFormatLite::SkipField(&in, tag)) return false;
      continue;
    }
    std::uint32_t length = 0;
    if (!in.ReadVarint32(&length) || length > INT_MAX) return false;
    const CodedInputStream::Limit limit =
        in.PushLimit(static_cast<int>(length));
    const bool read = visit(WireFormatLite::GetTagFieldNumber(tag), in);
    const bool skipped = in.Skip(in.BytesUntilLimit());
    in.PopLimit(limit);
    if (!read || !skipped) return false;
  }
  return true;
}

// The rest of the field `in` is limited to, as a string.
bool ReadRest(CodedInputStream& in, std::string& out) {
  return in.ReadString(&out, in.BytesUntilLimit());
}

// The rigs (name -> the revision the answer says was used, "" when it says
// none) and terrains a call named, read from its bytes.
struct Names {
  absl::flat_hash_map<std::string, std::string> rigs;
  std::vector<std::string> terrains;

  // An ik.v1.Ground's registered terrains (field 3).
  bool AddTerrains(CodedInputStream& in) {
    return ForEachDelimited(in, [&](int number, CodedInputStream& field) {
      std::string name;
      if (number != 3 || !ReadRest(field, name)) return number != 3;
      if (std::find(terrains.begin(), terrains.end(), name) == terrains.end()) {
        terrains.push_back(std::move(name));
      }
      return true;
    });
  }
  void AddRig(const std::string& name, const std::string& revision) {
    std::string& used = rigs[name];
    if (used.empty()) used = revision;
  }
};

// A CodedInputStream over `buffer`'s slices, for the scans above.
struct BufferInput {
  explicit BufferInput(grpc::ByteBuffer& buffer)
      : reader(&buffer), in(&reader) {
    in.SetTotalBytesLimit(INT_MAX);
  }
  grpc::ProtoBufferReader reader;
  CodedInputStream in;
};

// The revision (field 2) of each character's answer (field 1) of a
// TickResponse: each answer read only up to it -- ikd writes the fields in
// number order -- and the rest skipped at once.
std::vector<std::string> AnswerRevisions(grpc::ByteBuffer& response) {
  std::vector<std::string> found;
  if (response.Length() == 0) return found;
  BufferInput input(response);
  constexpr std::uint32_t kRevision =
      WireFormatLite::MakeTag(2, WireFormatLite::WIRETYPE_LENGTH_DELIMITED);
  ForEachDelimited(input.in, [&](int number, CodedInputStream& answer) {
    if (number != 1) return true;
    std::string& revision = found.emplace_back();
    for (std::uint32_t tag; (tag = answer.ReadTag()) != 0;) {
      std::uint32_t length = 0;
      if (tag == kRevision) {
        return answer.ReadVarint32(&length) &&
               answer.ReadString(&revision, static_cast<int>(length));
      }
      if (!WireFormatLite::SkipField(&answer, tag)) return false;
    }
    return true;
  });
  return found;
}

// Field numbers are the API's: TickRequest {characters 1, shared_ground 2},
// TickCharacter {rig 2, ground 5}, GroundFeetRequest {ground 4}, the
// single calls' requests {rig 1} and answers {revision 1},
// TickResponse {characters 1}, TickCharacterResult {revision 2}.
Names NamesOf(Recorder::Pending& call) {
  Names names;
  if (IsTick(call.method)) {
    std::vector<std::string> rigs;
    BufferInput input(call.request);
    ForEachDelimited(input.in, [&](int number, CodedInputStream& in) {
      if (number == 2) return names.AddTerrains(in);
      if (number != 1) return true;
      std::string& rig = rigs.emplace_back();
      return ForEachDelimited(in, [&](int field, CodedInputStream& character) {
        if (field == 2) return ReadRest(character, rig);
        if (field != 5) return true;
        return ForEachDelimited(
            character, [&](int ground, CodedInputStream& shapes) {
              return ground != 4 || names.AddTerrains(shapes);
            });
      });
    });
    const std::vector<std::string> revisions = AnswerRevisions(call.response);
    for (size_t k = 0; k < rigs.size(); ++k) {
      names.AddRig(rigs[k], k < revisions.size() ? revisions[k] : "");
    }
    return names;
  }
  std::string rig;
  std::string revision;
  BufferInput request(call.request);
  ForEachDelimited(request.in, [&](int number, CodedInputStream& in) {
    if (number == 1) return ReadRest(in, rig);
    return number != 4 || call.method != "GroundFeet" || names.AddTerrains(in);
  });
  if (call.response.Length() > 0) {
    BufferInput response(call.response);
    ForEachDelimited(response.in, [&](int number, CodedInputStream& in) {
      return number != 1 || ReadRest(in, revision);
    });
  }
  names.AddRig(rig, revision);
  return names;
}

std::string Flat(const grpc::ByteBuffer& buffer) {
  std::vector<grpc::Slice> slices;
  std::string bytes;
  if (!buffer.Dump(&slices).ok()) return bytes;
  bytes.reserve(buffer.Length());
  for (const grpc::Slice& slice : slices) {
    bytes.append(reinterpret_cast<const char*>(slice.begin()), slice.size());
  }
  return bytes;
}

grpc::ByteBuffer Buffer(const std::string& bytes) {
  grpc::Slice slice(bytes);
  return grpc::ByteBuffer(&slice, 1);
}

// Keeps the tick's characters whose id (field 1) `keep` holds, in the
// request and the answer; false when none is kept.
bool FilterCharacters(const std::vector<std::string>& keep,
                      grpc::ByteBuffer& request, grpc::ByteBuffer& response) {
  wire::TickRequestBytes in;
  wire::TickResponseBytes out;
  if (!in.ParseFromString(Flat(request))) return false;
  const bool answered =
      response.Length() > 0 && out.ParseFromString(Flat(response));
  wire::TickRequestBytes kept_in = in;
  wire::TickResponseBytes kept_out = out;
  kept_in.clear_characters();
  kept_out.clear_characters();
  for (int k = 0; k < in.characters_size(); ++k) {
    std::string id;
    google::protobuf::io::ArrayInputStream bytes(
        in.characters(k).data(), static_cast<int>(in.characters(k).size()));
    CodedInputStream character(&bytes);
    ForEachDelimited(character, [&](int number, CodedInputStream& field) {
      return number != 1 || ReadRest(field, id);
    });
    if (std::find(keep.begin(), keep.end(), id) == keep.end()) continue;
    kept_in.add_characters(in.characters(k));
    if (answered && k < out.characters_size()) {
      kept_out.add_characters(out.characters(k));
    }
  }
  if (kept_in.characters_size() == 0) return false;
  request = Buffer(kept_in.SerializeAsString());
  if (answered) response = Buffer(kept_out.SerializeAsString());
  return true;
}

}  // namespace

// Writes the records: one file open at a time, the rigs and terrains it
// holds, the files of this recording and their sizes. Used by the writer
// thread only.
class Recorder::Writer {
 public:
  Writer(const RecorderOptions& options, const RigRegistry& rigs,
         const TerrainRegistry& terrains, RecorderCounters& counters)
      : options_(options),
        rigs_(rigs),
        terrains_(terrains),
        counters_(counters),
        file_bytes_(std::min(kMaxFileBytes,
                             std::max<std::int64_t>(options.max_bytes / 4, 1))),
        recording_(absl::StrCat(absl::FormatTime("%Y%m%dT%H%M%SZ", absl::Now(),
                                                 absl::UTCTimeZone()),
                                "-", getpid())) {}
  ~Writer() { Close(); }

  void Write(Pending& call);
  std::vector<std::string> files() const {
    std::vector<std::string> paths;
    for (const auto& [path, bytes] : files_) paths.push_back(path);
    return paths;
  }

 private:
  bool Open();
  void Close();
  bool WriteAll(std::vector<iovec>& pieces);
  bool Put(const v1::RecordEntry& entry);
  bool PutCall(const v1::RecordedCall& rest, Pending& call);
  bool PutRevisions(const Names& names, v1::RecordedCall& call);
  void Failed(const std::string& what);
  void Trim();

  const RecorderOptions& options_;
  const RigRegistry& rigs_;
  const TerrainRegistry& terrains_;
  RecorderCounters& counters_;
  const std::int64_t file_bytes_;
  const std::string recording_;
  std::uint64_t file_number_ = 0;
  int fd_ = -1;
  std::int64_t written_ = 0;                 // to the open file
  absl::flat_hash_set<std::string> stored_;  // "rig:" / "terrain:" revisions
  std::vector<std::pair<std::string, std::int64_t>> files_;
  std::int64_t failures_ = 0;
};

void Recorder::Writer::Failed(const std::string& what) {
  ++counters_.dropped_write_failed;
  // The first failure and then one in a thousand: a full disk must not fill
  // the log too.
  if (failures_++ % 1000 == 0) {
    absl::FPrintF(stderr,
                  "ikd: recording: %s; the record was dropped (%d so far)\n",
                  what, failures_);
  }
  Close();
}

bool Recorder::Writer::Open() {
  ++file_number_;
  const std::string path =
      (std::filesystem::path(options_.dir) /
       absl::StrFormat("ikd-%s-%06d.ikrec", recording_, file_number_))
          .string();
  fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd_ < 0) {
    Failed(absl::StrCat("cannot create ", path, ": ", std::strerror(errno)));
    return false;
  }
  written_ = 0;
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

void Recorder::Writer::Close() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

// Writes `pieces` whole (writev, as many at a time as it takes); on failure
// the record is dropped and the file closed.
bool Recorder::Writer::WriteAll(std::vector<iovec>& pieces) {
  std::int64_t total = 0;
  size_t first = 0;
  while (first < pieces.size()) {
    const int count =
        static_cast<int>(std::min<size_t>(pieces.size() - first, IOV_MAX));
    const ssize_t wrote = ::writev(fd_, &pieces[first], count);
    if (wrote < 0) {
      if (errno == EINTR) continue;
      Failed(absl::StrCat("cannot write ", files_.back().first, ": ",
                          std::strerror(errno)));
      return false;
    }
    total += wrote;
    // Past the pieces written whole; the rest of one written in part.
    for (size_t left = static_cast<size_t>(wrote); left > 0;) {
      const size_t step = std::min(left, pieces[first].iov_len);
      pieces[first].iov_base =
          static_cast<char*>(pieces[first].iov_base) + step;
      pieces[first].iov_len -= step;
      left -= step;
      if (pieces[first].iov_len == 0) ++first;
    }
    while (first < pieces.size() && pieces[first].iov_len == 0) ++first;
  }
  written_ += total;
  files_.back().second += total;
  counters_.bytes_written += total;
  return true;
}

bool Recorder::Writer::Put(const v1::RecordEntry& entry) {
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
bool Recorder::Writer::PutCall(const v1::RecordedCall& rest, Pending& call) {
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

// The rigs and terrains `names` holds, stored in the open file unless they
// are already; their revisions into `call`. False (the record dropped,
// counted) when a rig was replaced since the call used it.
bool Recorder::Writer::PutRevisions(const Names& names,
                                    v1::RecordedCall& call) {
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
    v1::RecordedRevision& revision = *call.add_rigs();
    revision.set_name(name);
    revision.set_revision((*rig)->revision);
    if (!stored_.insert(absl::StrCat("rig:", (*rig)->revision)).second) {
      continue;
    }
    v1::RecordEntry entry;
    entry.mutable_rig()->set_revision((*rig)->revision);
    *entry.mutable_rig()->mutable_rig() = (*rig)->definition;
    if (!Put(entry)) return false;
  }
  for (const std::string& name : names.terrains) {
    absl::StatusOr<std::shared_ptr<const TerrainEntry>> terrain =
        terrains_.Get({name, "terrain"});
    if (!terrain.ok() || (*terrain)->definition == nullptr) continue;
    v1::RecordedRevision& revision = *call.add_terrains();
    revision.set_name(name);
    revision.set_revision((*terrain)->revision);
    if (!stored_.insert(absl::StrCat("terrain:", (*terrain)->revision))
             .second) {
      continue;
    }
    v1::RecordEntry entry;
    entry.mutable_terrain()->set_revision((*terrain)->revision);
    *entry.mutable_terrain()->mutable_terrain() = *(*terrain)->definition;
    if (!Put(entry)) return false;
  }
  return true;
}

void Recorder::Writer::Write(Pending& call) {
  if (IsTick(call.method) && !options_.characters.empty() &&
      !FilterCharacters(options_.characters, call.request, call.response)) {
    return;
  }
  if (fd_ >= 0 && written_ >= file_bytes_) Close();
  if (fd_ < 0 && !Open()) return;
  if (call.gap_before > 0) {
    v1::RecordEntry gap;
    gap.mutable_gap()->set_dropped(call.gap_before);
    if (!Put(gap)) return;
  }
  v1::RecordedCall rest;
  if (!PutRevisions(NamesOf(call), rest)) return;
  rest.set_method(call.method);
  rest.set_stream(call.stream);
  rest.set_stream_tick(call.stream_tick);
  rest.set_code(call.code);
  rest.set_message(call.message);
  rest.set_unix_nanos(call.unix_nanos);
  if (!PutCall(rest, call)) return;
  ++counters_.recorded;
  Trim();
}

// Deletes this recording's oldest files while all of them hold more than
// --record_max_bytes (never the open one).
void Recorder::Writer::Trim() {
  std::int64_t total = 0;
  for (const auto& [path, bytes] : files_) total += bytes;
  while (total > options_.max_bytes && files_.size() > 1) {
    std::error_code ignored;
    std::filesystem::remove(files_.front().first, ignored);
    total -= files_.front().second;
    files_.erase(files_.begin());
  }
}

absl::StatusOr<std::unique_ptr<Recorder>> Recorder::Start(
    RecorderOptions options, const RigRegistry& rigs,
    const TerrainRegistry& terrains) {
  if (!(options.sample > 0.0 && options.sample <= 1.0)) {
    return InvalidField("--record_sample", "must be in (0, 1]");
  }
  if (options.max_bytes <= 0 || options.buffer_bytes <= 0) {
    return InvalidField(
        options.max_bytes <= 0 ? "--record_max_bytes" : "--record_buffer_bytes",
        "must be > 0");
  }
  for (const std::string& method : options.methods) {
    if (std::find(std::begin(kMethods), std::end(kMethods), method) ==
        std::end(kMethods)) {
      return InvalidField(
          "--record_methods",
          absl::StrCat("unknown method '", method,
                       "' (one of: ", absl::StrJoin(kMethods, ", "), ")"));
    }
  }
  std::error_code error;
  std::filesystem::create_directories(options.dir, error);
  if (error) {
    return InvalidField(
        "--record_dir",
        absl::StrCat("cannot create ", options.dir, ": ", error.message()));
  }
  std::unique_ptr<Recorder> recorder(
      new Recorder(std::move(options), rigs, terrains));
  recorder->thread_ = std::thread([r = recorder.get()] { r->Run(); });
  return recorder;
}

Recorder::Recorder(RecorderOptions options, const RigRegistry& rigs,
                   const TerrainRegistry& terrains)
    : options_(std::move(options)),
      writer_(std::make_unique<Writer>(options_, rigs, terrains, counters_)) {}

Recorder::~Recorder() {
  {
    absl::MutexLock lock(&mutex_);
    stopping_ = true;
    changed_.SignalAll();
  }
  if (thread_.joinable()) thread_.join();
}

bool Recorder::Records(absl::string_view method) const {
  return std::find(options_.methods.begin(), options_.methods.end(), method) !=
         options_.methods.end();
}

// The n-th call (from 1) is recorded when floor(n * sample) steps up: evenly
// spaced, the same calls whatever the timing.
// Returns n when recorded, else 0.
std::uint64_t Recorder::Sample(std::atomic<std::uint64_t>& count) {
  const std::uint64_t n = ++count;
  const bool recorded =
      std::floor(static_cast<double>(n) * options_.sample) >
      std::floor(static_cast<double>(n - 1) * options_.sample);
  return recorded ? n : 0;
}

bool Recorder::SampleCall() { return Sample(calls_) != 0; }

std::uint64_t Recorder::SampleStream() { return Sample(streams_); }

void Recorder::Record(absl::string_view method, std::uint64_t stream,
                      std::uint64_t stream_tick,
                      const grpc::ByteBuffer& request,
                      const grpc::ByteBuffer* response,
                      const absl::Status& status) {
  const std::int64_t size = static_cast<std::int64_t>(
      request.Length() + (response != nullptr ? response->Length() : 0) +
      status.message().size() + sizeof(Pending));
  absl::MutexLock lock(&mutex_);
  if (stream != 0 && broken_streams_.contains(stream)) {
    ++counters_.dropped_stream_broken;
    return;
  }
  if (queued_bytes_ + size > options_.buffer_bytes) {
    ++counters_.dropped_buffer_full;
    ++gap_;
    if (stream != 0) broken_streams_.insert(stream);
    return;
  }
  Pending& pending = queue_.emplace_back();
  pending.method = std::string(method);
  pending.stream = stream;
  pending.stream_tick = stream_tick;
  pending.request = request;  // shares its slices
  if (response != nullptr) pending.response = *response;
  pending.code = static_cast<int>(status.code());
  pending.message = std::string(status.message());
  pending.unix_nanos = absl::ToUnixNanos(absl::Now());
  pending.gap_before = std::exchange(gap_, 0);
  queued_bytes_ += pending.bytes();
  ++enqueued_;
  changed_.Signal();
}

void Recorder::Run() {
  for (;;) {
    std::deque<Pending> batch;
    std::int64_t batch_bytes = 0;
    {
      absl::MutexLock lock(&mutex_);
      while (queue_.empty() && !stopping_) changed_.Wait(&mutex_);
      if (queue_.empty() && stopping_) break;
      batch.swap(queue_);
    }
    for (Pending& call : batch) {
      batch_bytes += call.bytes();
      writer_->Write(call);
    }
    absl::MutexLock lock(&mutex_);
    queued_bytes_ -= batch_bytes;
    written_ += batch.size();
    files_ = writer_->files();
    changed_.SignalAll();
  }
  writer_.reset();
}

void Recorder::Flush() {
  absl::MutexLock lock(&mutex_);
  const std::uint64_t target = enqueued_;
  while (written_ < target) changed_.Wait(&mutex_);
}

std::vector<std::string> Recorder::files() const {
  absl::MutexLock lock(&mutex_);
  return files_;
}

}  // namespace ik::server
