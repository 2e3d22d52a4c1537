#include "core/dag/dag_plan.h"

#include <algorithm>

namespace resched {

void Summarize(DagPlan& plan) {
  plan.completion = kTimeMin;
  plan.cpu_hours = 0;
  for (const TaskReservation& t : plan.tasks) {
    plan.completion = std::max(plan.completion, t.end);
    plan.cpu_hours += static_cast<double>(t.k) * static_cast<double>(t.end - t.start) / 3600e6;
  }
  if (plan.tasks.empty()) plan.completion = 0;
}

DagPlan ShiftedBy(DagPlan plan, Duration delta) {
  for (TaskReservation& t : plan.tasks) {
    t.start += delta;
    t.end += delta;
  }
  plan.completion += delta;
  return plan;
}

ScheduleToValidate DagPlanToValidate(const Dag& dag, const DagPlan& plan, const Timeline& timeline,
                                     Time release, std::optional<Time> deadline) {
  ScheduleToValidate s;
  s.capacity = timeline.capacity();
  Time from = kTimeMax;
  Time to = kTimeMin;
  for (std::size_t i = 0; i < plan.tasks.size() && i < dag.tasks.size(); ++i) {
    const TaskReservation& t = plan.tasks[i];
    ScheduledItem item;
    item.id = dag.tasks[i].name;
    item.allocation = Allocation{t.k, t.start, t.end};
    item.release = release;
    item.model = &dag.tasks[i].model;
    item.promised_deadline = deadline;
    s.items.push_back(std::move(item));
    from = std::min(from, t.start);
    to = std::max(to, t.end);
  }
  // The timeline's bookings as holds: only the window the plan occupies matters.
  if (from < to) {
    timeline.ForEachStep(from, to, [&](const TimelineStep& step) {
      if (step.free < s.capacity) s.holds.push_back({s.capacity - step.free, step.start, step.end});
    });
  }
  for (const Edge& e : dag.edges) s.precedences.push_back({e.from, e.to, e.transfer});
  return s;
}

}  // namespace resched
