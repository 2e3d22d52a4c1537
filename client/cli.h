// The resched command line: global flags, dispatch to a subcommand, help and exit status.
#pragma once

#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "client/connection.h"
#include "resched/v1/service.grpc.pb.h"

namespace resched::cli {

// Opens the channel the commands call through (OpenChannel; tests pass in-process ones).
using ChannelFactory =
    std::function<absl::StatusOr<std::shared_ptr<grpc::Channel>>(const Connection& connection)>;

// Runs `args` (without the program name). `default_server` is used without --server.
// Returns the exit status: 0 success, 1 failure (RPC error, unreadable file), 2 usage error.
int RunCli(const std::vector<std::string>& args, const ChannelFactory& open_channel,
           const std::string& default_server, std::ostream& out, std::ostream& err);

// The overview printed by `resched help`.
std::string Overview();

}  // namespace resched::cli
