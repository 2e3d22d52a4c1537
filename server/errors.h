// absl::Status -> grpc::Status. INVALID_ARGUMENT carries a google.rpc.BadRequest naming the
// field (core errors start with the field path), so a client can tell which input to fix; a
// status marked by WithRetryDelay carries a google.rpc.RetryInfo.
#pragma once

#include <grpcpp/grpcpp.h>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "google/protobuf/message.h"

namespace resched::server {

grpc::Status ToGrpc(const absl::Status& status);

// `status` telling the client to retry after `delay` (a quota or rate limit that frees up).
absl::Status WithRetryDelay(absl::Status status, absl::Duration delay);

// ALREADY_EXISTS for a replayed request_id, with the first answer attached as a detail (its
// lists left out when it would not fit in a trailer).
grpc::Status Replayed(const std::string& request_id, const google::protobuf::Message& first);

}  // namespace resched::server
