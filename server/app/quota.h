// Per-tenant quotas on one cluster (ServerConfig.tenant_limits): how many jobs a tenant has
// queued or running, and how many processor-hours it holds from now on through its jobs and DAG
// task reservations. Checked under the cluster's lock against the allocations a change would
// make, before it is applied, so a refused change leaves nothing behind.
#pragma once

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
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

// The least and the most processor-hours a job of `model` may hold on `spec`'s cluster: k * t(k)
// over the widths it may take, in each group of a cluster of several speeds. Both 0 when no
// width fits.
struct ProcessorHoursRange {
  double least = 0;
  double most = 0;
};
ProcessorHoursRange HoursRangeOf(const RuntimeModel& model, const ClusterSpec& spec);

// OK when `tenant`, with `more_jobs` and `more_processor_hours` added, stays within `limit` on
// `plan`'s cluster; RESOURCE_EXHAUSTED naming the quota otherwise, with a google.rpc.RetryInfo
// on a WALL cluster when one of the tenant's jobs ends later (waiting frees some of it).
absl::Status CheckQuota(const ClusterPlan& plan, const std::string& tenant,
                        const auth::TenantLimit& limit, int more_jobs, double more_processor_hours);

// Submits `job` (its owner is the tenant) when the tenant stays within `limit` with the
// allocation the policy chooses for it, and with whatever the policy does to the tenant's other
// queued jobs (a policy that moves queued jobs may choose their widths again); otherwise
// RESOURCE_EXHAUSTED naming the quota and that allocation, with `plan` unchanged. Plan, check,
// commit or refuse: where bounds on the change settle it (far from the quota, or past it
// whatever the width), the job is submitted or refused at once; near the quota it is placed on
// a copy of the plan first, and submitted only when the copy stays within.
absl::StatusOr<const JobRecord*> SubmitWithinQuota(ClusterPlan& plan, Job job,
                                                   const auth::TenantLimit& limit);

}  // namespace resched::server
