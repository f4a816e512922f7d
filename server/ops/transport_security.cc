#include "ops/transport_security.h"

#include <grpcpp/security/tls_certificate_provider.h>
#include <grpcpp/security/tls_credentials_options.h>
#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include <algorithm>
#include <fstream>
#include <memory>
#include <sstream>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace ik::server {
namespace {

struct BioFree {
  void operator()(BIO* bio) const { BIO_free(bio); }
};
struct X509Free {
  void operator()(X509* x509) const { X509_free(x509); }
};
struct KeyFree {
  void operator()(EVP_PKEY* key) const { EVP_PKEY_free(key); }
};
using Bio = std::unique_ptr<BIO, BioFree>;
using Certificate = std::unique_ptr<X509, X509Free>;
using PrivateKey = std::unique_ptr<EVP_PKEY, KeyFree>;

absl::Status FlagError(absl::string_view flag, absl::string_view path,
                       absl::string_view what) {
  return absl::InvalidArgumentError(
      absl::StrCat("--", flag, " ", path, ": ", what));
}

absl::StatusOr<std::string> ReadFile(absl::string_view flag,
                                     const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) return FlagError(flag, path, "cannot be read");
  std::stringstream contents;
  contents << file.rdbuf();
  return contents.str();
}

Bio MemoryBio(const std::string& pem) {
  return Bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
}

// The first certificate of a PEM file, checked to be one.
absl::StatusOr<Certificate> FirstCertificate(absl::string_view flag,
                                             const std::string& path) {
  absl::StatusOr<std::string> pem = ReadFile(flag, path);
  if (!pem.ok()) return pem.status();
  Bio bio = MemoryBio(*pem);
  Certificate certificate(
      PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr));
  ERR_clear_error();
  if (certificate == nullptr) {
    return FlagError(flag, path, "holds no PEM certificate");
  }
  return certificate;
}

absl::Status CheckFiles(const TlsFiles& files) {
  if (files.cert_file.empty() || files.key_file.empty()) {
    return absl::InvalidArgumentError(
        "--tls_cert and --tls_key: give both (or neither, for plaintext)");
  }
  absl::StatusOr<Certificate> certificate =
      FirstCertificate("tls_cert", files.cert_file);
  if (!certificate.ok()) return certificate.status();
  absl::StatusOr<std::string> key_pem = ReadFile("tls_key", files.key_file);
  if (!key_pem.ok()) return key_pem.status();
  Bio bio = MemoryBio(*key_pem);
  PrivateKey key(PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr));
  ERR_clear_error();
  if (key == nullptr) {
    return FlagError("tls_key", files.key_file,
                     "holds no PEM private key (an encrypted key is not "
                     "supported)");
  }
  if (X509_check_private_key(certificate->get(), key.get()) != 1) {
    ERR_clear_error();
    return FlagError(
        "tls_key", files.key_file,
        absl::StrCat("is not the key of the certificate in ", files.cert_file));
  }
  if (!files.client_ca_file.empty()) {
    absl::StatusOr<Certificate> ca =
        FirstCertificate("tls_client_ca", files.client_ca_file);
    if (!ca.ok()) return ca.status();
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> ServerCredentialsFor(
    const TlsFiles& files, absl::Duration reload_interval) {
  if (!files.tls()) {
    if (!files.client_ca_file.empty()) {
      return absl::InvalidArgumentError(
          "--tls_client_ca: needs --tls_cert and --tls_key (client "
          "certificates are checked in the TLS handshake)");
    }
    return grpc::InsecureServerCredentials();
  }
  if (absl::Status checked = CheckFiles(files); !checked.ok()) return checked;
  const auto seconds = static_cast<unsigned int>(
      std::max<int64_t>(1, absl::ToInt64Seconds(reload_interval)));
  auto provider =
      std::make_shared<grpc::experimental::FileWatcherCertificateProvider>(
          files.key_file, files.cert_file, files.client_ca_file, seconds);
  grpc::experimental::TlsServerCredentialsOptions options(provider);
  options.watch_identity_key_cert_pairs();
  if (files.client_ca_file.empty()) {
    options.set_cert_request_type(GRPC_SSL_DONT_REQUEST_CLIENT_CERTIFICATE);
  } else {
    options.watch_root_certs();
    options.set_cert_request_type(
        GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY);
  }
  return grpc::experimental::TlsServerCredentials(options);
}

}  // namespace ik::server
