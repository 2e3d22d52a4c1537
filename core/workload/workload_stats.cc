#include "core/workload/workload_stats.h"

#include <algorithm>

namespace resched {

WorkloadSummary SummarizeWorkload(const Workload& workload) {
  WorkloadSummary s;
  if (workload.jobs.empty()) return s;
  s.jobs = static_cast<std::int64_t>(workload.jobs.size());
  s.min_sequential_time = kTimeMax;
  s.first_release = kTimeMax;
  s.last_release = kTimeMin;
  for (const WorkloadJob& wj : workload.jobs) {
    const Duration p = wj.job.model.SequentialTime();
    s.min_sequential_time = std::min(s.min_sequential_time, p);
    s.max_sequential_time = std::max(s.max_sequential_time, p);
    s.total_sequential_seconds += static_cast<double>(p) / kMicrosPerSecond;
    s.first_release = std::min(s.first_release, wj.job.release);
    s.last_release = std::max(s.last_release, wj.job.release);
  }
  if (s.min_sequential_time > 0) {
    s.delta = static_cast<double>(s.max_sequential_time) / s.min_sequential_time;
  }
  const Duration span = s.last_release - s.first_release;
  if (span > 0) s.load = s.total_sequential_seconds * kMicrosPerSecond / span;
  return s;
}

}  // namespace resched
