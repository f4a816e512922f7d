// Certificates made by the tests themselves (OpenSSL): a CA, and server or
// client certificates it signs, valid over any interval around now -- so a
// test can present an expired certificate, or one from the wrong CA.
//
//   TestCa ca("test CA");
//   TestCertificate server = ca.Issue("ikd", -absl::Hours(1), absl::Hours(1));
//   WriteFile(dir + "/ikd.crt", server.cert_pem);
#ifndef IK_TESTS_SERVER_TEST_CERTS_H_
#define IK_TESTS_SERVER_TEST_CERTS_H_

#include <string>

#include "absl/time/time.h"

namespace ik::testing {

// A PEM certificate and its PEM private key (EC P-256).
struct TestCertificate {
  std::string cert_pem;
  std::string key_pem;
};

class TestCa {
 public:
  // A self-signed CA certificate valid from a day ago to a day ahead.
  explicit TestCa(const std::string& name);

  // A certificate for `common_name` (also its DNS name; its IP address is
  // 127.0.0.1, and `localhost` is a second DNS name), valid from
  // now + not_before to now + not_after, for server and client use.
  TestCertificate Issue(const std::string& common_name,
                        absl::Duration not_before,
                        absl::Duration not_after) const;

  const std::string& cert_pem() const { return self_.cert_pem; }

 private:
  std::string name_;
  TestCertificate self_;
};

// Writes `contents` to `path` (whole, replacing it); false on failure.
bool WriteFile(const std::string& path, const std::string& contents);

}  // namespace ik::testing

#endif  // IK_TESTS_SERVER_TEST_CERTS_H_
