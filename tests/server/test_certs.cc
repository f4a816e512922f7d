#include "test_certs.h"

#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <atomic>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <utility>

namespace ik::testing {
namespace {

struct KeyFree {
  void operator()(EVP_PKEY* key) const { EVP_PKEY_free(key); }
};
struct X509Free {
  void operator()(X509* x509) const { X509_free(x509); }
};
struct BioFree {
  void operator()(BIO* bio) const { BIO_free(bio); }
};
using Key = std::unique_ptr<EVP_PKEY, KeyFree>;
using Certificate = std::unique_ptr<X509, X509Free>;
using Bio = std::unique_ptr<BIO, BioFree>;

// A test that cannot make its certificates cannot run: stop loudly.
void Require(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "test_certs: %s failed\n", what);
    std::abort();
  }
}

std::string ToPem(X509* certificate) {
  Bio bio(BIO_new(BIO_s_mem()));
  Require(PEM_write_bio_X509(bio.get(), certificate) == 1, "PEM_write_X509");
  char* data = nullptr;
  const long size = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, static_cast<size_t>(size));
}

std::string ToPem(EVP_PKEY* key) {
  Bio bio(BIO_new(BIO_s_mem()));
  Require(PEM_write_bio_PrivateKey(bio.get(), key, nullptr, nullptr, 0, nullptr,
                                   nullptr) == 1,
          "PEM_write_PrivateKey");
  char* data = nullptr;
  const long size = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, static_cast<size_t>(size));
}

Key FromPem(const std::string& pem) {
  Bio bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  Key key(PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr));
  Require(key != nullptr, "PEM_read_PrivateKey");
  return key;
}

Certificate CertificateFromPem(const std::string& pem) {
  Bio bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  Certificate certificate(
      PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr));
  Require(certificate != nullptr, "PEM_read_X509");
  return certificate;
}

void AddExtension(X509* certificate, X509* issuer, int nid, const char* value) {
  X509V3_CTX context;
  X509V3_set_ctx_nodb(&context);
  X509V3_set_ctx(&context, issuer, certificate, nullptr, nullptr, 0);
  X509_EXTENSION* extension =
      X509V3_EXT_conf_nid(nullptr, &context, nid, value);
  Require(extension != nullptr, "X509V3_EXT_conf_nid");
  Require(X509_add_ext(certificate, extension, -1) == 1, "X509_add_ext");
  X509_EXTENSION_free(extension);
}

// A certificate of `key` named `common_name`, valid over the interval,
// signed by `issuer_key` (issuer null: self-signed).
Certificate Make(EVP_PKEY* key, const std::string& common_name,
                 absl::Duration not_before, absl::Duration not_after,
                 X509* issuer, EVP_PKEY* issuer_key, bool ca) {
  static std::atomic<long> serial{1};
  Certificate certificate(X509_new());
  Require(X509_set_version(certificate.get(), 2) == 1, "X509_set_version");
  ASN1_INTEGER_set(X509_get_serialNumber(certificate.get()), serial++);
  X509_gmtime_adj(X509_getm_notBefore(certificate.get()),
                  absl::ToInt64Seconds(not_before));
  X509_gmtime_adj(X509_getm_notAfter(certificate.get()),
                  absl::ToInt64Seconds(not_after));
  X509_set_pubkey(certificate.get(), key);
  X509_NAME* name = X509_get_subject_name(certificate.get());
  X509_NAME_add_entry_by_txt(
      name, "CN", MBSTRING_ASC,
      reinterpret_cast<const unsigned char*>(common_name.c_str()), -1, -1, 0);
  X509* signer = issuer != nullptr ? issuer : certificate.get();
  X509_set_issuer_name(certificate.get(), X509_get_subject_name(signer));
  if (ca) {
    AddExtension(certificate.get(), signer, NID_basic_constraints,
                 "critical,CA:TRUE");
    AddExtension(certificate.get(), signer, NID_key_usage,
                 "critical,keyCertSign,cRLSign");
    AddExtension(certificate.get(), signer, NID_subject_key_identifier, "hash");
  } else {
    AddExtension(certificate.get(), signer, NID_basic_constraints, "CA:FALSE");
    AddExtension(certificate.get(), signer, NID_key_usage,
                 "critical,digitalSignature,keyEncipherment");
    AddExtension(certificate.get(), signer, NID_ext_key_usage,
                 "serverAuth,clientAuth");
    const std::string names =
        "DNS:" + common_name + ",DNS:localhost,IP:127.0.0.1";
    AddExtension(certificate.get(), signer, NID_subject_alt_name,
                 names.c_str());
    AddExtension(certificate.get(), signer, NID_authority_key_identifier,
                 "keyid:always");
  }
  Require(X509_sign(certificate.get(), issuer_key != nullptr ? issuer_key : key,
                    EVP_sha256()) > 0,
          "X509_sign");
  return certificate;
}

Key NewKey() {
  Key key(EVP_EC_gen("P-256"));
  Require(key != nullptr, "EVP_EC_gen");
  return key;
}

}  // namespace

TestCa::TestCa(const std::string& name) : name_(name) {
  Key key = NewKey();
  Certificate certificate = Make(key.get(), name, -absl::Hours(24),
                                 absl::Hours(24), nullptr, nullptr, true);
  self_ = {ToPem(certificate.get()), ToPem(key.get())};
}

TestCertificate TestCa::Issue(const std::string& common_name,
                              absl::Duration not_before,
                              absl::Duration not_after) const {
  Key ca_key = FromPem(self_.key_pem);
  Certificate ca = CertificateFromPem(self_.cert_pem);
  Key key = NewKey();
  Certificate certificate = Make(key.get(), common_name, not_before, not_after,
                                 ca.get(), ca_key.get(), false);
  return {ToPem(certificate.get()), ToPem(key.get())};
}

bool WriteFile(const std::string& path, const std::string& contents) {
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  file << contents;
  return static_cast<bool>(file);
}

}  // namespace ik::testing
