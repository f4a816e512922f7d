#include "state/registry.h"

#include <openssl/evp.h>

#include <algorithm>
#include <memory>

#include "absl/strings/escaping.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"

namespace ik::server {

std::string ContentRevision(const google::protobuf::Message& normalized,
                            absl::FunctionRef<void()> pause) {
  std::string bytes;
  {
    google::protobuf::io::StringOutputStream stream(&bytes);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    normalized.SerializeToCodedStream(&coded);
  }
  // Hashed a piece at a time (a mesh's definition is megabytes), pausing
  // between pieces.
  constexpr size_t kPieceBytes = 256 << 10;
  const std::unique_ptr<EVP_MD_CTX, void (*)(EVP_MD_CTX*)> context(
      EVP_MD_CTX_new(), &EVP_MD_CTX_free);
  EVP_DigestInit_ex(context.get(), EVP_sha256(), nullptr);
  for (size_t at = 0; at < bytes.size(); at += kPieceBytes) {
    if (at > 0) pause();
    EVP_DigestUpdate(context.get(), bytes.data() + at,
                     std::min(kPieceBytes, bytes.size() - at));
  }
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int digest_bytes = 0;
  EVP_DigestFinal_ex(context.get(), digest, &digest_bytes);
  return absl::StrCat("sha256:",
                      absl::BytesToHexString(absl::string_view(
                          reinterpret_cast<const char*>(digest), 8)));
}

}  // namespace ik::server
