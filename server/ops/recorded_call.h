// One answered call as a recording holds it before it is written
// (ops/recorder.h), and what a recording reads of it: the rigs and terrains
// a single call names, scanned from its bytes, and a tick's characters kept
// by id.
#ifndef IK_SERVER_OPS_RECORDED_CALL_H_
#define IK_SERVER_OPS_RECORDED_CALL_H_

#include <grpcpp/support/byte_buffer.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "state/call_uses.h"

namespace ik::server {

// A call waiting for the writer. Its request and answer are the call's own
// ByteBuffers, shared (their slices are reference-counted), not copied:
// recording costs the call's thread no copy of its bytes.
// Where a call's time went (RecordedCall.queued_nanos, ran_nanos).
struct CallTiming {
  std::int64_t queued_nanos = 0;
  std::int64_t ran_nanos = 0;
};

struct RecordedCallBytes {
  std::string method;
  std::uint64_t stream = 0;
  std::uint64_t stream_tick = 0;
  grpc::ByteBuffer request;
  grpc::ByteBuffer response;  // empty when the call failed
  int code = 0;
  std::string message;
  std::int64_t unix_nanos = 0;
  CallTiming timing;
  std::uint64_t gap_before = 0;  // records dropped just before this one
  // The rigs and terrains it used, when its handler said (a tick's);
  // otherwise read from its bytes (NamesOf).
  std::optional<CallUses> uses;

  std::int64_t bytes() const {
    return static_cast<std::int64_t>(request.Length() + response.Length() +
                                     message.size() +
                                     sizeof(RecordedCallBytes));
  }
};

// The rigs (name -> the revision the answer says was used, "" when it says
// none) and the registered terrains a call named.
struct CallNames {
  absl::flat_hash_map<std::string, std::string> rigs;
  std::vector<std::string> terrains;
};

// Whether `method` is Tick or TickStream.
bool IsTick(absl::string_view method);

// What `call` names, read from its request's and answer's bytes without
// parsing them (a tick's poses are skipped, not copied).
CallNames NamesOf(RecordedCallBytes& call);

// Keeps the tick's characters whose id `keep` holds, in the request and
// the answer; false when none is kept.
bool FilterCharacters(const std::vector<std::string>& keep,
                      grpc::ByteBuffer& request, grpc::ByteBuffer& response);

}  // namespace ik::server

#endif  // IK_SERVER_OPS_RECORDED_CALL_H_
