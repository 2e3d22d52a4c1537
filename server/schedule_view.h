// GetSchedule's answer: the allocations and holds over a window, with processor ids assigned
// greedily in start order for display. The plan is count-based: allocations never exceed the
// capacity, so ids can always be assigned afterwards and are never part of the plan.
#pragma once

#include <optional>

#include "core/plan/cluster_plan.h"
#include "resched/v1/service.pb.h"

namespace resched::server {

struct ScheduleWindow {
  std::optional<Time> from;  // unset: the plan's now
  std::optional<Time> to;    // unset: the end of the last allocation or hold
  bool include_finished = false;
};

::resched::v1::Schedule BuildSchedule(const ClusterPlan& plan, const ScheduleWindow& window);

}  // namespace resched::server
