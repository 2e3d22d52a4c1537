// GetSchedule's answer: the allocations and holds over a window, with processor ids assigned
// greedily in start order for display. The plan is count-based: allocations never exceed the
// capacity, so ids can always be assigned afterwards and are never part of the plan.
#pragma once

#include <optional>
#include <vector>

#include "core/plan/cluster_plan.h"
#include "resched/v1/service.pb.h"

namespace resched::server {

struct ScheduleWindow {
  std::optional<Time> from;  // unset: the plan's now
  std::optional<Time> to;    // unset: the end of the last allocation or hold
  bool include_finished = false;
};

::resched::v1::Schedule BuildSchedule(const ClusterPlan& plan, const ScheduleWindow& window);

// One allocation or hold to give processor ids to.
struct IdInterval {
  Time start;
  Time end;
  int k;
  int slot;  // where its ids go in the answer; -1: takes ids but reports none
};
// The ids of each slot (of `slot_count`): at every instant at most `capacity` processors are in
// use, given the intervals never exceed it (intervals of no length occupy no instant).
std::vector<std::vector<int>> AssignProcessorIds(std::vector<IdInterval> intervals, int capacity,
                                                 size_t slot_count);

}  // namespace resched::server
