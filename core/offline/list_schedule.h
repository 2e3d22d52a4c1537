// The list phase shared by the offline planners: jobs in a given order, each with a given width,
// booked at the earliest start the free profile allows (the timeline's search), so a later job
// may fill a hole before an earlier one (dutot §3.2's "list algorithm with the batch ordering").
#pragma once

#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "core/offline/offline_planner.h"

namespace resched {

struct ListEntry {
  int job = 0;          // index in the problem
  int width = 0;        // processors, one of the job's widths; 0: the width with the earliest
                        // completion when the job's turn comes (ties: fewer processors)
  Time not_before = 0;  // earliest start allowed (shelf starts)
};

// Books every entry in order on a copy of the problem's free profile, never before the job's
// release; the allocations come back
// in the problem's job order (jobs missing from `order` keep k = 0). INVALID_ARGUMENT when a
// width exceeds the machine.
absl::StatusOr<std::vector<Allocation>> ListSchedule(const OfflineProblem& problem,
                                                     const std::vector<ListEntry>& order);

// The plan of that list, with the planner's makespan lower bound if it has one.
absl::StatusOr<OfflinePlan> ListPlan(const OfflineProblem& problem,
                                     const std::vector<ListEntry>& order,
                                     std::optional<Duration> makespan_lower_bound = {});

}  // namespace resched
