#include "core/sim/simulator.h"

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/metrics/validate.h"
#include "core/sim/plan_driver.h"

namespace resched {
namespace {

// The whole replayed schedule, from the records: the plan itself keeps only its retained jobs.
absl::Status ValidateRecords(const Workload& workload, const std::vector<SimJobRecord>& records,
                             const ClusterSpec& spec) {
  ScheduleToValidate s;
  s.capacity = spec.capacity();
  if (!spec.homogeneous()) s.groups = spec.groups;
  s.items.reserve(records.size());
  for (const SimJobRecord& r : records) {
    ScheduledItem item;
    item.id = r.id;
    item.allocation = {r.k, r.start, r.end};
    item.release = r.release;
    item.model = &workload.jobs[r.index].job.model;
    item.ended_early = r.ended_early;
    item.group = r.group;
    s.items.push_back(std::move(item));
  }
  return ValidateSchedule(s);
}

// The plan's own view of the jobs it retained must match the records.
absl::Status CrossCheck(const ClusterPlan& plan, const std::vector<SimJobRecord>& records) {
  absl::flat_hash_map<JobId, const SimJobRecord*> by_id;
  for (const SimJobRecord& r : records) by_id[r.id] = &r;
  for (const JobRecord* job : plan.Jobs()) {
    auto it = by_id.find(job->job.id);
    const Allocation& a = job->allocation;
    if (it == by_id.end() || it->second->k != a.k || it->second->start != a.start ||
        it->second->end != a.end) {
      return absl::InternalError(
          absl::StrFormat("job '%s' ran k=%d over [%d, %d) in the plan, not as "
                          "the replay recorded it",
                          job->job.id, a.k, a.start, a.end));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<SimResult> Simulate(const Workload& workload, const ClusterSpec& spec,
                                   const AlgorithmParams& params, SimOptions options) {
  if (spec.clock != ClockKind::kSimulated) {
    return absl::InvalidArgumentError(
        "cluster.clock must be SIMULATED: a simulation moves the clock itself");
  }
  auto plan = ClusterPlan::Create(spec, params, /*now=*/0, options.limits);
  if (!plan.ok()) return plan.status();
  PlanDriver driver(**plan);
  ReplayOptions replay;
  replay.max_jobs = options.max_jobs;
  replay.progress = std::move(options.progress);
  replay.progress_every = options.progress_every;
  auto records = Replay(workload, driver, replay);
  if (!records.ok()) return records.status();

  if (auto s = ValidateSchedule((*plan)->ToValidate()); !s.ok()) return s;
  if (auto s = ValidateRecords(workload, *records, spec); !s.ok()) return s;
  if (auto s = CrossCheck(**plan, *records); !s.ok()) return s;

  SimResult result;
  result.policy_seconds = driver.plan_seconds();
  std::vector<MetricItem> items;
  items.reserve(records->size());
  for (const SimJobRecord& r : *records) {
    items.push_back(MetricItem{r.release, r.start, r.end, r.k, workload.jobs[r.index].job.weight,
                               r.sequential_time});
  }
  result.metrics = ComputeMetrics(items, (*plan)->capacity());
  result.fairness = ComputeFairness(items);
  result.jobs = *std::move(records);
  return result;
}

}  // namespace resched
