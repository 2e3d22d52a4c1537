#include "server/app/watch_budget.h"

#include "prometheus/client_metric.h"

namespace resched::server {

std::vector<prometheus::MetricFamily> WatchBudget::Collect() const {
  prometheus::MetricFamily family;
  family.name = "resched_watch_pending_bytes";
  family.help =
      "Bytes that WatchSchedule streams hold in events not yet written (max_watch_memory_mib)";
  family.type = prometheus::MetricType::Gauge;
  prometheus::ClientMetric metric;
  metric.gauge.value = static_cast<double>(held());
  family.metric.push_back(metric);
  return {family};
}

}  // namespace resched::server
