// The files of an ikd recording (ops/recorder.h): one open at a time,
// each starting with its header and holding every rig and terrain its calls
// used before the first of them; rotated past a quarter of the size bound,
// the oldest deleted past the bound. Written around the page cache
// (ops/direct_file.h): a call counts as recorded once its bytes are in the
// file. Used by the recorder's writer thread only.
#ifndef IK_SERVER_OPS_RECORDING_WRITER_H_
#define IK_SERVER_OPS_RECORDING_WRITER_H_

#include <sys/uio.h>

#include <atomic>
#include <cstdint>
#include <deque>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/time/time.h"
#include "ik/v1/recording.pb.h"
#include "ops/direct_file.h"
#include "ops/recorded_call.h"
#include "state/rig_registry.h"
#include "state/terrain_registry.h"

namespace ik::server {

struct RecorderOptions {
  // Where the files go (created when missing).
  std::string dir;
  // All files of this recording together at most (the oldest are deleted);
  // a file rotates past a quarter of it (at most 64 MiB).
  std::int64_t max_bytes = std::int64_t{1} << 30;
  // Records waiting for the writer at most; beyond it calls are dropped.
  std::int64_t buffer_bytes = std::int64_t{64} << 20;
  // The fraction of calls (of streams, for TickStream) recorded, evenly
  // spaced: 1 records every one, 0.1 one in ten.
  double sample = 1.0;
  // Methods recorded: Tick, TickStream, SolveChain, GroundFeet, StepDynamics.
  std::vector<std::string> methods = {"Tick", "TickStream"};
  // Character ids kept of each tick (a tick without any is not recorded);
  // empty: all.
  std::vector<std::string> characters;
};

// What a recorder did, for the metrics.
struct RecorderCounters {
  // Calls in the files; bytes in the files.
  std::atomic<std::int64_t> recorded{0};
  std::atomic<std::int64_t> bytes_written{0};
  // Dropped: the buffer was full; the file could not be written; a stream's
  // tick after a lost one; a rig or terrain replaced before it was stored.
  std::atomic<std::int64_t> dropped_buffer_full{0};
  std::atomic<std::int64_t> dropped_write_failed{0};
  std::atomic<std::int64_t> dropped_stream_broken{0};
  std::atomic<std::int64_t> dropped_changed{0};
};

// Writes the records: one file open at a time, the rigs and terrains it
// holds, the files of this recording and their sizes. Used by the writer
// thread only.
class RecordingWriter {
 public:
  RecordingWriter(const RecorderOptions& options, const RigRegistry& rigs,
                  const TerrainRegistry& terrains, RecorderCounters& counters);
  ~RecordingWriter() { Close(); }

  void Write(RecordedCallBytes& call);
  // Writes the bytes of the calls given that wait for a whole 4 MiB.
  void WriteTail();
  // When WriteTail is due: a second after the first call waiting for it
  // (absl::InfiniteFuture() when none waits).
  absl::Time tail_due() const { return tail_due_; }
  std::vector<std::string> files() const {
    std::vector<std::string> paths;
    for (const auto& [path, bytes] : files_) paths.push_back(path);
    return paths;
  }

 private:
  bool Open();
  void Close();
  bool WriteAll(const std::vector<iovec>& pieces);
  void Settle();
  bool Put(const v1::RecordEntry& entry);
  bool PutCall(const v1::RecordedCall& rest, RecordedCallBytes& call);
  bool Lookup(const CallNames& names, CallUses& uses);
  bool PutUses(const CallUses& uses, v1::RecordedCall& call);
  void Failed(const absl::Status& status, std::int64_t lost);
  void Trim();

  const RecorderOptions& options_;
  const RigRegistry& rigs_;
  const TerrainRegistry& terrains_;
  RecorderCounters& counters_;
  const std::int64_t file_bytes_;
  const std::string recording_;
  std::uint64_t file_number_ = 0;
  DirectFile file_;
  std::int64_t settled_ = 0;  // file_.written() counted
  // Ticks the --record_characters filter kept nothing of, while it has
  // never kept anything; logged once at kUnmatchedTicksLogged.
  static constexpr int kUnmatchedTicksLogged = 1000;
  int unmatched_ticks_ = 0;
  bool filter_matched_ = false;
  std::deque<std::int64_t> call_ends_;  // calls given, not yet in the file
  absl::Time tail_due_ = absl::InfiniteFuture();
  absl::flat_hash_set<std::string> stored_;  // "rig:" / "terrain:" revisions
  std::vector<std::pair<std::string, std::int64_t>> files_;
  std::int64_t failures_ = 0;
};

}  // namespace ik::server

#endif  // IK_SERVER_OPS_RECORDING_WRITER_H_
