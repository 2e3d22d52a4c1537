// Printing a failed RPC: "error: CODE: message", then each google.rpc.BadRequest field
// violation of the status details on its own line.
#pragma once

#include <grpcpp/support/status.h>

#include <string>
#include <string_view>

#include "absl/strings/string_view.h"

namespace resched::cli {

// "INVALID_ARGUMENT", "NOT_FOUND", ...
absl::string_view StatusCodeName(grpc::StatusCode code);

// The whole text, ending in a newline. `server` (may be empty) is named in a hint when the
// server could not be reached.
std::string FormatRpcError(const grpc::Status& status, absl::string_view server = {});

}  // namespace resched::cli
