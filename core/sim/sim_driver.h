// What the replay loop (replay.h) needs from a cluster: submit, report an end, move the clock, look
// at the active jobs. Behind it sits a ClusterPlan (plan_driver.h) or a SIMULATED cluster of a
// resched server reached through gRPC (loadgen/grpc_sim_driver.h), so both run the same loop.
#pragma once

#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/model/job.h"

namespace resched {

// One job as the cluster reports it.
struct JobView {
  JobId id;
  JobState state = JobState::kQueued;
  Allocation allocation;  // planned while queued, actual once running
  int group = -1;         // its processor group on groups of several speeds, else -1
};

class SimDriver {
 public:
  virtual ~SimDriver() = default;

  // Submits `job` (its release is the cluster's now) and returns the id the cluster gave it.
  virtual absl::StatusOr<JobId> Submit(const Job& job) = 0;
  // Reports that running job `id` finished at `t` (the cluster's now).
  virtual absl::Status ReportEnded(const JobId& id, Time t) = 0;
  // Moves the cluster's clock to `t` (>= now); the cluster starts and ends jobs on the way.
  virtual absl::Status AdvanceTo(Time t) = 0;
  // The queued and running jobs, in submission order.
  virtual absl::StatusOr<std::vector<JobView>> ActiveJobs() = 0;
};

}  // namespace resched
