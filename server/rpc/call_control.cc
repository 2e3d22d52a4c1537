#include "server/rpc/call_control.h"

#include <chrono>

namespace resched::server {

absl::Status CallStatusOf(const grpc::CallbackServerContext& context) {
  // A call without a deadline has the largest time_point as its deadline.
  if (std::chrono::system_clock::now() >= context.deadline()) {
    return absl::DeadlineExceededError("the call's deadline passed while planning");
  }
  if (context.IsCancelled()) {
    return absl::CancelledError("the client cancelled the call while planning");
  }
  return absl::OkStatus();
}

}  // namespace resched::server
