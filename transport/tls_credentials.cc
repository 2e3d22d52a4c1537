#include "transport/tls_credentials.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

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

absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> MakeServerCredentials(
    const ServerTlsFiles& files) {
  if (!files.enabled()) return grpc::InsecureServerCredentials();
  if (files.cert.empty() && files.key.empty()) {
    return absl::InvalidArgumentError(
        "--tls-client-ca needs --tls-cert and --tls-key (mutual TLS is TLS first)");
  }
  if (absl::Status pair = BothOrNeither(files.cert, files.key); !pair.ok()) return pair;
  absl::StatusOr<std::string> cert = ReadPem("--tls-cert", files.cert);
  if (!cert.ok()) return cert.status();
  absl::StatusOr<std::string> key = ReadPem("--tls-key", files.key);
  if (!key.ok()) return key.status();
  grpc::SslServerCredentialsOptions options(GRPC_SSL_DONT_REQUEST_CLIENT_CERTIFICATE);
  options.pem_key_cert_pairs.push_back({*key, *cert});
  if (!files.client_ca.empty()) {
    absl::StatusOr<std::string> ca = ReadPem("--tls-client-ca", files.client_ca);
    if (!ca.ok()) return ca.status();
    options.pem_root_certs = *ca;
    options.client_certificate_request = GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY;
  }
  return grpc::SslServerCredentials(options);
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
    options.pem_cert_chain = *cert;
    options.pem_private_key = *key;
  }
  return grpc::SslCredentials(options);
}

}  // namespace resched::transport
