// The resched command line: global flags, dispatch to a subcommand, help and exit status.
#pragma once

#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "resched/v1/service.grpc.pb.h"

namespace resched::cli {

// Makes the stub for a server address ("host:port").
using StubFactory =
    std::function<std::unique_ptr<resched::v1::Resched::StubInterface>(const std::string& server)>;

// Runs `args` (without the program name). `default_server` is used without --server.
// Returns the exit status: 0 success, 1 failure (RPC error, unreadable file), 2 usage error.
int RunCli(const std::vector<std::string>& args, const StubFactory& make_stub,
           const std::string& default_server, std::ostream& out, std::ostream& err);

// The overview printed by `resched help`.
std::string Overview();

}  // namespace resched::cli
