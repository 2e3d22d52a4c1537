// GetSchedule's answer: the allocations and holds over a window, on the processor ids the
// cluster's ProcessorRows keeps for display (server/app/processor_rows.h), and what those rows
// must hold for a plan.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/plan/cluster_plan.h"
#include "resched/v1/service.pb.h"
#include "server/app/processor_rows.h"

namespace resched::server {

struct ScheduleWindow {
  std::optional<Time> from;  // unset: the plan's now
  std::optional<Time> to;    // unset: the end of the last allocation or hold
  bool include_finished = false;
};

// `rows` holds every item of `plan` (SyncRows).
::resched::v1::Schedule BuildSchedule(const ClusterPlan& plan, const ScheduleWindow& window,
                                      const ProcessorRows& rows);

// The keys of the items drawn in ProcessorRows.
std::string JobRowKey(const std::string& job_id);
std::string HoldRowKey(const std::string& reservation_id);
std::string DagTaskRowKey(const std::string& dag_id, const std::string& task);
// What a key names; nullopt for one none of the above made.
struct RowItem {
  enum Kind { kJob, kHold, kDagTask } kind;
  std::string id;  // the job's, the hold's or the DAG's
  std::string task;
};
std::optional<RowItem> RowItemOf(const std::string& key);

// What a job, a hold or a DAG task occupies on the chart; nullopt when it is not drawn.
std::optional<ProcessorRows::Span> RowSpanOf(const JobRecord& job);
std::optional<ProcessorRows::Span> RowSpanOf(const ExternalReservation& hold);
std::optional<ProcessorRows::Span> RowSpanOf(const DagTaskBooking& task);

// The group sizes whose ids `plan`'s rows use: one group (the whole cluster) when all speeds are
// equal.
std::vector<int> RowGroupCounts(const ClusterPlan& plan);
// Brings `rows` in step with every item of `plan`, dropping those no longer in it. Returns the
// keys whose ids changed besides those of items that changed.
std::vector<std::string> SyncRows(const ClusterPlan& plan, ProcessorRows& rows);

}  // namespace resched::server
