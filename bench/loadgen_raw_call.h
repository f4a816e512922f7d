// Raw-bytes calls for the load generator's floods: requests serialized once
// and sent as they are (grpc::GenericStub), answers kept as bytes and never
// parsed, so that a load of megabyte ticks loads ikd and not the process
// that sends it.
//
//   RawCaller caller(client, absl::Seconds(10));
//   const grpc::ByteBuffer request = Serialized(tick);
//   grpc::ByteBuffer answer;
//   grpc::Status status = caller.Call("/ik.v1.IkService/Tick", request,
//                                     &answer);
//   absl::Status tick = status.ok() ? TickStatus(answer) : FromGrpc(status);
#ifndef IK_BENCH_LOADGEN_RAW_CALL_H_
#define IK_BENCH_LOADGEN_RAW_CALL_H_

#include <google/protobuf/message_lite.h>
#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>

#include <chrono>
#include <string>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/time/time.h"
#include "ik/client.h"

namespace ik::loadgen {

// A request serialized once, to be sent as it is call after call (a
// ByteBuffer's copies share its bytes).
grpc::ByteBuffer Serialized(const google::protobuf::MessageLite& request);

// OK when a TickResponse's bytes hold a character, else the status of the
// tick, which failed as a whole (on a TickStream such a tick is answered
// with its status and no characters). Reads top-level tags only, skipping
// their values, until it meets a character; only an answer without
// characters, a few bytes, is parsed.
absl::Status TickStatus(grpc::ByteBuffer& answer);

// grpc::Status -> absl::Status (the codes share their numbering).
absl::Status FromGrpc(const grpc::Status& status);

// One caller's calls, as raw bytes on `client`'s channel with its token,
// one at a time, each waited for on the caller's own completion queue, on
// the caller's thread. `client` must outlive it. Not thread-safe.
class RawCaller {
 public:
  using Clock = std::chrono::steady_clock;

  // Each call's deadline is `deadline` from its start (a stream's, from
  // the end it is given).
  RawCaller(const Client& client, absl::Duration deadline)
      : client_(client), stub_(client.channel()), deadline_(deadline) {}
  ~RawCaller();
  RawCaller(const RawCaller&) = delete;
  RawCaller& operator=(const RawCaller&) = delete;

  // Calls unary `method` (which must outlive the call) with `request`;
  // gives up at `deadline` when that comes before the caller's own.
  grpc::Status Call(const std::string& method, const grpc::ByteBuffer& request,
                    grpc::ByteBuffer* answer,
                    absl::Time deadline = absl::InfiniteFuture());

  // `requests` in turn on TickStreams (a new one after one breaks) until
  // `end`, each tick's status (TickStatus) passed to `answered`; a broken
  // stream passes its status (or INTERNAL when it ended OK but early).
  void Stream(const std::string& method,
              const std::vector<grpc::ByteBuffer>& requests,
              Clock::time_point end,
              absl::FunctionRef<void(const absl::Status&)> answered);

 private:
  void Prepare(grpc::ClientContext& context, absl::Time deadline) const;
  // Waits for the one operation in flight; whether it succeeded.
  bool Await();

  const Client& client_;
  grpc::GenericStub stub_;
  absl::Duration deadline_;
  grpc::CompletionQueue queue_;
};

}  // namespace ik::loadgen

#endif  // IK_BENCH_LOADGEN_RAW_CALL_H_
