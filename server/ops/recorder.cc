#include "ops/recorder.h"

#include <fcntl.h>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl.h>
#include <google/protobuf/stubs/common.h>
#include <google/protobuf/util/delimited_message_util.h>
#include <google/protobuf/wire_format_lite.h>
#include <grpcpp/grpcpp.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
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

struct Recorder::Pending {
  std::string method;
  std::uint64_t stream = 0;
  std::uint64_t stream_tick = 0;
  std::string request;
  std::string response;
  int code = 0;
  std::string message;
  std::int64_t unix_nanos = 0;
  std::uint64_t gap_before = 0;  // records dropped just before this one

  std::int64_t bytes() const {
    return static_cast<std::int64_t>(request.size() + response.size() +
                                     message.size() + sizeof(Pending));
  }
};

namespace {

constexpr std::int64_t kMaxFileBytes = std::int64_t{64} << 20;
constexpr absl::string_view kMethods[] = {"Tick", "TickStream", "SolveChain",
                                          "GroundFeet", "StepDynamics"};

bool IsTick(absl::string_view method) {
  return method == "Tick" || method == "TickStream";
}

std::string Bytes(const grpc::ByteBuffer& buffer) {
  std::vector<grpc::Slice> slices;
  std::string bytes;
  if (!buffer.Dump(&slices).ok()) return bytes;
  bytes.reserve(buffer.Length());
  for (const grpc::Slice& slice : slices) {
    bytes.append(reinterpret_cast<const char*>(slice.begin()), slice.size());
  }
  return bytes;
}

// Calls `visit(number, bytes)` for each length-delimited field of the
// serialised message `message` (strings, bytes, messages), skipping the
// others -- and, unlike parsing a message type that declares only the
// fields wanted, without copying the rest into unknown fields: a tick's
// poses are most of its bytes. False when the bytes do not parse.
template <typename Visit>
bool ForEachDelimited(absl::string_view message, Visit visit) {
  using google::protobuf::internal::WireFormatLite;
  google::protobuf::io::CodedInputStream in(
      reinterpret_cast<const std::uint8_t*>(message.data()),
      static_cast<int>(message.size()));
  for (std::uint32_t tag; (tag = in.ReadTag()) != 0;) {
    if (WireFormatLite::GetTagWireType(tag) !=
        WireFormatLite::WIRETYPE_LENGTH_DELIMITED) {
      if (!WireFormatLite::SkipField(&in, tag)) return false;
      continue;
    }
    std::uint32_t length = 0;
    const void* data = nullptr;
    int left = 0;
    if (!in.ReadVarint32(&length)) return false;
    if (length > 0 && (!in.GetDirectBufferPointer(&data, &left) ||
                       static_cast<std::uint32_t>(left) < length)) {
      return false;
    }
    visit(WireFormatLite::GetTagFieldNumber(tag),
          absl::string_view(static_cast<const char*>(data), length));
    if (!in.Skip(static_cast<int>(length))) return false;
  }
  return in.ConsumedEntireMessage();
}

// The rigs (name -> the revision the answer says was used, "" when it says
// none) and terrains a call named.
struct Names {
  absl::flat_hash_map<std::string, std::string> rigs;
  std::vector<std::string> terrains;

  // An ik.v1.Ground's registered terrains (field 3).
  void AddTerrains(absl::string_view ground) {
    ForEachDelimited(ground, [&](int number, absl::string_view name) {
      if (number == 3 &&
          std::find(terrains.begin(), terrains.end(), name) == terrains.end()) {
        terrains.emplace_back(name);
      }
    });
  }
  void AddRig(absl::string_view name, absl::string_view revision) {
    std::string& used = rigs[name];
    if (used.empty()) used = std::string(revision);
  }
};

// The field `number` (a string or message, the last given) of `message`.
absl::string_view Field(absl::string_view message, int number) {
  absl::string_view found;
  ForEachDelimited(message, [&](int field, absl::string_view bytes) {
    if (field == number) found = bytes;
  });
  return found;
}

// The repeated field `number` of `message`.
std::vector<absl::string_view> Repeated(absl::string_view message, int number) {
  std::vector<absl::string_view> found;
  ForEachDelimited(message, [&](int field, absl::string_view bytes) {
    if (field == number) found.push_back(bytes);
  });
  return found;
}

// Keeps the tick's characters whose id `keep` holds, in the request and
// the answer; false when none is kept.
bool FilterCharacters(const std::vector<std::string>& keep,
                      std::string& request, std::string& response) {
  wire::TickRequestBytes in;
  wire::TickResponseBytes out;
  if (!in.ParseFromString(request)) return false;
  const bool answered = !response.empty() && out.ParseFromString(response);
  wire::TickRequestBytes kept_in = in;
  wire::TickResponseBytes kept_out = out;
  kept_in.clear_characters();
  kept_out.clear_characters();
  for (int k = 0; k < in.characters_size(); ++k) {
    // ik.v1.TickCharacter's id is its field 1.
    const absl::string_view id = Field(in.characters(k), 1);
    if (std::find(keep.begin(), keep.end(), id) == keep.end()) continue;
    kept_in.add_characters(in.characters(k));
    if (answered && k < out.characters_size()) {
      kept_out.add_characters(out.characters(k));
    }
  }
  if (kept_in.characters_size() == 0) return false;
  request = kept_in.SerializeAsString();
  if (answered) response = kept_out.SerializeAsString();
  return true;
}

// What `call` named, read from its request and answer.
Names NamesOf(const Recorder::Pending& call);

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

  void Write(Pending& call);  // its bytes moved into the file
  void Sync() {
    if (stream_ != nullptr) stream_->Flush();
  }
  std::vector<std::string> files() const {
    std::vector<std::string> paths;
    for (const auto& [path, bytes] : files_) paths.push_back(path);
    return paths;
  }

 private:
  bool Open();
  void Close();
  bool Put(const v1::RecordEntry& entry);
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
  std::unique_ptr<google::protobuf::io::FileOutputStream> stream_;
  std::int64_t written_ = 0;                 // to the open file
  absl::flat_hash_set<std::string> stored_;  // "rig:" / "terrain:" revisions
  std::vector<std::pair<std::string, std::int64_t>> files_;
  std::int64_t failures_ = 0;
};

namespace {

// Field numbers are the API's: TickRequest {characters 1, shared_ground 2},
// TickCharacter {rig 2, ground 5}, GroundFeetRequest {ground 4}, the
// single calls' requests {rig 1} and answers {revision 1},
// TickResponse {characters 1}, TickCharacterResult {revision 2}.
Names NamesOf(const Recorder::Pending& call) {
  Names names;
  if (IsTick(call.method)) {
    names.AddTerrains(Field(call.request, 2));
    const std::vector<absl::string_view> answers = Repeated(call.response, 1);
    const std::vector<absl::string_view> characters = Repeated(call.request, 1);
    for (size_t k = 0; k < characters.size(); ++k) {
      names.AddRig(Field(characters[k], 2),
                   k < answers.size() ? Field(answers[k], 2) : "");
      names.AddTerrains(Field(Field(characters[k], 5), 4));
    }
    return names;
  }
  names.AddRig(Field(call.request, 1), Field(call.response, 1));
  if (call.method == "GroundFeet") names.AddTerrains(Field(call.request, 4));
  return names;
}

}  // namespace

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
  stream_ = std::make_unique<google::protobuf::io::FileOutputStream>(fd_);
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
  if (stream_ != nullptr) stream_->Flush();
  stream_.reset();
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

bool Recorder::Writer::Put(const v1::RecordEntry& entry) {
  if (stream_ == nullptr) return false;
  const std::int64_t before = stream_->ByteCount();
  if (!google::protobuf::util::SerializeDelimitedToZeroCopyStream(
          entry, stream_.get())) {
    Failed(absl::StrCat("cannot write ", files_.back().first, ": ",
                        std::strerror(stream_->GetErrno())));
    return false;
  }
  const std::int64_t bytes = stream_->ByteCount() - before;
  written_ += bytes;
  files_.back().second += bytes;
  counters_.bytes_written += bytes;
  return true;
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
  if (stream_ != nullptr && written_ >= file_bytes_) Close();
  if (stream_ == nullptr && !Open()) return;
  if (call.gap_before > 0) {
    v1::RecordEntry gap;
    gap.mutable_gap()->set_dropped(call.gap_before);
    if (!Put(gap)) return;
  }
  v1::RecordEntry entry;
  v1::RecordedCall& recorded = *entry.mutable_call();
  if (!PutRevisions(NamesOf(call), recorded)) return;
  recorded.set_method(call.method);
  recorded.set_stream(call.stream);
  recorded.set_stream_tick(call.stream_tick);
  recorded.set_request(std::move(call.request));
  recorded.set_response(std::move(call.response));
  recorded.set_code(call.code);
  recorded.set_message(call.message);
  recorded.set_unix_nanos(call.unix_nanos);
  if (!Put(entry)) return;
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
  pending.request = Bytes(request);
  if (response != nullptr) pending.response = Bytes(*response);
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
    writer_->Sync();
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
