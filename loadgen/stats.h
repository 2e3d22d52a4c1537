// Latencies and errors per call kind: each client records into its own log (no sharing on the
// hot path), and the logs are merged for the report.
#pragma once

#include <grpcpp/support/status.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "loadgen/ops.h"

namespace resched::loadgen {

class LatencyLog {
 public:
  void Record(Op op, double micros, grpc::StatusCode code);
  // A call not made: nothing valid to make it on (ops.h, Prepare).
  void NotMade(Op op) { ++not_made_[op]; }
  const std::map<Op, std::int64_t>& not_made() const { return not_made_; }
  const std::map<Op, std::vector<double>>& micros() const { return micros_; }
  const std::map<Op, std::map<grpc::StatusCode, std::int64_t>>& codes() const { return codes_; }

 private:
  std::map<Op, std::vector<double>> micros_;  // every call, answered or not
  std::map<Op, std::map<grpc::StatusCode, std::int64_t>> codes_;
  std::map<Op, std::int64_t> not_made_;
};

struct OpSummary {
  std::string op;
  std::int64_t calls = 0;
  double calls_per_second = 0;
  // Milliseconds, over every call (errors included: a refusal is an answer too).
  double p50 = 0, p90 = 0, p99 = 0, p999 = 0, max = 0;
  std::map<std::string, std::int64_t> errors;  // by status code name; OK left out
  std::int64_t not_made = 0;                   // calls not made: no valid target (not in `calls`)
};

// The nearest-rank percentile q in [0, 1] of sorted values; 0 for none.
double Percentile(const std::vector<double>& sorted, double q);
std::string CodeName(grpc::StatusCode code);
// One summary per call kind seen, in OpNames order, then "all" over every call.
std::vector<OpSummary> Summarize(const std::vector<LatencyLog>& logs, double seconds);

}  // namespace resched::loadgen
