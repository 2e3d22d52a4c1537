// TLS on resched's gRPC channels with gRPC's own credentials: this file only reads the PEM files
// the flags name and hands them to gRPC, which does the handshakes and the verification.
#pragma once

#include <grpcpp/security/credentials.h>
#include <grpcpp/security/server_credentials.h>

#include <memory>
#include <string>

#include "absl/status/statusor.h"

namespace resched::transport {

// resched-server's side. No file named: plaintext (the server then stays on loopback unless told
// otherwise, see server/process/listen_security.h).
struct ServerTlsFiles {
  std::string cert;       // --tls-cert: the server's certificate chain, PEM
  std::string key;        // --tls-key: its private key, PEM
  std::string client_ca;  // --tls-client-ca: mutual TLS, clients need a certificate it signed
  bool enabled() const { return !cert.empty() || !key.empty() || !client_ca.empty(); }
};

// The server's PEM material as read from its files.
struct ServerTlsMaterial {
  std::string cert;
  std::string key;
  std::string client_ca;  // empty: no mutual TLS
};

// INVALID_ARGUMENT naming the flag when a file is missing, unreadable or holds no PEM block, when
// the key is not the certificate's, or when --tls-client-ca comes without a certificate and key.
// `files` must name some file (enabled()).
absl::StatusOr<ServerTlsMaterial> ReadServerTls(const ServerTlsFiles& files);

// Plaintext when no file is named; otherwise the files read as ReadServerTls does, served by
// ReloadableServerTls (transport/reloadable_server_tls.h) and never reloaded.
absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> MakeServerCredentials(
    const ServerTlsFiles& files);

// The CLI's and the load generator's side. Any file named turns TLS on; without --tls-ca the
// server is verified against gRPC's default roots (the system's).
struct ClientTlsFiles {
  std::string ca;    // --tls-ca: the roots the server's certificate must chain to, PEM
  std::string cert;  // --tls-cert: this client's certificate, for mutual TLS, PEM
  std::string key;   // --tls-key: its private key, PEM
  bool enabled() const { return !ca.empty() || !cert.empty() || !key.empty(); }
};

// Errors as for MakeServerCredentials; a certificate needs its key and the other way round.
absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> MakeChannelCredentials(
    const ClientTlsFiles& files);

}  // namespace resched::transport
