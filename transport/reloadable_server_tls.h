// Server TLS whose certificate, key and client CA can be replaced while the server runs, for
// certificate rotation without a restart (a Kubernetes Secret updated in place, a renewed
// certificate and SIGHUP). gRPC's SSL server credentials ask a certificate config fetcher at
// every handshake whether the material changed
// (grpc_ssl_server_credentials_create_options_using_config_fetcher); the fetcher answers with
// what the last successful Load or Reload read, so a handshake sees the old material or the
// new, never a mix, and a bad file never reaches gRPC.
#pragma once

#include <grpcpp/security/server_credentials.h>

#include <memory>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "transport/tls_credentials.h"

namespace resched::transport {

class ReloadableServerTls {
 public:
  // Reads and checks the files (ReadServerTls; `files` must name some file).
  static absl::StatusOr<std::unique_ptr<ReloadableServerTls>> Load(const ServerTlsFiles& files);

  // Credentials for a listening port that serve, at each handshake, the material in use then.
  // They stay valid after this object is gone (gRPC may hold them past any owner).
  std::shared_ptr<grpc::ServerCredentials> credentials() const;

  // Reads the same files again. When they are valid, every handshake from then on uses them;
  // otherwise the error (as Load's), and the material in use stays. Whether client certificates
  // are required is decided at Load and kept.
  absl::Status Reload();

  const ServerTlsFiles& files() const { return files_; }

  struct State;

 private:
  ReloadableServerTls(ServerTlsFiles files, std::shared_ptr<State> state);

  const ServerTlsFiles files_;
  const std::shared_ptr<State> state_;
};

}  // namespace resched::transport
