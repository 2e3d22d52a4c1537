// Whether a gRPC call's caller still waits, for the CallContext the adapter gives each call: long
// planners (Replan, ReserveDAG, QueryDeadline) stop once the caller has given up, and answer so.
#pragma once

#include <grpcpp/grpcpp.h>

#include "absl/status/status.h"

namespace resched::server {

// OK while `context`'s call may go on; DEADLINE_EXCEEDED once its deadline has passed; CANCELLED
// once the client cancelled it.
absl::Status CallStatusOf(const grpc::CallbackServerContext& context);

}  // namespace resched::server
