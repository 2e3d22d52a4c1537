// From an SWF log (swf.h) to a workload of rigid jobs, for replaying real traces. Kept: records
// with a known submit time, a positive run time and a positive processor count (allocated, else
// requested); everything else is skipped and counted by reason. The status field is not used:
// cancelled jobs that ran still occupied the machine. Per job: release = submit time relative to
// the earliest kept job; estimate = requested time when known and >= run time, else the run time;
// runtime_fraction = run time / estimate; rigid model with k = the processor count clamped to the
// machine.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/model/time.h"
#include "core/workload/swf.h"
#include "core/workload/workload.h"

namespace resched {

struct SwfConversionOptions {
  // Keep the first N usable jobs in file order (0: all).
  std::int64_t max_jobs = 0;
  // The machine, in processors; 0: the header's MaxProcs, else MaxNodes, else the widest job.
  int processors = 0;
  std::string name = "swf";  // the workload's name
};

struct SwfConversionStats {
  std::int64_t records_examined = 0;  // stops once max_jobs jobs are kept
  std::int64_t kept = 0;
  std::int64_t skipped_no_submit_time = 0;  // submit time unknown (-1)
  std::int64_t skipped_no_run_time = 0;     // run time unknown or 0
  std::int64_t skipped_no_processors = 0;   // allocated and requested processors unknown or 0
  std::int64_t skipped_out_of_range = 0;    // run time above kMaxJobDuration or release too late
  std::int64_t clamped_processors = 0;      // kept, with k reduced to the machine size
};

// One usable record, before a runtime model is chosen.
struct SwfJobBasis {
  const SwfRecord* record = nullptr;
  std::string id;  // the job number, or "r<index>" when unknown or repeated
  int k = 0;       // clamped to the machine
  Duration run_time = 0;
  Duration estimate = 0;
  Time release = 0;  // relative to the earliest kept job
};

// The machine size a log was recorded on: MaxProcs, else MaxNodes, else the widest record; 0 when
// none is known.
int SwfMachineSize(const SwfLog& log);

// Filters and converts records as described at the top, sorted by release (stable). Errors:
// INVALID_ARGUMENT for bad options or when no record is usable.
absl::StatusOr<std::vector<SwfJobBasis>> SelectSwfJobs(const SwfLog& log,
                                                       const SwfConversionOptions& options,
                                                       SwfConversionStats& stats);

struct SwfWorkload {
  Workload workload;
  SwfConversionStats stats;
};

// Rigid jobs: RigidModel{k, estimate}, owner "u<user id>" when known.
absl::StatusOr<SwfWorkload> SwfToRigidWorkload(const SwfLog& log,
                                               const SwfConversionOptions& options = {});

}  // namespace resched
