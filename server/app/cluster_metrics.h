// The per-cluster gauges of the metrics endpoint, read from the clusters at each scrape:
// queued and running jobs, external holds, DAG reservations, and the processor-time share used
// since the first job started. Read as of each cluster's last change (a WALL clock is not moved
// by a scrape, and a scrape writes nothing).
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include "prometheus/collectable.h"
#include "prometheus/metric_family.h"
#include "server/app/cluster_state.h"

namespace resched::server {

class ClusterCollector : public prometheus::Collectable {
 public:
  using Clusters = std::function<std::vector<std::shared_ptr<ClusterState>>()>;
  explicit ClusterCollector(Clusters clusters) : clusters_(std::move(clusters)) {}
  std::vector<prometheus::MetricFamily> Collect() const override;

 private:
  Clusters clusters_;
};

}  // namespace resched::server
