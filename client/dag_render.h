// Human output of DAG plans and DAG reservations: the placements table, the plan's Gantt
// chart, the list of a cluster's DAG reservations and the DAG task slots of a schedule.
#pragma once

#include <string>
#include <vector>

#include "client/durations.h"
#include "client/gantt.h"
#include "resched/v1/service.pb.h"

namespace resched::cli {

using Placements = google::protobuf::RepeatedPtrField<resched::v1::TaskPlacement>;

// A schedule holding only the plan's tasks (as dag_tasks of `dag_id`) over [first start, last
// end), so that RenderGantt draws the plan alone. `capacity` <= 0: RenderGantt infers it.
resched::v1::Schedule PlanSchedule(const std::string& cluster, int32_t capacity,
                                   const std::string& dag_id, const Placements& placements);

// Glyph (as in the chart of PlanSchedule), TASK, GROUP (when a task has one: a cluster of
// several speeds, as "#<index>"), K, START, END, DURATION.
std::string RenderPlacementTable(const Placements& placements, TimeStyle style);

// The placements table, then the Gantt chart of PlanSchedule (no legend: the table is one).
std::string RenderDagPlan(const std::string& cluster, int32_t capacity, const std::string& dag_id,
                          const Placements& placements, const GanttOptions& options);

// ID, LABEL, ALGORITHM, TASKS, RELEASE, COMPLETION, CPU-HOURS.
std::string RenderDagList(const std::vector<const resched::v1::DagReservation*>& dags,
                          TimeStyle style);

// The key/value block of one DAG reservation (id, cluster, label, algorithm, release,
// completion, cpu hours, counts of tasks and edges).
std::string RenderDagDetails(const resched::v1::DagReservation& dag, TimeStyle style);
// The tasks whose engine reported something (ReportDagTaskEvent): state, start and end; empty
// when none did.
std::string RenderDagTaskStates(const resched::v1::DagReservation& dag, TimeStyle style);

// DAG, TASK, GROUP (when a slot has one, by its name in `group_names` as RenderJobTable), K,
// START, END, PROCESSORS: the DAG task slots of a schedule.
std::string RenderDagTaskTable(const std::vector<const resched::v1::DagTaskSlot*>& slots,
                               TimeStyle style, const std::vector<std::string>& group_names = {});

}  // namespace resched::cli
