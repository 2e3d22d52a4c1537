#include "tests/transport/test_certificates.h"

#include <openssl/pem.h>
#include <openssl/x509v3.h>

#include <fstream>
#include <stdexcept>

namespace resched::testing {
namespace {

void Check(bool ok, const char* what) {
  if (!ok) throw std::runtime_error(std::string("OpenSSL: ") + what + " failed");
}

struct BioFree {
  void operator()(BIO* bio) const { BIO_free(bio); }
};

std::string PemOf(X509* certificate) {
  std::unique_ptr<BIO, BioFree> bio(BIO_new(BIO_s_mem()));
  Check(PEM_write_bio_X509(bio.get(), certificate) == 1, "PEM_write_bio_X509");
  BUF_MEM* memory = nullptr;
  BIO_get_mem_ptr(bio.get(), &memory);
  return {memory->data, memory->length};
}

std::string PemOf(EVP_PKEY* key) {
  std::unique_ptr<BIO, BioFree> bio(BIO_new(BIO_s_mem()));
  Check(PEM_write_bio_PrivateKey(bio.get(), key, nullptr, nullptr, 0, nullptr, nullptr) == 1,
        "PEM_write_bio_PrivateKey");
  BUF_MEM* memory = nullptr;
  BIO_get_mem_ptr(bio.get(), &memory);
  return {memory->data, memory->length};
}

EVP_PKEY* NewKey() {
  EVP_PKEY* key = EVP_EC_gen("P-256");
  Check(key != nullptr, "EVP_EC_gen");
  return key;
}

// An unsigned certificate of `subject_key` for `common_name`, valid between the two offsets.
X509* NewCertificate(const std::string& common_name, EVP_PKEY* subject_key,
                     std::chrono::seconds not_before, std::chrono::seconds not_after) {
  static long serial = 1;
  X509* certificate = X509_new();
  Check(certificate != nullptr, "X509_new");
  Check(X509_set_version(certificate, 2) == 1, "X509_set_version");
  Check(ASN1_INTEGER_set(X509_get_serialNumber(certificate), serial++) == 1, "serial");
  Check(X509_gmtime_adj(X509_getm_notBefore(certificate), not_before.count()) != nullptr,
        "notBefore");
  Check(X509_gmtime_adj(X509_getm_notAfter(certificate), not_after.count()) != nullptr, "notAfter");
  Check(X509_set_pubkey(certificate, subject_key) == 1, "X509_set_pubkey");
  Check(X509_NAME_add_entry_by_txt(X509_get_subject_name(certificate), "CN", MBSTRING_ASC,
                                   reinterpret_cast<const unsigned char*>(common_name.c_str()), -1,
                                   -1, 0) == 1,
        "subject name");
  return certificate;
}

void AddExtension(X509* certificate, X509* issuer, int nid, const char* value) {
  X509V3_CTX context;
  X509V3_set_ctx_nodb(&context);
  X509V3_set_ctx(&context, issuer, certificate, nullptr, nullptr, 0);
  X509_EXTENSION* extension = X509V3_EXT_conf_nid(nullptr, &context, nid, value);
  Check(extension != nullptr, value);
  Check(X509_add_ext(certificate, extension, -1) == 1, "X509_add_ext");
  X509_EXTENSION_free(extension);
}

}  // namespace

TestCertificateAuthority::TestCertificateAuthority(const std::string& name) : key_(NewKey()) {
  certificate_.reset(
      NewCertificate(name, key_.get(), -std::chrono::hours(1), std::chrono::hours(24)));
  X509* self = certificate_.get();
  Check(X509_set_issuer_name(self, X509_get_subject_name(self)) == 1, "issuer name");
  AddExtension(self, self, NID_basic_constraints, "critical,CA:TRUE");
  AddExtension(self, self, NID_key_usage, "critical,keyCertSign,cRLSign");
  AddExtension(self, self, NID_subject_key_identifier, "hash");
  Check(X509_sign(self, key_.get(), EVP_sha256()) > 0, "X509_sign");
  certificate_pem_ = PemOf(self);
}

KeyAndCertificate TestCertificateAuthority::Issue(const std::string& common_name,
                                                  std::chrono::seconds not_before,
                                                  std::chrono::seconds not_after) const {
  std::unique_ptr<EVP_PKEY, KeyFree> key(NewKey());
  std::unique_ptr<X509, CertificateFree> certificate(
      NewCertificate(common_name, key.get(), not_before, not_after));
  X509* leaf = certificate.get();
  Check(X509_set_issuer_name(leaf, X509_get_subject_name(certificate_.get())) == 1, "issuer name");
  AddExtension(leaf, certificate_.get(), NID_basic_constraints, "critical,CA:FALSE");
  AddExtension(leaf, certificate_.get(), NID_subject_alt_name, "DNS:localhost,IP:127.0.0.1");
  AddExtension(leaf, certificate_.get(), NID_ext_key_usage, "serverAuth,clientAuth");
  AddExtension(leaf, certificate_.get(), NID_authority_key_identifier, "keyid");
  Check(X509_sign(leaf, key_.get(), EVP_sha256()) > 0, "X509_sign");
  return {PemOf(leaf), PemOf(key.get())};
}

std::string WriteTestFile(const std::string& directory, const std::string& name,
                          const std::string& contents) {
  const std::string path = directory + "/" + name;
  std::ofstream(path, std::ios::binary) << contents;
  return path;
}

}  // namespace resched::testing
