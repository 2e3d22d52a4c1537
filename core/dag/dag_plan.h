// A DAG's plan: one reservation per task (Aida & Casanova §3.1 schedule "one reservation per
// application task"), shared by every DAG planner (RESSCHED, RESSCHEDDL, CPA, HEFT, Barbosa).
#pragma once

#include <vector>

#include "core/metrics/validate.h"
#include "core/model/dag.h"
#include "core/model/time.h"
#include "core/timeline/timeline.h"

namespace resched {

struct TaskReservation {
  int k = 0;
  Time start = 0;
  Time end = 0;  // exclusive
  // Processor ids (0-based, ascending) when the planner assigns them (HEFT, Barbosa on
  // heterogeneous processors); empty when only the count matters.
  std::vector<int> processors;
  // On processor groups of different speeds: the group the task runs in (all its processors are
  // there, and its time is the group's); -1 on one speed.
  int group = -1;
};

struct DagPlan {
  std::vector<TaskReservation> tasks;  // indexed like Dag::tasks
  Time completion = 0;                 // the latest task end
  double cpu_hours = 0;                // sum of k * (end - start), in hours
};

// Fills completion and cpu_hours from the task reservations.
void Summarize(DagPlan& plan);

// `plan` moved `delta` later, whole (precedences and transfers keep their distances): a plan made
// on a copy of a WALL cluster whose clock moved on meanwhile.
DagPlan ShiftedBy(DagPlan plan, Duration delta);

// The validator's view of `plan` placed on `timeline` (whose reservations become holds, so
// capacity is checked against them): one item per task with its model, the release, the
// precedences with their transfer delays, and the deadline when one is promised.
ScheduleToValidate DagPlanToValidate(const Dag& dag, const DagPlan& plan, const Timeline& timeline,
                                     Time release, std::optional<Time> deadline = std::nullopt);

}  // namespace resched
