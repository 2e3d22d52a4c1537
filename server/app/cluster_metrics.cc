#include "server/app/cluster_metrics.h"

#include <string>

namespace resched::server {
namespace {

prometheus::MetricFamily Gauge(const char* name, const char* help) {
  prometheus::MetricFamily family;
  family.name = name;
  family.help = help;
  family.type = prometheus::MetricType::Gauge;
  return family;
}

void Add(prometheus::MetricFamily& family, const std::string& cluster, double value) {
  prometheus::ClientMetric metric;
  metric.label.push_back({"cluster", cluster});
  metric.gauge.value = value;
  family.metric.push_back(std::move(metric));
}

}  // namespace

std::vector<prometheus::MetricFamily> ClusterCollector::Collect() const {
  prometheus::MetricFamily queued =
      Gauge("resched_cluster_queued_jobs", "Jobs planned and not started, per cluster");
  prometheus::MetricFamily running =
      Gauge("resched_cluster_running_jobs", "Jobs started and not ended, per cluster");
  prometheus::MetricFamily holds =
      Gauge("resched_cluster_reservations", "External reservations (AddReservation) held");
  prometheus::MetricFamily dags =
      Gauge("resched_cluster_dag_reservations", "DAG reservations (ReserveDAG) retained");
  prometheus::MetricFamily utilization = Gauge(
      "resched_cluster_utilization",
      "Share of the processor time from the first retained job's start to now that jobs used");
  prometheus::MetricFamily processors =
      Gauge("resched_cluster_processors", "Processors of the cluster");
  for (const std::shared_ptr<ClusterState>& state : clusters_()) {
    state->Peek([&](const ClusterPlan& plan) {
      const std::string& name = state->name();
      Add(queued, name, plan.queued_count());
      Add(running, name, plan.running_count());
      Add(holds, name, static_cast<double>(plan.Reservations().size()));
      Add(dags, name, static_cast<double>(plan.Dags().size()));
      Add(utilization, name, plan.PastUtilization());
      Add(processors, name, plan.capacity());
    });
  }
  return {queued, running, holds, dags, utilization, processors};
}

}  // namespace resched::server
