// GetSchedule's answer: the allocations and holds over a window, with processor ids assigned
// greedily in start order for display. The plan is count-based: allocations never exceed the
// capacity (nor a group's, on groups of different speeds), so ids can be assigned afterwards
// and are never part of the plan.
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
  int slot;        // where its ids go in the answer; -1: takes ids but reports none
  int group = -1;  // the processor group whose ids it takes; -1: any
};
// The ids of each slot (of `slot_count`). Group i owns the ids from the sum of the counts before
// it (one group: the whole cluster). The intervals must never exceed a group's count nor the
// total at any instant (intervals of no length occupy no instant); those of a group then always
// get ids. One of any group on several groups takes ids in the groups that have room for it
// over its whole window (by count, the lowest index first), so it never takes ids a group's
// own intervals need; where its processors are free only in different groups at different
// instants of its window, it reports fewer (the ids are for display only).
std::vector<std::vector<int>> AssignProcessorIds(std::vector<IdInterval> intervals,
                                                 const std::vector<int>& group_counts,
                                                 size_t slot_count);

}  // namespace resched::server
