#include "transport/call_retry.h"

#include <algorithm>
#include <random>
#include <thread>

#include "absl/strings/str_format.h"
#include "google/protobuf/util/time_util.h"
#include "google/rpc/error_details.pb.h"
#include "google/rpc/status.pb.h"

namespace resched::transport {

std::string NewRequestId(const std::string& prefix) {
  std::random_device random;
  std::uniform_int_distribution<std::uint64_t> bits;
  return absl::StrFormat("%s%016x%016x", prefix, bits(random), bits(random));
}

std::chrono::milliseconds RetryDelay(const grpc::Status& status, int attempt) {
  if (status.error_code() != grpc::StatusCode::UNAVAILABLE) return std::chrono::milliseconds(-1);
  google::rpc::Status rich;
  if (!status.error_details().empty() && rich.ParseFromString(status.error_details())) {
    for (const google::protobuf::Any& detail : rich.details()) {
      google::rpc::RetryInfo retry;
      if (detail.UnpackTo(&retry)) {
        return std::chrono::milliseconds(
            google::protobuf::util::TimeUtil::DurationToMilliseconds(retry.retry_delay()));
      }
    }
  }
  return std::min(std::chrono::milliseconds(100 << std::min(attempt, 4)),
                  std::chrono::milliseconds(1000));
}

grpc::Status CallUntilAnswered(std::chrono::system_clock::time_point deadline,
                               const std::function<grpc::Status()>& attempt, bool* retried) {
  *retried = false;
  for (int tries = 0;; ++tries) {
    grpc::Status status = attempt();
    *retried = tries > 0;
    const std::chrono::milliseconds delay = RetryDelay(status, tries);
    if (delay.count() < 0 || std::chrono::system_clock::now() + delay >= deadline) return status;
    std::this_thread::sleep_for(delay);
  }
}

bool FirstAnswer(const grpc::Status& status, google::protobuf::Message* response) {
  if (status.error_code() != grpc::StatusCode::ALREADY_EXISTS) return false;
  google::rpc::Status rich;
  return rich.ParseFromString(status.error_details()) && rich.details_size() == 1 &&
         rich.details(0).UnpackTo(response);
}

}  // namespace resched::transport
