// The structured access log (ikd --access_log): one JSON object a line per
// IkService call (a TickStream: per tick answered), written as the call
// ends:
//
//   {"time":"2026-11-26T20:15:03.123456Z","method":"SolveChain","code":"OK",
//    "duration_ms":0.412,"peer":"ipv4:127.0.0.1:53122","request_bytes":236}
//
// Lines are written whole (one write each, under a lock), to a file opened
// for appending or to stderr ("-"). Thread-safe.
#ifndef IK_SERVER_OPS_ACCESS_LOG_H_
#define IK_SERVER_OPS_ACCESS_LOG_H_

#include <cstdio>
#include <memory>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "ops/call_record.h"

namespace ik::server {

class AccessLog final : public CallObserver {
 public:
  // Opens `path` for appending ("-": stderr); INVALID_ARGUMENT naming
  // --access_log when it cannot be opened.
  static absl::StatusOr<std::unique_ptr<AccessLog>> Open(
      const std::string& path);
  ~AccessLog() override;

  void CallEnded(const CallRecord& record, absl::StatusCode code,
                 absl::Time end) override;
  bool wants_peer() const override { return true; }

  // One record's line, without the newline.
  static std::string Line(const CallRecord& record, absl::StatusCode code,
                          absl::Time end);

 private:
  AccessLog(std::FILE* file, bool owned) : file_(file), owned_(owned) {}

  absl::Mutex mutex_;
  std::FILE* const file_ ABSL_PT_GUARDED_BY(mutex_);
  const bool owned_;
};

}  // namespace ik::server

#endif  // IK_SERVER_OPS_ACCESS_LOG_H_
