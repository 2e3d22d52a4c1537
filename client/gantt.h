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
  bool legend = true;  // false: the caller prints its own table of the glyphs
};

// The character of the index-th job: 0-9, a-z, A-Z, cycling.
char JobChar(size_t index);

// The character of the index-th DAG task slot of `schedule`: the jobs' sequence continues, so
// that a chart tells DAG tasks and jobs apart.
char DagTaskChar(const resched::v1::Schedule& schedule, size_t index);

// Renders `schedule` over [from, to) (unset `from`: now; unset `to`: the last end).
// Jobs and DAG task slots are drawn on their processor_ids. Those without valid ids and
// reservations (which have none) get the lowest ids free over their whole interval; what
// cannot be placed that way is drawn in an extra "other" row. A cell shows the item holding
// the most processor-time in it (ties: jobs, then reservations, then DAG tasks, each in
// schedule order), '.' when idle, '#' for reservations. The legend names each glyph (a DAG
// task by its DAG id and task name). Deterministic.
std::string RenderGantt(const resched::v1::Schedule& schedule, const GanttOptions& options);

}  // namespace resched::cli
