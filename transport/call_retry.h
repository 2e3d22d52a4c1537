// How the CLI and resched-loadgen ride a cluster's move between replicas (docs/ha.md): a call
// answered UNAVAILABLE is made again, after the delay the server asked for (google.rpc.RetryInfo)
// or a growing pause, until the call's deadline. A mutating request carries a request id, so that
// making it again is exact: a try that was applied but whose answer was lost answers
// ALREADY_EXISTS with the first answer, which the retry takes as its own.
#pragma once

#include <grpcpp/support/status.h>

#include <chrono>
#include <functional>
#include <string>

#include "google/protobuf/message.h"

namespace resched::transport {

// A new request id for a request that names none: `prefix`, then 128 random bits in hex.
std::string NewRequestId(const std::string& prefix);

// How long to wait before trying a call answered `status` again (its RetryInfo, else 100 ms
// doubling per `attempt` up to 1 s); negative when the status is not worth a retry.
std::chrono::milliseconds RetryDelay(const grpc::Status& status, int attempt);

// Makes a call by `attempt` (one try, within `deadline`) again while it is answered UNAVAILABLE,
// after RetryDelay, as long as the next try would start before `deadline`. Returns the last
// try's status; `retried` says whether that try was not the first (an ALREADY_EXISTS then means
// an earlier try was applied).
grpc::Status CallUntilAnswered(std::chrono::system_clock::time_point deadline,
                               const std::function<grpc::Status()>& attempt, bool* retried);

// The first answer a retried request's ALREADY_EXISTS carries, put in `response`; false when
// it carries none of that type.
bool FirstAnswer(const grpc::Status& status, google::protobuf::Message* response);

}  // namespace resched::transport
