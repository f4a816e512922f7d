// The listener's credentials: plaintext, TLS (--tls_cert, --tls_key) or
// mutual TLS (--tls_client_ca: every client must present a certificate
// signed by that CA, valid now).
//
// The files are checked at start (PEM that parses, a key that belongs to
// the certificate, a CA bundle with at least one certificate), so a
// mistake stops ikd with the flag named instead of failing every
// handshake later. While serving they are read again every
// `reload_interval` (gRPC's FileWatcherCertificateProvider): a renewed
// certificate written over the old files is used by new connections
// without a restart.
//
//   TlsFiles files;
//   files.cert_file = "ikd.crt";
//   files.key_file = "ikd.key";
//   auto credentials = ServerCredentialsFor(files, absl::Seconds(60));
#ifndef IK_SERVER_OPS_TRANSPORT_SECURITY_H_
#define IK_SERVER_OPS_TRANSPORT_SECURITY_H_

#include <grpcpp/security/server_credentials.h>

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace ik::server {

struct TlsFiles {
  // PEM certificate chain the server presents (leaf first); empty with
  // key_file for plaintext.
  std::string cert_file;
  // PEM private key of that certificate.
  std::string key_file;
  // PEM bundle of the CAs that sign client certificates; empty: clients
  // present none.
  std::string client_ca_file;

  bool tls() const { return !cert_file.empty() || !key_file.empty(); }
};

// Insecure credentials when `files` asks for no TLS; otherwise TLS
// credentials watching the files. INVALID_ARGUMENT naming the flag
// (--tls_cert, --tls_key, --tls_client_ca) when a file is missing,
// unreadable or not what it should be, or when only one of cert and key is
// given.
absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> ServerCredentialsFor(
    const TlsFiles& files, absl::Duration reload_interval);

}  // namespace ik::server

#endif  // IK_SERVER_OPS_TRANSPORT_SECURITY_H_
