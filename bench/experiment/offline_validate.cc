#include "bench/experiment/offline_validate.h"

#include <algorithm>

#include "core/metrics/validate.h"

namespace resched::experiment {

absl::Status ValidateOfflinePlan(const OfflineProblem& problem, const OfflinePlan& plan) {
  if (plan.allocations.size() != problem.jobs.size()) {
    return absl::InternalError("the plan does not place every job once");
  }
  ScheduleToValidate s;
  s.capacity = problem.free.capacity();
  for (std::size_t i = 0; i < problem.jobs.size(); ++i) {
    ScheduledItem item;
    item.id = problem.jobs[i].id;
    item.allocation = plan.allocations[i];
    item.release = std::max(problem.now, problem.jobs[i].release);
    item.model = &problem.jobs[i].model;
    s.items.push_back(item);
  }
  return ValidateSchedule(s);
}

}  // namespace resched::experiment
