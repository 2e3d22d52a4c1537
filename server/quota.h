// Per-tenant quotas on one cluster (ServerConfig.tenant_limits): how many jobs a tenant has
// queued or running, and how many processor-hours it holds from now on through its jobs and DAG
// task reservations. Checked under the cluster's lock before a change is applied, so a refused
// change leaves nothing behind.
#pragma once

#include <string>

#include "absl/status/status.h"
#include "core/model/runtime_model.h"
#include "core/plan/cluster_plan.h"
#include "server/auth/tenant_limits.h"

namespace resched::server {

struct TenantUsage {
  int active_jobs = 0;
  double processor_hours_ahead = 0;
};

// O(running jobs and the tenant's DAG tasks): the plan keeps its jobs' sums as they change.
TenantUsage UsageOf(const ClusterPlan& plan, const std::string& tenant);

// The least processor-hours a job of `model` holds on a cluster of `capacity` processors: its
// smallest k * t(k) over the widths it may take.
double LeastProcessorHours(const RuntimeModel& model, int capacity);

// OK when `tenant`, with `more_jobs` and `more_processor_hours` added, stays within `limit` on
// `plan`'s cluster; RESOURCE_EXHAUSTED naming the quota otherwise, with a google.rpc.RetryInfo
// on a WALL cluster when one of the tenant's jobs ends later (waiting frees some of it).
absl::Status CheckQuota(const ClusterPlan& plan, const std::string& tenant,
                        const auth::TenantLimit& limit, int more_jobs, double more_processor_hours);

}  // namespace resched::server
