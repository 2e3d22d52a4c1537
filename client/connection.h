// Where the CLI's calls go and how the channel is secured: --server and the TLS flags.
#pragma once

#include <grpcpp/channel.h>

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "transport/tls_credentials.h"

namespace resched::cli {

struct Connection {
  std::string server;             // HOST:PORT, or several: HOST:PORT,HOST:PORT...
  transport::ClientTlsFiles tls;  // --tls-ca, --tls-cert, --tls-key; none: plaintext
  std::string token;              // sent with every call when not empty
};

// A channel to `connection.server` (to whichever of several accepts: transport/server_list.h),
// TLS when files are named, with the bearer token on every call when there is one;
// INVALID_ARGUMENT naming the flag
// when a file cannot be used. Large answers are allowed: `trace export` reads a cluster's whole
// retained history.
absl::StatusOr<std::shared_ptr<grpc::Channel>> OpenChannel(const Connection& connection);

}  // namespace resched::cli
