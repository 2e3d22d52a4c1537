// Offline planners (Replan): plan a set of queued jobs at once, for a schedule-wide objective,
// around what the cluster already holds. The papers (dutot §3, chretien §4) plan an empty
// machine from time 0; ours plan on the cluster's free profile from its now: running jobs,
// external reservations and DAG reservations are bookings on `free` that the plan goes around.
// An empty timeline is the paper's setting.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/model/job.h"
#include "core/model/plan_control.h"
#include "core/model/runtime_model.h"
#include "core/timeline/timeline.h"

namespace resched {

// One queued job as a planner sees it. The papers' jobs are all available at time 0; a queued
// job may have a release after the cluster's now, and the list phase never starts it before.
// The lower bounds ignore releases (a relaxation, so they stay bounds).
struct OfflineJob {
  JobId id;
  RuntimeModel model;
  double weight = 1;
  Time release = 0;  // earliest start; at or before the problem's now: available at once
};

struct OfflineProblem {
  std::vector<OfflineJob> jobs;
  Timeline free{1};  // the fixed bookings; its capacity is the machine's
  Time now = 0;
};

// A planner's answer: one allocation per job, in the problem's order, booked on a copy of the
// free profile (so the plan fits around everything fixed); and the lower bound it proves on the
// optimal makespan, when it computes one; and figures a paper reports about its algorithm's run
// (e.g. chretien §5.3's share of jobs the LP places exactly), by name, for the experiments.
struct OfflinePlan {
  std::vector<Allocation> allocations;
  // Every schedule of the jobs on the machine ends at or after now + this (microseconds).
  std::optional<Duration> makespan_lower_bound;
  std::map<std::string, double> statistics;
};

class OfflinePlanner {
 public:
  virtual ~OfflinePlanner() = default;
  // INVALID_ARGUMENT when a job fits on no width of the machine; CANCELLED when `control` says
  // stop.
  virtual absl::StatusOr<OfflinePlan> Plan(const OfflineProblem& problem,
                                           const PlanControl& control) const = 0;
};

}  // namespace resched
