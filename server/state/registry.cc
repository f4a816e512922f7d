#include "state/registry.h"

#include <openssl/sha.h>

#include "absl/strings/escaping.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"

namespace ik::server {

std::string ContentRevision(const google::protobuf::Message& normalized) {
  std::string bytes;
  {
    google::protobuf::io::StringOutputStream stream(&bytes);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    normalized.SerializeToCodedStream(&coded);
  }
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size(),
         digest);
  return absl::StrCat("sha256:",
                      absl::BytesToHexString(absl::string_view(
                          reinterpret_cast<const char*>(digest), 8)));
}

}  // namespace ik::server
