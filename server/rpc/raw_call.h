// IkService's methods take their requests as bytes and parse them
// themselves: gRPC 1.51's callback API answers a request it cannot parse
// with UNIMPLEMENTED and an empty message (server_callback_handlers.h),
// before the service sees it; parsed here, such a request is answered
// INVALID_ARGUMENT saying what it should have been. Each call's request and
// answer live on one protobuf arena, freed when the call ends.
#ifndef IK_SERVER_RPC_RAW_CALL_H_
#define IK_SERVER_RPC_RAW_CALL_H_

#include <google/protobuf/arena.h>
#include <grpcpp/grpcpp.h>
#include <grpcpp/impl/codegen/proto_utils.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "google/protobuf/message.h"
#include "ik/v1/tick.pb.h"
#include "ik/wire/tick_bytes.pb.h"
#include "ops/call_record.h"
#include "ops/recorded_call.h"
#include "ops/recorder.h"
#include "rpc/unread_answers.h"

namespace ik::server {

// absl::Status -> grpc::Status; the codes share their numbering. A status
// that names its field (ik/base/field_error.h) also carries, in the status
// details (gRPC's richer error model, the `grpc-status-details-bin` trailer), a
// google.rpc.Status with the same code and message whose details hold one
// google.rpc.BadRequest with a field violation {field: the path,
// description: the message without the path}. Messages are cut to 1 KiB.
grpc::Status ToGrpcStatus(const absl::Status& status);

// Arena blocks of 16 KiB growing to 64 KiB: below glibc's mmap threshold,
// so freed blocks go back to the heap and are reused by the next call
// instead of being unmapped and faulted in again.
inline google::protobuf::ArenaOptions CallArenaOptions() {
  google::protobuf::ArenaOptions options;
  options.start_block_size = 16 * 1024;
  options.max_block_size = 64 * 1024;
  return options;
}

// The API message a request type reads: the type itself, or the API's
// TickRequest for the tick's bytes form. Parse errors name it; the method's
// name (metrics, the access log) comes from it.
template <typename Message>
const google::protobuf::Descriptor* ApiDescriptor() {
  if constexpr (std::is_same_v<Message, wire::TickRequestBytes>) {
    return v1::TickRequest::descriptor();
  } else {
    return Message::descriptor();
  }
}

// Parses `bytes` into `message`; INVALID_ARGUMENT when they are not one.
template <typename Message>
absl::Status ParseRequest(const grpc::ByteBuffer& bytes, Message* message) {
  grpc::ByteBuffer copy(bytes);  // shares the slices; Deserialize empties it
  if (grpc::SerializationTraits<Message>::Deserialize(&copy, message).ok()) {
    return absl::OkStatus();
  }
  message->Clear();
  return absl::InvalidArgumentError(
      absl::StrCat("the request's ", bytes.Length(), " bytes do not parse as ",
                   ApiDescriptor<Message>()->full_name(),
                   " (is the client using this method's request type?)"));
}

// The `sequence` of the TickRequest in `bytes` (its last, as protobuf
// reads a repeated scalar), read without parsing the rest: a stream's
// tick refused before it is parsed still echoes it. 0 when there is none
// or the bytes are not a message.
std::uint64_t TickSequence(const grpc::ByteBuffer& bytes);

// `message` serialised into `bytes`.
inline absl::Status SerializeAnswer(const google::protobuf::Message& message,
                                    grpc::ByteBuffer* bytes) {
  bool own_buffer = false;
  if (grpc::SerializationTraits<google::protobuf::Message>::Serialize(
          message, bytes, &own_buffer)
          .ok()) {
    return absl::OkStatus();
  }
  return absl::InternalError("the answer could not be serialised");
}

// A tick's answer serialised into `bytes` without copying its characters:
// each character's answer (serialised already, on the solver threads) is
// moved out of `message` into a slice of its own that owns it, after its
// field's tag and length; the bytes are those SerializeToString gives.
// `message` keeps its other fields and no characters.
absl::Status SerializeAnswer(wire::TickResponseBytes& message,
                             grpc::ByteBuffer* bytes);

// Where a call's time went, up to now: from `received` to `started` (the
// pool's start; none: it ran at once) and from there on.
inline CallTiming Timing(
    std::chrono::steady_clock::time_point received,
    const std::optional<std::chrono::steady_clock::time_point>& started) {
  const auto now = std::chrono::steady_clock::now();
  const auto start = started.value_or(received);
  const auto nanos = [](auto duration) {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(duration)
        .count();
  };
  return CallTiming{nanos(start - received), nanos(now - start)};
}

// One unary call: its request parsed from the bytes received, its answer
// written to the bytes sent when it finishes. Deletes itself when the call
// is done.
template <typename Request, typename Response>
class UnaryCall final : public grpc::ServerUnaryReactor {
 public:
  explicit UnaryCall(grpc::ByteBuffer* answer_bytes)
      : arena_(CallArenaOptions()),
        request_(google::protobuf::Arena::CreateMessage<Request>(&arena_)),
        response_(google::protobuf::Arena::CreateMessage<Response>(&arena_)),
        answer_bytes_(answer_bytes) {}

  // Reports the call's end to `observers` (which outlive the call), with
  // `record` as it began.
  void Observe(const std::vector<CallObserver*>& observers, CallRecord record) {
    observers_ = &observers;
    record_ = std::move(record);
  }

  // Hands the call to `recorder` when it is answered: `method`'s name
  // (static storage) and the request's bytes, which outlive the call.
  void RecordTo(Recorder* recorder, absl::string_view method,
                const grpc::ByteBuffer* request_bytes) {
    recorder_ = recorder;
    recorded_method_ = method;
    request_bytes_ = request_bytes;
  }

  // Counts the call's answer, from its writing to the call's end, as
  // `caller`'s in `unread` (which outlives the call).
  void HoldAnswerIn(UnreadAnswers* unread, std::string caller) {
    unread_ = unread;
    caller_ = std::move(caller);
  }
  // The caller HoldAnswerIn named.
  const std::string& caller() const { return caller_; }

  // Parses the request; when it does not parse, answers so and returns
  // false.
  bool Parse(const grpc::ByteBuffer* request_bytes) {
    absl::Status parsed = ParseRequest(*request_bytes, request_);
    if (parsed.ok()) return true;
    Answer(std::move(parsed));
    return false;
  }

  const Request& request() const { return *request_; }
  Response& response() { return *response_; }

  // The solver pool starts the call: its wait ends here (the recording's
  // CallTiming). A call that never waited starts when it was received.
  void Started() { started_ = std::chrono::steady_clock::now(); }
  // Where a recorded tick's handler says what it used (CallScope::uses);
  // null when the call is not recorded.
  CallUses* uses() { return recorder_ != nullptr ? &uses_ : nullptr; }

  // Finishes the call with `status`, and the answer when it is OK.
  void Answer(absl::Status status) {
    if (status.ok()) {
      if constexpr (std::is_same_v<Response, wire::TickResponseBytes>) {
        status = SerializeAnswer(*response_, answer_bytes_);
      } else {
        status = SerializeAnswer(
            static_cast<const google::protobuf::Message&>(*response_),
            answer_bytes_);
      }
    }
    if (status.ok() && unread_ != nullptr) {
      held_bytes_ = static_cast<std::int64_t>(answer_bytes_->Length());
      unread_->Hold(caller_, held_bytes_);
    }
    if (recorder_ != nullptr) {
      // A tick's handler said what it used; a single call's rig and
      // terrains are read from its bytes.
      recorder_->Record(recorded_method_, 0, 0, *request_bytes_,
                        status.ok() ? answer_bytes_ : nullptr, status,
                        IsTick(recorded_method_) ? &uses_ : nullptr,
                        Timing(received_, started_));
    }
    if (observers_ != nullptr) {
      const absl::Time end = absl::Now();
      for (CallObserver* observer : *observers_) {
        observer->CallEnded(record_, status.code(), end);
      }
    }
    Finish(ToGrpcStatus(status));  // the call may be deleted from here on
  }

  // gRPC calls this at most once, before OnDone, only when the call ends
  // without its status sent (gRPC proposal L66).
  void OnCancel() override {
    if (observers_ == nullptr) return;
    for (CallObserver* observer : *observers_) observer->CallCancelled(record_);
  }

  void OnDone() override {
    if (held_bytes_ > 0) unread_->Release(caller_, held_bytes_);
    delete this;
  }

  // OnDone and OnCancel are trivial (a delete, the observers' counters), so
  // gRPC may run them on the thread where the call ends instead of handing
  // them to its executor thread: a hop per call that cost a small call as
  // much CPU as its solve (grpc::ServerContext's default reactor is
  // inlineable for the same reason).
  bool InternalInlineable() override { return true; }

 private:
  google::protobuf::Arena arena_;
  Request* request_;
  Response* response_;
  grpc::ByteBuffer* answer_bytes_;
  const std::vector<CallObserver*>* observers_ = nullptr;
  CallRecord record_;
  Recorder* recorder_ = nullptr;
  std::chrono::steady_clock::time_point received_ =
      std::chrono::steady_clock::now();
  std::optional<std::chrono::steady_clock::time_point> started_;
  absl::string_view recorded_method_;
  const grpc::ByteBuffer* request_bytes_ = nullptr;
  CallUses uses_;
  UnreadAnswers* unread_ = nullptr;
  std::string caller_;
  std::int64_t held_bytes_ = 0;
};

}  // namespace ik::server

#endif  // IK_SERVER_RPC_RAW_CALL_H_
