#include "rpc/raw_call.h"

#include <optional>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "google/rpc/error_details.pb.h"
#include "google/rpc/status.pb.h"
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

}  // namespace ik::server
