// Figures that characterize a workload, as defined in Saule et al. §2.1 and §4: Delta, the ratio of
// the largest to the smallest sequential time, and the load, sum of sequential times over the span
// of releases (sum_i p_i / (max_i r_i - min_i r_i)): a load of l keeps l processors busy over the
// simulated period.
#pragma once

#include <cstdint>

#include "core/model/time.h"
#include "core/workload/workload.h"

namespace resched {

struct WorkloadSummary {
  std::int64_t jobs = 0;
  Duration min_sequential_time = 0;  // p_{i,1} (RuntimeModel::SequentialTime)
  Duration max_sequential_time = 0;
  double total_sequential_seconds = 0;
  Time first_release = 0;
  Time last_release = 0;
  double delta = 0;  // max / min sequential time; 0 without jobs
  double load = 0;   // 0 when all releases are equal
};

WorkloadSummary SummarizeWorkload(const Workload& workload);

}  // namespace resched
