#include "rpc/raw_call.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/wire_format_lite.h"
#include "google/rpc/error_details.pb.h"
#include "google/rpc/status.pb.h"
#include "grpcpp/support/proto_buffer_reader.h"
#include "ik/base/field_error.h"

namespace ik::server {

namespace {

// At most this many bytes of a message go into the trailers: clients refuse
// trailers over 8 KiB (gRPC's default), and a refused trailer turns the
// answer into RESOURCE_EXHAUSTED. User strings are cut shorter (Quoted);
// this is the backstop.
constexpr size_t kMaxMessageBytes = 1024;

// `text` cut to kMaxMessageBytes at a UTF-8 character boundary, with "..."
// when cut.
std::string ForTrailer(absl::string_view text) {
  if (text.size() <= kMaxMessageBytes) return std::string(text);
  size_t end = kMaxMessageBytes - 3;
  while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) {
    --end;  // not inside a multi-byte character
  }
  return absl::StrCat(text.substr(0, end), "...");
}

}  // namespace

absl::Status SerializeAnswer(wire::TickResponseBytes& message,
                             grpc::ByteBuffer* bytes) {
  // Field 1 (characters), length-delimited: tag 0x0A.
  constexpr std::uint8_t kCharactersTag = (1 << 3) | 2;
  std::vector<grpc::Slice> slices;
  slices.reserve(2 * static_cast<size_t>(message.characters_size()) + 1);
  for (std::string& character : *message.mutable_characters()) {
    // The tag and a varint32 length (at most 5 bytes).
    std::uint8_t header[1 + 5];
    header[0] = kCharactersTag;
    const std::uint8_t* end =
        google::protobuf::io::CodedOutputStream::WriteVarint32ToArray(
            static_cast<std::uint32_t>(character.size()), header + 1);
    slices.emplace_back(header, static_cast<size_t>(end - header));
    if (character.empty()) continue;
    auto* owned = new std::string(std::move(character));
    slices.emplace_back(
        grpc_slice_new_with_user_data(
            owned->data(), owned->size(),
            [](void* string) { delete static_cast<std::string*>(string); },
            owned),
        grpc::Slice::STEAL_REF);
  }
  message.clear_characters();
  // The fields after the characters, in field order.
  std::string rest;
  if (!message.SerializeToString(&rest)) {
    return absl::InternalError("the answer could not be serialised");
  }
  if (!rest.empty()) slices.emplace_back(rest);
  *bytes = grpc::ByteBuffer(slices.data(), slices.size());
  return absl::OkStatus();
}

grpc::Status ToGrpcStatus(const absl::Status& status) {
  if (status.ok()) return grpc::Status::OK;
  const auto code = static_cast<grpc::StatusCode>(status.code());
  std::string message = ForTrailer(status.message());
  std::optional<std::string> field = FieldPathOf(status);
  if (!field.has_value()) return grpc::Status(code, std::move(message));
  google::rpc::BadRequest bad_request;
  google::rpc::BadRequest::FieldViolation* violation =
      bad_request.add_field_violations();
  violation->set_field(*std::move(field));
  violation->set_description(ForTrailer(FieldDescriptionOf(status)));
  google::rpc::Status details;
  details.set_code(static_cast<int>(code));
  details.set_message(message);
  details.add_details()->PackFrom(bad_request);
  return grpc::Status(code, std::move(message), details.SerializeAsString());
}

std::uint64_t TickSequence(const grpc::ByteBuffer& bytes) {
  using google::protobuf::internal::WireFormatLite;
  grpc::ByteBuffer copy(bytes);  // shares the slices
  grpc::ProtoBufferReader reader(&copy);
  google::protobuf::io::CodedInputStream input(&reader);
  const int field = v1::TickRequest::kSequenceFieldNumber;
  std::uint64_t sequence = 0;
  for (std::uint32_t tag = input.ReadTag(); tag != 0; tag = input.ReadTag()) {
    if (WireFormatLite::GetTagFieldNumber(tag) == field &&
        WireFormatLite::GetTagWireType(tag) ==
            WireFormatLite::WIRETYPE_VARINT) {
      if (!input.ReadVarint64(&sequence)) return 0;
    } else if (!WireFormatLite::SkipField(&input, tag)) {
      return 0;
    }
  }
  return input.ConsumedEntireMessage() ? sequence : 0;
}

}  // namespace ik::server
