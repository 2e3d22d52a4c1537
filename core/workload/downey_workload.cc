#include "core/workload/downey_workload.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "core/model/cluster.h"
#include "core/model/job.h"
#include "core/workload/random.h"

namespace resched {

absl::StatusOr<SwfWorkload> SwfToDowneyWorkload(const SwfLog& log,
                                                const DowneyWorkloadOptions& options) {
  if (options.processors < 1 || options.processors > kMaxClusterProcessors) {
    return absl::InvalidArgumentError(absl::StrCat(
        "processors must be in [1, ", kMaxClusterProcessors, "], got ", options.processors));
  }
  if (!(options.sigma_min >= 0 && options.sigma_min <= options.sigma_max &&
        options.sigma_max <= 1e6)) {
    return absl::InvalidArgumentError(
        absl::StrCat("sigma range must satisfy 0 <= sigma_min <= sigma_max <= 1e6, got [",
                     options.sigma_min, ", ", options.sigma_max, "]"));
  }
  SwfWorkload result;
  SwfConversionOptions select;
  select.max_jobs = options.max_jobs;
  select.processors = options.processors;  // recorded widths are clamped to P
  absl::StatusOr<std::vector<SwfJobBasis>> jobs = SelectSwfJobs(log, select, result.stats);
  if (!jobs.ok()) return jobs.status();

  result.workload.name = options.name;
  result.workload.processors = options.processors;
  result.workload.jobs.reserve(jobs->size());
  WorkloadRng rng(options.seed);
  for (const SwfJobBasis& basis : *jobs) {
    // Draw for every selected job, skipped or not, so that a job's parameters do not depend on
    // whether an earlier one was skipped.
    const double a = rng.Uniform(basis.k, options.processors);
    const double sigma = rng.Uniform(options.sigma_min, options.sigma_max);
    const double run_seconds = static_cast<double>(basis.run_time) / kMicrosPerSecond;
    const Duration t1 = CeilMicros(run_seconds * DowneySpeedup(a, sigma, basis.k));
    if (t1 > kMaxJobDuration) {
      ++result.stats.skipped_out_of_range;
      --result.stats.kept;
      continue;
    }
    WorkloadJob wj;
    wj.job.id = basis.id;
    if (basis.record->user_id >= 0) wj.job.owner = absl::StrCat("u", basis.record->user_id);
    wj.job.release = basis.release;
    wj.job.model = RuntimeModel(DowneyModel{t1, a, sigma, 1, options.processors});
    wj.runtime_fraction = 1.0;
    result.workload.jobs.push_back(std::move(wj));
  }
  if (result.workload.jobs.empty()) {
    return absl::InvalidArgumentError("no job's sequential time fits kMaxJobDuration");
  }
  return result;
}

}  // namespace resched
