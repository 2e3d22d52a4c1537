// Channels that send a bearer token with every call ("authorization: Bearer TOKEN"), for a
// server started with --tokens-file. The token rides in a client interceptor rather than in
// gRPC's call credentials because those are refused on plaintext channels, and a loopback server
// without TLS may still require tokens.
#pragma once

#include <grpcpp/channel.h>
#include <grpcpp/security/credentials.h>
#include <grpcpp/support/channel_arguments.h>

#include <memory>
#include <string>

#include "absl/status/statusor.h"

namespace resched::transport {

// A channel to `target`; every call on it carries `token` when it is not empty.
std::shared_ptr<grpc::Channel> CreateChannelWithToken(
    const std::string& target, const std::shared_ptr<grpc::ChannelCredentials>& credentials,
    const grpc::ChannelArguments& arguments, const std::string& token);

// $RESCHED_TOKEN (surrounding white space dropped): the token a client calls with when no
// --token-file names one; empty when unset. INVALID_ARGUMENT naming the variable when it holds
// what cannot be sent as metadata (transport/metadata_value.h).
absl::StatusOr<std::string> TokenFromEnvironment();

// The token in `path` (surrounding white space dropped); INVALID_ARGUMENT naming `flag` when the
// file cannot be read, holds no token, or holds what cannot be sent as metadata. The token itself
// never appears in an error.
absl::StatusOr<std::string> ReadTokenFile(const std::string& flag, const std::string& path);

}  // namespace resched::transport
