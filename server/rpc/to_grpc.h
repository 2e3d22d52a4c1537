// absl::Status -> grpc::Status, once, where the adapter answers a call. INVALID_ARGUMENT carries
// a google.rpc.BadRequest naming the field (core errors start with the field path), so a client
// can tell which input to fix; every payload of the status (server/base/status_details.h) becomes a
// detail of the google.rpc.Status in the call's trailer.
#pragma once

#include <grpcpp/grpcpp.h>

#include "absl/status/status.h"

namespace resched::server {

grpc::Status ToGrpc(const absl::Status& status);

}  // namespace resched::server
