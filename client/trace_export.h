// `resched trace export`: what a cluster ran, as a Standard Workload Format log that our own
// simulator, other simulators and resched-experiment replay, or as Chrome/Perfetto trace-event
// JSON that opens in the Perfetto UI (docs/observability.md, "Schedule traces").
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/workload/swf.h"
#include "resched/v1/service.pb.h"

namespace resched::cli {

// One SWF record per job, in submission order (`jobs`: every job the cluster retains, as
// ListJobs gives them). Times are whole seconds since the log's start: the clock's start for a
// SIMULATED cluster, else the first job's release (UnixStartTime in the header); an instant is
// rounded down, a requested time up. Job number: n of the id "j<n>". Status: 1 finished, 0
// failed, 5 cancelled, -1 still queued or running (wait and run time unknown). Requested time:
// the model's time on the allocated width. User: owners numbered by first appearance (the
// header's notes name them). INVALID_ARGUMENT when a job's model cannot be read.
absl::StatusOr<SwfLog> JobsToSwf(const std::vector<resched::v1::Job>& jobs,
                                 const resched::v1::Cluster& cluster);

// Trace-event JSON: the cluster is a process, each processor a thread (track) holding a slice
// per job, DAG task and reservation on it ("ph": "X", microseconds, with the job's id, state and
// owner as args), and an instant event at the cluster's now. `schedule` is GetSchedule's answer
// with its processor ids.
std::string ScheduleToTraceEvents(const resched::v1::Schedule& schedule);

}  // namespace resched::cli
