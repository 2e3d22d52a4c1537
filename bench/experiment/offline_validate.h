// An offline plan of the experiments through the schedule validator: every job once, on a width
// of its model for that width's time, from its release, within the machine's capacity.
#pragma once

#include "absl/status/status.h"
#include "core/offline/offline_planner.h"

namespace resched::experiment {

// For problems on an empty machine (the papers' setting): the free profile's bookings are not
// checked against.
absl::Status ValidateOfflinePlan(const OfflineProblem& problem, const OfflinePlan& plan);

}  // namespace resched::experiment
