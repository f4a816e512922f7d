// One IkService call as the metrics and the access log see it, and where
// the service reports it when it ends. A TickStream reports each tick it
// answers as one call of method "TickStream".
#ifndef IK_SERVER_OPS_CALL_RECORD_H_
#define IK_SERVER_OPS_CALL_RECORD_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace ik::server {

struct CallRecord {
  // The method's name, "SolveChain"; static storage.
  absl::string_view method;
  absl::Time start;
  // The client's address as gRPC gives it ("ipv4:127.0.0.1:5000"); filled
  // only when an access log is kept.
  std::string peer;
  std::int64_t request_bytes = 0;
};

// Receives every call's end. Implementations are thread-safe.
class CallObserver {
 public:
  virtual ~CallObserver() = default;
  // `record` ended with `code` at `end`.
  virtual void CallEnded(const CallRecord& record, absl::StatusCode code,
                         absl::Time end) = 0;
  // gRPC reported `record` cancelled before its answer was sent: the client
  // cancelled it, its deadline passed or its connection was lost. It may
  // still end (CallEnded) after this, with the answer nobody receives.
  virtual void CallCancelled(const CallRecord& /*record*/) {}
  // Whether records need their peer.
  virtual bool wants_peer() const { return false; }
};

}  // namespace ik::server

#endif  // IK_SERVER_OPS_CALL_RECORD_H_
