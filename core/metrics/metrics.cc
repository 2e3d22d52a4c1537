#include "core/metrics/metrics.h"

#include <algorithm>

namespace resched {

ScheduleMetrics ComputeMetrics(const std::vector<MetricItem>& items, int capacity) {
  ScheduleMetrics m;
  if (items.empty()) return m;
  constexpr double kSeconds = kMicrosPerSecond;
  m.jobs = static_cast<int>(items.size());
  Time first_release = items.front().release;
  double busy = 0;  // processor-microseconds
  double stretch_sum = 0;
  double flow_sum = 0;
  for (const auto& it : items) {
    m.makespan = std::max(m.makespan, it.end);
    first_release = std::min(first_release, it.release);
    m.weighted_completion += it.weight * (static_cast<double>(it.end) / kSeconds);
    const double flow = static_cast<double>(it.end - it.release) / kSeconds;
    flow_sum += flow;
    m.max_flow = std::max(m.max_flow, flow);
    if (it.sequential_time > 0) {
      const double stretch = flow / (static_cast<double>(it.sequential_time) / kSeconds);
      stretch_sum += stretch;
      m.max_stretch = std::max(m.max_stretch, stretch);
    }
    busy += static_cast<double>(it.k) * static_cast<double>(it.end - it.start);
  }
  m.mean_flow = flow_sum / m.jobs;
  m.mean_stretch = stretch_sum / m.jobs;
  m.cpu_hours = busy / kSeconds / 3600.0;
  const double span = static_cast<double>(m.makespan - first_release);
  if (span > 0 && capacity > 0) m.utilization = busy / (span * capacity);
  return m;
}

}  // namespace resched
