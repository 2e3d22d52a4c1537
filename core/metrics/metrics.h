// Metrics of a schedule: makespan, weighted completion, flow, stretch (Saule et al. §2.1:
// flow over the sequential time p(1), so moldable jobs may have stretch < 1), CPU-hours and
// utilization.
#pragma once

#include <vector>

#include "core/model/time.h"

namespace resched {

struct MetricItem {
  Time release = 0;
  Time start = 0;
  Time end = 0;
  int k = 0;
  double weight = 1;
  Duration sequential_time = 0;  // p(1)
};

struct ScheduleMetrics {
  int jobs = 0;
  Time makespan = 0;               // latest end
  double weighted_completion = 0;  // sum of w * C, C in seconds
  double mean_flow = 0;            // seconds
  double max_flow = 0;
  double mean_stretch = 0;
  double max_stretch = 0;
  double cpu_hours = 0;
  double utilization = 0;  // busy processor-time / (P * (makespan - first release))
};

ScheduleMetrics ComputeMetrics(const std::vector<MetricItem>& items, int capacity);

}  // namespace resched
