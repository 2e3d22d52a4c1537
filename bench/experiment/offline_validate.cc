#include "bench/experiment/offline_validate.h"

#include <algorithm>
#include <chrono>

#include "absl/strings/str_cat.h"
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

absl::StatusOr<TimedPlan> PlanTimedAndValidated(const OfflinePlanner& planner,
                                                const OfflineProblem& problem) {
  const auto started = std::chrono::steady_clock::now();
  absl::StatusOr<OfflinePlan> plan = planner.Plan(problem, {});
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  if (!plan.ok()) return plan.status();
  if (absl::Status valid = ValidateOfflinePlan(problem, *plan); !valid.ok()) {
    return absl::Status(valid.code(), absl::StrCat("invalid plan: ", valid.message()));
  }
  return TimedPlan{*std::move(plan), seconds};
}

}  // namespace resched::experiment
