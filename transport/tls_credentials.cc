#include "transport/tls_credentials.h"

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "transport/reloadable_server_tls.h"

namespace resched::transport {
namespace {

// The file's text, checked to hold a PEM block so that a wrong file is refused here, by flag
// name, rather than by a handshake that fails later without saying why.
absl::StatusOr<std::string> ReadPem(const std::string& flag, const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return absl::InvalidArgumentError(
        absl::StrCat(flag, ": cannot read '", path, "': ", std::strerror(errno)));
  }
  std::ostringstream text;
  text << in.rdbuf();
  if (!absl::StrContains(text.str(), "-----BEGIN ")) {
    return absl::InvalidArgumentError(
        absl::StrCat(flag, ": '", path, "' holds no PEM block (-----BEGIN ...)"));
  }
  return text.str();
}

// OK when the first certificate of `cert_pem` (the chain's leaf) is the one `key_pem`'s private
// key belongs to. gRPC would only fail to start its listener, which reads as a bad address.
absl::Status KeyMatchesCertificate(const std::string& cert_pem, const std::string& cert_path,
                                   const std::string& key_pem, const std::string& key_path) {
  const auto bio_of = [](const std::string& pem) {
    return std::unique_ptr<BIO, decltype(&BIO_free)>(
        BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())), &BIO_free);
  };
  auto cert_bio = bio_of(cert_pem);
  std::unique_ptr<X509, decltype(&X509_free)> cert(
      PEM_read_bio_X509(cert_bio.get(), nullptr, nullptr, nullptr), &X509_free);
  if (cert == nullptr) {
    ERR_clear_error();
    return absl::InvalidArgumentError(
        absl::StrCat("--tls-cert: '", cert_path, "' holds no certificate OpenSSL can read"));
  }
  auto key_bio = bio_of(key_pem);
  std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)> key(
      PEM_read_bio_PrivateKey(key_bio.get(), nullptr, nullptr, nullptr), &EVP_PKEY_free);
  if (key == nullptr) {
    ERR_clear_error();
    return absl::InvalidArgumentError(absl::StrCat(
        "--tls-key: '", key_path, "' holds no private key OpenSSL can read (or it is encrypted)"));
  }
  if (X509_check_private_key(cert.get(), key.get()) != 1) {
    ERR_clear_error();
    return absl::InvalidArgumentError(absl::StrCat("--tls-key: '", key_path,
                                                   "' is not the private key of the certificate "
                                                   "in --tls-cert '",
                                                   cert_path, "'"));
  }
  return absl::OkStatus();
}

absl::Status BothOrNeither(const std::string& cert, const std::string& key) {
  if (cert.empty() && !key.empty()) {
    return absl::InvalidArgumentError("--tls-key needs --tls-cert (the certificate it belongs to)");
  }
  if (!cert.empty() && key.empty()) {
    return absl::InvalidArgumentError("--tls-cert needs --tls-key (the certificate's private key)");
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<ServerTlsMaterial> ReadServerTls(const ServerTlsFiles& files) {
  if (files.cert.empty() && files.key.empty()) {
    return absl::InvalidArgumentError(
        "--tls-client-ca needs --tls-cert and --tls-key (mutual TLS is TLS first)");
  }
  if (absl::Status pair = BothOrNeither(files.cert, files.key); !pair.ok()) return pair;
  ServerTlsMaterial material;
  absl::StatusOr<std::string> cert = ReadPem("--tls-cert", files.cert);
  if (!cert.ok()) return cert.status();
  material.cert = *std::move(cert);
  absl::StatusOr<std::string> key = ReadPem("--tls-key", files.key);
  if (!key.ok()) return key.status();
  material.key = *std::move(key);
  if (absl::Status match =
          KeyMatchesCertificate(material.cert, files.cert, material.key, files.key);
      !match.ok()) {
    return match;
  }
  if (!files.client_ca.empty()) {
    absl::StatusOr<std::string> ca = ReadPem("--tls-client-ca", files.client_ca);
    if (!ca.ok()) return ca.status();
    material.client_ca = *std::move(ca);
  }
  return material;
}

absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> MakeServerCredentials(
    const ServerTlsFiles& files) {
  if (!files.enabled()) return grpc::InsecureServerCredentials();
  absl::StatusOr<std::unique_ptr<ReloadableServerTls>> tls = ReloadableServerTls::Load(files);
  if (!tls.ok()) return tls.status();
  return (*tls)->credentials();
}

absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> MakeChannelCredentials(
    const ClientTlsFiles& files) {
  if (!files.enabled()) return grpc::InsecureChannelCredentials();
  if (absl::Status pair = BothOrNeither(files.cert, files.key); !pair.ok()) return pair;
  grpc::SslCredentialsOptions options;
  if (!files.ca.empty()) {
    absl::StatusOr<std::string> ca = ReadPem("--tls-ca", files.ca);
    if (!ca.ok()) return ca.status();
    options.pem_root_certs = *ca;
  }
  if (!files.cert.empty()) {
    absl::StatusOr<std::string> cert = ReadPem("--tls-cert", files.cert);
    if (!cert.ok()) return cert.status();
    absl::StatusOr<std::string> key = ReadPem("--tls-key", files.key);
    if (!key.ok()) return key.status();
    if (absl::Status match = KeyMatchesCertificate(*cert, files.cert, *key, files.key);
        !match.ok()) {
      return match;
    }
    options.pem_cert_chain = *cert;
    options.pem_private_key = *key;
  }
  return grpc::SslCredentials(options);
}

}  // namespace resched::transport
