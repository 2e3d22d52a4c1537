// Drives the load: creates the clusters, times the health-check baseline, then runs the clients
// (closed or open loop) until the duration or the count is reached, printing a progress line
// every second.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "loadgen/options.h"
#include "loadgen/stats.h"

namespace resched::loadgen {

// What an SWF replay (swf_replay.h) replayed.
struct ReplaySummary {
  std::string log;
  std::string cluster;
  int processors = 0;
  std::int64_t jobs = 0;       // usable jobs selected from the log
  std::int64_t skipped = 0;    // records that were not usable jobs
  std::int64_t submitted = 0;  // jobs submitted before the end (or --duration)
  double log_seconds = 0;      // the log time the submitted jobs span
  bool stopped = false;        // --duration ended it before the last job
};

struct RunResult {
  double seconds = 0;               // the load phase
  std::vector<OpSummary> ops;       // per call kind, then "all"
  std::vector<OpSummary> baseline;  // the health-check baseline ("health", "all"), if asked
  std::optional<ReplaySummary> replay;
};

// The server's error when a cluster cannot be created (UNAVAILABLE when it cannot be reached,
// UNAUTHENTICATED or PERMISSION_DENIED when the token does not allow it).
absl::StatusOr<RunResult> Run(const Options& options, std::ostream& progress);

}  // namespace resched::loadgen
