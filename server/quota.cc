#include "server/quota.h"

#include <algorithm>
#include <limits>

#include "absl/strings/str_format.h"
#include "server/errors.h"

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
      const Allocation& a = task.allocation;
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

double LeastProcessorHours(const RuntimeModel& model, int capacity) {
  double least = std::numeric_limits<double>::infinity();
  for (int k : model.Widths(capacity)) {
    least = std::min(least, k * static_cast<double>(model.TimeOn(k)) / kMicrosPerHour);
  }
  return least == std::numeric_limits<double>::infinity() ? 0.0 : least;
}

absl::Status CheckQuota(const ClusterPlan& plan, const std::string& tenant,
                        const auth::TenantLimit& limit, int more_jobs,
                        double more_processor_hours) {
  if (limit.max_active_jobs <= 0 && limit.max_processor_hours_ahead <= 0) return absl::OkStatus();
  const TenantUsage usage = UsageOf(plan, tenant);
  std::string exceeded;
  if (limit.max_active_jobs > 0 && usage.active_jobs + more_jobs > limit.max_active_jobs) {
    exceeded = absl::StrFormat(
        "tenant '%s' has %d queued or running jobs on cluster '%s', the quota "
        "(tenant_limits: max_active_jobs %d)",
        tenant, usage.active_jobs, plan.spec().name, limit.max_active_jobs);
  } else if (limit.max_processor_hours_ahead > 0 &&
             usage.processor_hours_ahead + more_processor_hours > limit.max_processor_hours_ahead) {
    exceeded = absl::StrFormat(
        "tenant '%s' holds %.6g processor-hours ahead on cluster '%s'; %.6g more would pass the "
        "quota (tenant_limits: max_processor_hours_ahead %g)",
        tenant, usage.processor_hours_ahead, plan.spec().name, more_processor_hours,
        limit.max_processor_hours_ahead);
  } else {
    return absl::OkStatus();
  }
  absl::Status refused = absl::ResourceExhaustedError(exceeded);
  if (plan.spec().clock != ClockKind::kWall) return refused;
  const Time next_end = NextEndOf(plan, tenant);
  if (next_end == kTimeMax) return refused;
  return WithRetryDelay(std::move(refused), absl::Microseconds(next_end - plan.now()));
}

}  // namespace resched::server
