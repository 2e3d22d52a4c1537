// What one change did to a ClusterPlan, read from the plan after it (ClusterPlan::TakeChange):
// enough to bring a plan that was in the same state before to the same state after, reservation
// ids included, without running its policy or any planner (ClusterPlan::ApplyChange). The
// server's journal records one per change (docs/durability.md), so that a replay, or a replica
// following the journal, comes to the acknowledged state whatever its policies would decide.
#pragma once

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "core/model/job.h"
#include "core/online/plan_state.h"
#include "core/online/policy_image.h"
#include "core/plan/cluster_plan.h"
#include "core/timeline/timeline.h"

namespace resched {

struct PlanChange {
  // The plan's counters and instants after the change.
  Time now = 0;
  Time last_start = kTimeMin;
  Time next_dag_expiry = kTimeMax;
  Time next_replan = kTimeMax;
  std::int64_t next_job = 1;
  std::int64_t next_reservation = 1;
  std::int64_t next_dag = 1;
  // Every add and release on the timeline, in order: applied in order, they give the same ids.
  std::vector<TimelineChange> timeline;
  // Every job submitted or changed, as it is after the change, in submission order.
  std::vector<JobRecord> jobs;
  // Ended jobs dropped past the retention limit.
  std::vector<JobId> forgotten_jobs;
  // Jobs that started, in the order they did (the running list's order).
  std::vector<JobId> started;
  // The replanned queue's order after the change, when it changed.
  std::optional<std::vector<JobId>> replanned_order;
  // External reservations by creation sequence.
  std::vector<std::pair<std::int64_t, ExternalReservation>> added_reservations;
  std::vector<std::int64_t> removed_reservations;
  // Holds that expired, kept for the historical q, and how many are kept after the change.
  std::vector<Allocation> added_past_holds;
  std::int64_t past_holds = 0;
  // DAG reservations booked or changed (tasks that ended free their bookings), by sequence.
  std::vector<std::pair<std::int64_t, DagReservation>> dags;
  std::vector<std::int64_t> removed_dags;
  // What the policy remembers, for a policy that remembers anything (a partition's parts).
  std::optional<PolicyImage> policy;
};

}  // namespace resched
