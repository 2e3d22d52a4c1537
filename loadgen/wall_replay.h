// The WALL-clock half of the SWF replay (swf_replay.h): submits a workload's jobs compressed in
// time to a WALL cluster and reports their early ends when due.
#pragma once

#include <ostream>
#include <string>

#include "absl/status/status.h"
#include "core/workload/workload.h"
#include "loadgen/options.h"
#include "loadgen/runner.h"
#include "loadgen/stats.h"
#include "resched/v1/service.grpc.pb.h"

namespace resched::loadgen {

// Job i is submitted at start + release_i / speedup as a rigid job lasting estimate_i / speedup,
// and reported finished runtime_fraction of the way into its allocation. Returns once every
// submitted job ended, or at `options.duration` when it was given (summary.stopped).
absl::Status ReplayOnWallClock(const Workload& workload, const std::string& cluster,
                               const Options& options, ::resched::v1::Resched::Stub& stub,
                               LatencyLog& log, ReplaySummary& summary, std::ostream& progress);

}  // namespace resched::loadgen
