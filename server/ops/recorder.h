// ikd --record_dir: answered calls written, with their answers and the
// rigs and terrains they used, to rotating files of length-delimited
// ik.v1.RecordEntry messages (proto/ik/v1/recording.proto), which
// `ikctl replay` re-sends and compares bit for bit and `ikctl inspect`
// shows.
//
// The call's thread only hands the request's and the answer's bytes (their
// gRPC slices, shared, not copied) to a bounded buffer, with the rig and
// terrain entries a tick ran on (state/call_uses.h); a writer thread of its
// own does everything else (finds a single call's rigs and terrains by the
// names in its bytes, filters characters, writes, rotates, deletes the
// oldest files past the size bound). It writes 4 MiB at a time around the
// page cache (ops/direct_file.h); what is left is written within a second,
// or when ikd stops. When the buffer is full (a slow or full disk) the
// call's record is dropped and counted, never waited for; a TickStream that
// lost a tick is not recorded further (its later ticks build on the lost
// one). Tokens, TLS material and peers are never written: a record holds
// the message bytes, the status and the time only.
#ifndef IK_SERVER_OPS_RECORDER_H_
#define IK_SERVER_OPS_RECORDER_H_

#include <grpcpp/support/byte_buffer.h>

#include <atomic>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "ops/recorded_call.h"
#include "ops/recording_writer.h"
#include "state/rig_registry.h"
#include "state/terrain_registry.h"

namespace ik::server {

class Recorder {
 public:
  // Checks the options (INVALID_ARGUMENT naming the --record_* flag) and
  // starts the writer; the first file is opened with the first record.
  static absl::StatusOr<std::unique_ptr<Recorder>> Start(
      RecorderOptions options, const RigRegistry& rigs,
      const TerrainRegistry& terrains);
  // Writes what is buffered, then stops.
  ~Recorder();

  // Whether `method`'s calls are recorded at all.
  bool Records(absl::string_view method) const;
  // Whether to record this call (unary), or this stream: its number, from
  // 1; 0 when it is not recorded.
  bool SampleCall();
  std::uint64_t SampleStream();

  // Records an answered call: `response` null when it failed (`status`).
  // `stream` 0 for a unary call. `uses`: the rigs and terrains the call
  // used (taken), as its handler says (a tick's); null: read from its
  // bytes, by name, from the registries.
  void Record(absl::string_view method, std::uint64_t stream,
              std::uint64_t stream_tick, const grpc::ByteBuffer& request,
              const grpc::ByteBuffer* response, const absl::Status& status,
              CallUses* uses = nullptr, CallTiming timing = {});

  // Waits until everything recorded so far is in the files (tests).
  void Flush();

  const RecorderCounters& counters() const { return counters_; }
  // The files written, oldest first (their paths).
  std::vector<std::string> files() const;

 private:
  Recorder(RecorderOptions options, const RigRegistry& rigs,
           const TerrainRegistry& terrains);
  void Run();
  std::uint64_t Sample(std::atomic<std::uint64_t>& count);

  const RecorderOptions options_;
  RecorderCounters counters_;
  std::atomic<std::uint64_t> calls_{0};
  std::atomic<std::uint64_t> streams_{0};
  std::unique_ptr<RecordingWriter> writer_;

  mutable absl::Mutex mutex_;
  absl::CondVar changed_;
  std::deque<RecordedCallBytes> queue_ ABSL_GUARDED_BY(mutex_);
  std::int64_t queued_bytes_ ABSL_GUARDED_BY(mutex_) = 0;
  std::uint64_t enqueued_ ABSL_GUARDED_BY(mutex_) = 0;
  std::uint64_t written_ ABSL_GUARDED_BY(mutex_) = 0;
  // Calls in the files (or dropped) when Flush asked last.
  std::uint64_t flushed_ ABSL_GUARDED_BY(mutex_) = 0;
  bool flush_wanted_ ABSL_GUARDED_BY(mutex_) = false;
  std::uint64_t gap_ ABSL_GUARDED_BY(mutex_) = 0;
  absl::flat_hash_set<std::uint64_t> broken_streams_ ABSL_GUARDED_BY(mutex_);
  std::vector<std::string> files_ ABSL_GUARDED_BY(mutex_);
  bool stopping_ ABSL_GUARDED_BY(mutex_) = false;
  std::thread thread_;
};

}  // namespace ik::server

#endif  // IK_SERVER_OPS_RECORDER_H_
