#include "ops/recorder.h"

#include <pthread.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "ik/base/field_error.h"

namespace ik::server {
namespace {

constexpr absl::string_view kMethods[] = {"Tick", "TickStream", "SolveChain",
                                          "GroundFeet", "StepDynamics"};

}  // namespace

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
  recorder->thread_ = std::thread([r = recorder.get()] {
    // Named, so that top -H and /proc tell its CPU from the solvers'.
    pthread_setname_np(pthread_self(), "ikd-recorder");
    r->Run();
  });
  return recorder;
}

Recorder::Recorder(RecorderOptions options, const RigRegistry& rigs,
                   const TerrainRegistry& terrains)
    : options_(std::move(options)),
      writer_(std::make_unique<RecordingWriter>(options_, rigs, terrains,
                                                counters_)) {}

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
                      const absl::Status& status, CallUses* uses,
                      CallTiming timing) {
  const std::int64_t size = static_cast<std::int64_t>(
      request.Length() + (response != nullptr ? response->Length() : 0) +
      status.message().size() + sizeof(RecordedCallBytes));
  absl::MutexLock lock(&mutex_);
  if (stream != 0 && broken_streams_.contains(stream)) {
    ++counters_.dropped_stream_broken;
    return;
  }
  if (queued_bytes_ + size > options_.buffer_bytes) {
    // Said the first time and then one in a thousand: a slow disk must not
    // slow the calls with a log line each.
    if (counters_.dropped_buffer_full++ % 1000 == 0) {
      absl::FPrintF(stderr,
                    "ikd: recording: the disk is behind (%d bytes waiting, "
                    "--record_buffer_bytes %d); calls are dropped from the "
                    "recording (%d so far)\n",
                    queued_bytes_, options_.buffer_bytes,
                    counters_.dropped_buffer_full.load());
    }
    ++gap_;
    if (stream != 0) broken_streams_.insert(stream);
    return;
  }
  RecordedCallBytes& pending = queue_.emplace_back();
  pending.method = std::string(method);
  pending.stream = stream;
  pending.stream_tick = stream_tick;
  pending.request = request;  // shares its slices
  if (response != nullptr) pending.response = *response;
  pending.code = static_cast<int>(status.code());
  pending.message = std::string(status.message());
  pending.unix_nanos = absl::ToUnixNanos(absl::Now());
  pending.timing = timing;
  pending.gap_before = std::exchange(gap_, 0);
  if (uses != nullptr) pending.uses = std::move(*uses);
  queued_bytes_ += pending.bytes();
  ++enqueued_;
  changed_.Signal();
}

// Takes what the calls left, writes it, and writes the tail of the file
// when it is due (ops/recording_writer.h) or Flush asks.
void Recorder::Run() {
  for (;;) {
    std::deque<RecordedCallBytes> batch;
    bool flush = false;
    std::int64_t batch_bytes = 0;
    {
      absl::MutexLock lock(&mutex_);
      while (queue_.empty() && !stopping_ && !flush_wanted_ &&
             absl::Now() < writer_->tail_due()) {
        changed_.WaitWithDeadline(&mutex_, writer_->tail_due());
      }
      if (queue_.empty() && stopping_) break;
      batch.swap(queue_);
      flush = std::exchange(flush_wanted_, false);
    }
    for (RecordedCallBytes& call : batch) {
      batch_bytes += call.bytes();
      writer_->Write(call);
    }
    if (flush || absl::Now() >= writer_->tail_due()) writer_->WriteTail();
    absl::MutexLock lock(&mutex_);
    queued_bytes_ -= batch_bytes;
    written_ += batch.size();
    if (flush) flushed_ = written_;
    files_ = writer_->files();
    changed_.SignalAll();
  }
  writer_.reset();
}

void Recorder::Flush() {
  absl::MutexLock lock(&mutex_);
  const std::uint64_t target = enqueued_;
  flush_wanted_ = true;
  changed_.SignalAll();
  while (flushed_ < target) changed_.Wait(&mutex_);
}

std::vector<std::string> Recorder::files() const {
  absl::MutexLock lock(&mutex_);
  return files_;
}

}  // namespace ik::server
