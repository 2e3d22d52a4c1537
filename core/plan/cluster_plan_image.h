// A ClusterPlan as plain values, for a snapshot (docs/durability.md): everything Copy copies,
// with the timeline's reservation ids and the policy's memory, so that a plan restored from it
// answers every later call exactly as the saved plan would.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "core/model/cluster.h"
#include "core/online/plan_state.h"
#include "core/online/policy_image.h"
#include "core/plan/cluster_plan.h"
#include "core/registry/registry.h"
#include "core/timeline/timeline.h"

namespace resched {

struct ClusterPlanImage {
  // How the plan was made: the restoring side may take these from elsewhere (the server keeps
  // the cluster's creation request and its own limits).
  ClusterSpec spec;
  AlgorithmParams params;
  ClusterLimits limits;

  Time now = 0;
  Time created = 0;
  Time last_start = kTimeMin;
  Time next_dag_expiry = kTimeMax;
  Time next_replan = kTimeMax;  // the periodic Replan's next instant (SIMULATED)
  std::int64_t next_job = 1;
  std::int64_t next_reservation = 1;
  std::int64_t next_dag = 1;
  std::vector<JobRecord> jobs;  // every retained job, in submission order
  std::vector<JobId> running;   // in the order they started
  std::vector<std::pair<std::int64_t, ExternalReservation>> reservations;  // by creation order
  std::vector<std::pair<std::int64_t, DagReservation>> dags;               // by creation order
  std::vector<Allocation> past_holds;
  TimelineImage timeline;
  PolicyImage policy;
};

}  // namespace resched
