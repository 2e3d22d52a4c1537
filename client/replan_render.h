// Human output of a Replan: the figures before and after beside the objective's lower bounds,
// the jobs that move (where from, where to), and the planned allocations put into a schedule
// so that the Gantt chart shows the plan even when it was not applied.
#pragma once

#include <string>

#include "client/durations.h"
#include "resched/v1/service.pb.h"

namespace resched::cli {

// The outcome, the figures table (before, after, lower bound) and the planner's time.
std::string RenderReplanFigures(const resched::v1::ReplanResponse& response, TimeStyle style);
// One row per moved job: width, start and end, before -> after.
std::string RenderJobMoves(const resched::v1::ReplanResponse& response, TimeStyle style);
// Replaces the allocations of the moved jobs in `schedule` by the plan's (their processor ids
// cleared: the chart assigns them).
void PutPlannedAllocations(const resched::v1::ReplanResponse& response,
                           resched::v1::Schedule& schedule);

}  // namespace resched::cli
