// An offline plan of the experiments through the schedule validator: every job once, on a width
// of its model for that width's time, from its release, within the machine's capacity.
#pragma once

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/offline/offline_planner.h"

namespace resched::experiment {

// For problems on an empty machine (the papers' setting): the free profile's bookings are not
// checked against.
absl::Status ValidateOfflinePlan(const OfflineProblem& problem, const OfflinePlan& plan);

struct TimedPlan {
  OfflinePlan plan;
  double seconds = 0;  // the planner's wall time
};

// `planner`'s plan of `problem`, timed and validated as above: the planner's error, or the
// validator's prefixed with "invalid plan: ".
absl::StatusOr<TimedPlan> PlanTimedAndValidated(const OfflinePlanner& planner,
                                                const OfflineProblem& problem);

}  // namespace resched::experiment
