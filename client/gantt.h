// The schedule as a Gantt chart in the terminal: time on the x-axis, one row per processor
// (or per band of ceil(P/64) processors when P > 64), each job drawn with its own character.
#pragma once

#include <cstddef>
#include <string>

#include "client/durations.h"
#include "resched/v1/service.pb.h"

namespace resched::cli {

struct GanttOptions {
  int width = 80;  // total columns of the chart lines, labels included (at least 20 cells)
  TimeStyle style = TimeStyle::kWall;
};

// The character of the index-th job: 0-9, a-z, A-Z, cycling.
char JobChar(size_t index);

// Renders `schedule` over [from, to) (unset `from`: now; unset `to`: the last end).
// Jobs are drawn on their processor_ids. Jobs without valid ids and reservations (which have
// none) get the lowest ids free over their whole interval; what cannot be placed that way is
// drawn in an extra "other" row. A cell shows the item holding the most processor-time in it
// (ties: the first in the schedule), '.' when idle, '#' for reservations. Deterministic.
std::string RenderGantt(const resched::v1::Schedule& schedule, const GanttOptions& options);

}  // namespace resched::cli
