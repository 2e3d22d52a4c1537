// Details a status carries to the client beside its code and message, attached as absl::Status
// payloads under their google.rpc type URLs; the transport turns each into a detail of the
// google.rpc.Status it answers with (server/rpc/to_grpc.h).
#pragma once

#include <map>
#include <string>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "google/protobuf/message.h"

namespace resched::server {

// `status` telling the client to retry after `delay` (a quota or rate limit that frees up): a
// google.rpc.RetryInfo.
absl::Status WithRetryDelay(absl::Status status, absl::Duration delay);

// `status` with a google.rpc.ErrorInfo of domain "resched.v1": a machine-readable `reason` and
// its `metadata` (the replica that serves a cluster, and where).
absl::Status WithErrorInfo(absl::Status status, const std::string& reason,
                           const std::map<std::string, std::string>& metadata);

// ALREADY_EXISTS for a replayed request_id, with the first answer attached (its lists left out
// when it would not fit in a trailer).
absl::Status Replayed(const std::string& request_id, const google::protobuf::Message& first);

}  // namespace resched::server
