#include "loadgen_raw_call.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/wire_format_lite.h>
#include <grpcpp/support/proto_buffer_reader.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>

#include "absl/time/clock.h"
#include "ik/v1/ik.pb.h"

namespace ik::loadgen {

grpc::ByteBuffer Serialized(const google::protobuf::MessageLite& request) {
  const grpc::Slice bytes(request.SerializeAsString());
  return grpc::ByteBuffer(&bytes, 1);
}

// Field 1, the characters, comes first in ikd's answers, so an answered
// tick is read no further than its first tag.
absl::Status TickStatus(grpc::ByteBuffer& answer) {
  using google::protobuf::internal::WireFormatLite;
  {
    grpc::ProtoBufferReader reader(&answer);
    google::protobuf::io::CodedInputStream input(&reader);
    for (std::uint32_t tag = input.ReadTag(); tag != 0; tag = input.ReadTag()) {
      if (WireFormatLite::GetTagFieldNumber(tag) ==
          v1::TickResponse::kCharactersFieldNumber) {
        return absl::OkStatus();
      }
      if (!WireFormatLite::SkipField(&input, tag)) break;
    }
  }
  grpc::ProtoBufferReader reader(&answer);
  v1::TickResponse failed;
  if (!failed.ParseFromZeroCopyStream(&reader) || failed.status().code() == 0) {
    return absl::InternalError("a tick answered without characters");
  }
  return absl::Status(static_cast<absl::StatusCode>(failed.status().code()),
                      failed.status().message());
}

absl::Status FromGrpc(const grpc::Status& status) {
  return absl::Status(static_cast<absl::StatusCode>(status.error_code()),
                      status.error_message());
}

RawCaller::~RawCaller() {
  queue_.Shutdown();
  void* tag;
  bool ok;
  while (queue_.Next(&tag, &ok)) {
  }
}

grpc::Status RawCaller::Call(const std::string& method,
                             const grpc::ByteBuffer& request,
                             grpc::ByteBuffer* answer, absl::Time deadline) {
  grpc::ClientContext context;
  Prepare(context, std::min(deadline, absl::Now() + deadline_));
  std::unique_ptr<grpc::GenericClientAsyncResponseReader> call =
      stub_.PrepareUnaryCall(&context, method, request, &queue_);
  call->StartCall();
  grpc::Status status;
  call->Finish(answer, &status, this);
  Await();
  return status;
}

void RawCaller::Stream(const std::string& method,
                       const std::vector<grpc::ByteBuffer>& requests,
                       Clock::time_point end,
                       absl::FunctionRef<void(const absl::Status&)> answered) {
  grpc::ByteBuffer answer;
  std::size_t next = 0;
  while (Clock::now() < end) {
    grpc::ClientContext context;
    Prepare(context,
            absl::Now() + absl::FromChrono(end - Clock::now()) + deadline_);
    std::unique_ptr<grpc::GenericClientAsyncReaderWriter> stream =
        stub_.PrepareCall(&context, method, &queue_);
    stream->StartCall(this);
    bool open = Await();
    while (open && Clock::now() < end) {
      stream->Write(requests[next++ % requests.size()], this);
      open = Await();
      if (!open) break;
      stream->Read(&answer, this);
      open = Await();
      if (open) answered(TickStatus(answer));
    }
    if (open) {
      stream->WritesDone(this);
      Await();
    }
    grpc::Status status;
    stream->Finish(&status, this);
    Await();
    if (!open || !status.ok()) {
      answered(status.ok() ? absl::InternalError("the stream ended early")
                           : FromGrpc(status));
    }
  }
}

void RawCaller::Prepare(grpc::ClientContext& context,
                        absl::Time deadline) const {
  context.set_deadline(absl::ToChronoTime(deadline));
  client_.PrepareContext(context);
}

bool RawCaller::Await() {
  void* tag;
  bool ok = false;
  return queue_.Next(&tag, &ok) && ok;
}

}  // namespace ik::loadgen
