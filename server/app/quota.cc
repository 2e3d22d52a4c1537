#include "server/app/quota.h"

#include <algorithm>
#include <limits>

#include "absl/strings/str_format.h"
#include "server/base/status_details.h"

namespace resched::server {
namespace {

constexpr double kMicrosPerHour = 3600e6;

// Processor-hours of k processors over [start, end) from `now` on.
double HoursAhead(int k, Time start, Time end, Time now) {
  const Time from = std::max(start, now);
  return end > from ? k * static_cast<double>(end - from) / kMicrosPerHour : 0.0;
}

}  // namespace

TenantUsage UsageOf(const ClusterPlan& plan, const std::string& tenant) {
  const Time now = plan.now();
  const ClusterPlan::OwnerUsage jobs = plan.UsageOf(tenant);
  TenantUsage usage{jobs.active_jobs,
                    static_cast<double>(jobs.processor_micros_ahead) / kMicrosPerHour};
  for (const DagReservation* dag : plan.Dags()) {
    if (dag->owner != tenant || dag->completion <= now) continue;
    for (const DagTaskBooking& task : dag->tasks) {
      const Allocation a = task.Held();  // not what an early end or a release gave back
      usage.processor_hours_ahead += HoursAhead(a.k, a.start, a.end, now);
    }
  }
  return usage;
}

namespace {

// The earliest end among the tenant's queued and running jobs (when some job of its frees
// capacity); kTimeMax when it has none. A scan of the retained jobs: only a refusal pays it.
Time NextEndOf(const ClusterPlan& plan, const std::string& tenant) {
  Time next_end = kTimeMax;
  for (const JobRecord* job : plan.Jobs()) {
    if (job->job.owner != tenant) continue;
    if (job->state != JobState::kQueued && job->state != JobState::kRunning) continue;
    if (job->allocation.end > plan.now()) next_end = std::min(next_end, job->allocation.end);
  }
  return next_end;
}

}  // namespace

ProcessorHoursRange HoursRangeOf(const RuntimeModel& model, const ClusterSpec& spec) {
  ProcessorHoursRange range{std::numeric_limits<double>::infinity(), 0.0};
  auto widen = [&range](const RuntimeModel& on_speed, int processors) {
    for (int k : on_speed.Widths(processors)) {
      const double hours = k * static_cast<double>(on_speed.TimeOn(k)) / kMicrosPerHour;
      range.least = std::min(range.least, hours);
      range.most = std::max(range.most, hours);
    }
  };
  // On one speed a job keeps the model it was given; on several it runs at its group's speed.
  if (spec.homogeneous()) {
    widen(model, spec.capacity());
  } else {
    for (const ProcessorGroup& group : spec.groups) widen(model.OnSpeed(group.speed), group.count);
  }
  return range.most > 0 ? range : ProcessorHoursRange{};
}

namespace {

// RESOURCE_EXHAUSTED saying `exceeded`; on a WALL cluster with a google.rpc.RetryInfo when one
// of the tenant's jobs ends later.
absl::Status QuotaRefusal(const ClusterPlan& plan, const std::string& tenant,
                          const std::string& exceeded) {
  absl::Status refused = absl::ResourceExhaustedError(exceeded);
  if (plan.spec().clock != ClockKind::kWall) return refused;
  const Time next_end = NextEndOf(plan, tenant);
  if (next_end == kTimeMax) return refused;
  return WithRetryDelay(std::move(refused), absl::Microseconds(next_end - plan.now()));
}

std::string QuotaName(const auth::TenantLimit& limit) {
  return absl::StrFormat("(tenant_limits: max_processor_hours_ahead %g)",
                         limit.max_processor_hours_ahead);
}

// How far submitting `job` can move its owner's processor-hours ahead. The new job holds k * t(k)
// for the width it gets. A policy that places the new job alone moves nothing else; any other
// may move the owner's queued jobs and choose their widths again (a replanned job keeps its
// width), so each may end anywhere in its own range.
ProcessorHoursRange SubmissionChangeBounds(const ClusterPlan& plan, const Job& job) {
  ProcessorHoursRange change = HoursRangeOf(job.model, plan.spec());
  if (plan.policy().PlacesNewJobAlone()) return change;
  for (const JobRecord* queued : plan.QueuedJobs()) {
    if (queued->job.owner != job.owner || queued->replanned) continue;
    const Allocation& a = queued->allocation;
    const double holds = HoursAhead(a.k, a.start, a.end, plan.now());
    const ProcessorHoursRange range = HoursRangeOf(queued->job.model, plan.spec());
    change.least -= std::max(0.0, holds - range.least);
    change.most += std::max(0.0, range.most - holds);
  }
  return change;
}

// The active-jobs quota, for a tenant of `usage` with `more_jobs` added.
absl::Status CheckActiveJobs(const ClusterPlan& plan, const std::string& tenant,
                             const auth::TenantLimit& limit, const TenantUsage& usage,
                             int more_jobs) {
  if (limit.max_active_jobs <= 0 || usage.active_jobs + more_jobs <= limit.max_active_jobs) {
    return absl::OkStatus();
  }
  return QuotaRefusal(
      plan, tenant,
      absl::StrFormat("tenant '%s' has %d queued or running jobs on cluster "
                      "'%s', the quota (tenant_limits: max_active_jobs %d)",
                      tenant, usage.active_jobs, plan.spec().name, limit.max_active_jobs));
}

}  // namespace

absl::Status CheckQuota(const ClusterPlan& plan, const std::string& tenant,
                        const auth::TenantLimit& limit, int more_jobs,
                        double more_processor_hours) {
  if (limit.max_active_jobs <= 0 && limit.max_processor_hours_ahead <= 0) return absl::OkStatus();
  const TenantUsage usage = UsageOf(plan, tenant);
  if (absl::Status jobs = CheckActiveJobs(plan, tenant, limit, usage, more_jobs); !jobs.ok()) {
    return jobs;
  }
  if (limit.max_processor_hours_ahead > 0 &&
      usage.processor_hours_ahead + more_processor_hours > limit.max_processor_hours_ahead) {
    return QuotaRefusal(
        plan, tenant,
        absl::StrFormat("tenant '%s' holds %.6g processor-hours ahead on cluster '%s'; %.6g more "
                        "would pass the quota %s",
                        tenant, usage.processor_hours_ahead, plan.spec().name, more_processor_hours,
                        QuotaName(limit)));
  }
  return absl::OkStatus();
}

absl::StatusOr<const JobRecord*> SubmitWithinQuota(ClusterPlan& plan, Job job,
                                                   const auth::TenantLimit& limit) {
  const std::string tenant = job.owner;
  if (limit.max_active_jobs <= 0 && limit.max_processor_hours_ahead <= 0) {
    return plan.Submit(std::move(job));
  }
  const TenantUsage usage = UsageOf(plan, tenant);
  if (absl::Status jobs = CheckActiveJobs(plan, tenant, limit, usage, 1); !jobs.ok()) return jobs;
  const double quota = limit.max_processor_hours_ahead;
  if (quota <= 0) return plan.Submit(std::move(job));
  const double holds = usage.processor_hours_ahead;
  const ProcessorHoursRange change = SubmissionChangeBounds(plan, job);
  if (holds + change.most <= quota) return plan.Submit(std::move(job));
  if (holds + change.least > quota) {
    return QuotaRefusal(
        plan, tenant,
        absl::StrFormat("tenant '%s' holds %.6g processor-hours ahead on cluster '%s'; this job "
                        "would add at least %.6g more on any width it may take, passing the "
                        "quota %s",
                        tenant, holds, plan.spec().name, change.least, QuotaName(limit)));
  }
  // Near the quota: where the policy puts the job decides. The copy places as the plan would.
  std::unique_ptr<ClusterPlan> trial = plan.Copy();
  absl::StatusOr<const JobRecord*> tried = trial->Submit(job);
  if (!tried.ok()) return tried.status();
  const double after = UsageOf(*trial, tenant).processor_hours_ahead;
  if (after > quota) {
    const Allocation& chosen = (*tried)->allocation;
    return QuotaRefusal(
        plan, tenant,
        absl::StrFormat("tenant '%s' holds %.6g processor-hours ahead on cluster '%s'; with this "
                        "job on the %d processors for %.6g hours the policy chose, it would hold "
                        "%.6g, passing the quota %s",
                        tenant, holds, plan.spec().name, chosen.k,
                        static_cast<double>(chosen.end - chosen.start) / kMicrosPerHour, after,
                        QuotaName(limit)));
  }
  return plan.Submit(std::move(job));
}

}  // namespace resched::server
