// resched-loadgen --swf: replays a workload log (Standard Workload Format) against a server, on
// a fresh cluster "loadgen-swf" of the log's size. Each usable record becomes a rigid job of its
// width whose estimate is the requested time, submitted at its submit time and ending at its run
// time (core/workload/swf_workload.h says which records are usable and how).
//
// - SIMULATED clock: core/sim's replay loop drives the cluster (loadgen/grpc_sim_driver.h),
//   moving its clock from event to event; with --speedup each move first waits for its
//   wall-clock instant, else the loop runs as fast as the server answers. The schedule is the
//   one core/sim computes for the same log.
// - WALL clock: the cluster runs on real time and the log is compressed by --speedup: a job is
//   submitted speedup times sooner and lasts speedup times shorter; the loader watches the
//   schedule and reports each early end when it is due.
#pragma once

#include <ostream>

#include "absl/status/statusor.h"
#include "loadgen/options.h"
#include "loadgen/runner.h"
#include "loadgen/stats.h"

namespace resched::loadgen {

// NOT_FOUND or INVALID_ARGUMENT for an unreadable log or one without usable jobs; UNAVAILABLE
// when the server cannot be used. Calls that fail are counted, and a failed replay step ends the
// replay with its error.
absl::StatusOr<RunResult> ReplaySwf(const Options& options, std::ostream& progress);

}  // namespace resched::loadgen
