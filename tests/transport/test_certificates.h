// Certificates made at test time with OpenSSL (a CA, certificates it signs, expired ones), so that
// the TLS tests need no key material in the repository and no expiry to maintain.
#pragma once

#include <openssl/evp.h>
#include <openssl/x509.h>

#include <chrono>
#include <memory>
#include <string>

namespace resched::testing {

struct KeyAndCertificate {
  std::string certificate_pem;
  std::string key_pem;
};

class TestCertificateAuthority {
 public:
  // A self-signed CA certificate named `name`, valid from an hour ago for a day.
  explicit TestCertificateAuthority(const std::string& name);

  const std::string& certificate_pem() const { return certificate_pem_; }

  // A certificate for `common_name`, valid for localhost and 127.0.0.1, as a server or a client,
  // from now + `not_before` to now + `not_after`, signed by this CA.
  KeyAndCertificate Issue(const std::string& common_name,
                          std::chrono::seconds not_before = -std::chrono::hours(1),
                          std::chrono::seconds not_after = std::chrono::hours(24)) const;

 private:
  struct KeyFree {
    void operator()(EVP_PKEY* key) const { EVP_PKEY_free(key); }
  };
  struct CertificateFree {
    void operator()(X509* certificate) const { X509_free(certificate); }
  };
  std::unique_ptr<EVP_PKEY, KeyFree> key_;
  std::unique_ptr<X509, CertificateFree> certificate_;
  std::string certificate_pem_;
};

// Writes `contents` to `directory`/`name` and returns the path.
std::string WriteTestFile(const std::string& directory, const std::string& name,
                          const std::string& contents);

}  // namespace resched::testing
