// Drives the load: creates the clusters, times the health-check baseline, then runs the clients
// (closed or open loop) until the duration or the count is reached, printing a progress line
// every second.
#pragma once

#include <ostream>
#include <vector>

#include "absl/status/statusor.h"
#include "loadgen/options.h"
#include "loadgen/stats.h"

namespace resched::loadgen {

struct RunResult {
  double seconds = 0;               // the load phase
  std::vector<OpSummary> ops;       // per call kind, then "all"
  std::vector<OpSummary> baseline;  // the health-check baseline ("health", "all"), if asked
};

// UNAVAILABLE when the server cannot be reached, or a cluster cannot be created.
absl::StatusOr<RunResult> Run(const Options& options, std::ostream& progress);

}  // namespace resched::loadgen
