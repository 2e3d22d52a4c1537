// Test helper: the google.rpc.RetryInfo a refused call carries in its status details.
#pragma once

#include <grpcpp/grpcpp.h>

#include <optional>

#include "absl/time/time.h"
#include "google/rpc/error_details.pb.h"
#include "google/rpc/status.pb.h"

namespace resched::testing {

// The retry delay of `status`, if it carries one.
inline std::optional<absl::Duration> RetryDelayOf(const grpc::Status& status) {
  google::rpc::Status rich;
  if (!rich.ParseFromString(status.error_details())) return std::nullopt;
  for (const google::protobuf::Any& detail : rich.details()) {
    google::rpc::RetryInfo retry;
    if (detail.UnpackTo(&retry)) {
      return absl::Seconds(retry.retry_delay().seconds()) +
             absl::Nanoseconds(retry.retry_delay().nanos());
    }
  }
  return std::nullopt;
}

}  // namespace resched::testing
