// resched-loadgen --acks FILE: one JSON line per change the service acknowledged, written as the
// answer comes, so that a test that kills replicas under the load can check afterwards that every
// acknowledged change is in the final state (tests/e2e/failover_test.cc):
//   {"call": "submit", "cluster": "loadgen-0", "request_id": "loadgen-...", "id": "j12"}
#pragma once

#include <fstream>
#include <memory>
#include <mutex>
#include <string>

#include "absl/status/statusor.h"
#include "loadgen/ops.h"

namespace resched::loadgen {

class AckLog {
 public:
  // INVALID_ARGUMENT naming --acks and the path when the file cannot be created.
  static absl::StatusOr<std::unique_ptr<AckLog>> Open(const std::string& path);

  // One line, flushed: what a killed loadgen acknowledged stays in the file.
  void Record(Op op, const std::string& cluster, const Acknowledgement& acknowledged);

 private:
  explicit AckLog(std::ofstream out) : out_(std::move(out)) {}
  std::mutex mu_;
  std::ofstream out_;  // behind mu_
};

}  // namespace resched::loadgen
