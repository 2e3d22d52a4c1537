// The server's Prometheus metrics (prometheus-cpp; docs/observability.md): calls and their
// latency by method and status code, calls shed, planning time by algorithm, durable commits,
// snapshots, watch streams and trace spans. Per-cluster gauges (queued and running jobs,
// utilization, holds) are read from the clusters at each scrape (ClusterCollector in
// cluster_metrics.h), so a deleted cluster's series go with it. Everything here is thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "prometheus/counter.h"
#include "prometheus/family.h"
#include "prometheus/gauge.h"
#include "prometheus/histogram.h"
#include "prometheus/registry.h"
#include "server/base/mutex.h"

namespace resched::server {

class ServerMetrics {
 public:
  ServerMetrics();
  ServerMetrics(const ServerMetrics&) = delete;
  ServerMetrics& operator=(const ServerMetrics&) = delete;

  const std::shared_ptr<prometheus::Registry>& registry() const { return registry_; }

  // A finished unary call: from its arrival to its answer.
  void ObserveCall(const std::string& method, absl::StatusCode code, double seconds);
  // A call refused because too many were waiting (load shedding); also counted by ObserveCall.
  void CountShed(const std::string& method);
  // A call sent on to the replica that serves its cluster; also counted by ObserveCall.
  void CountForwarded(const std::string& method);
  // Time an algorithm took: a cluster's online policy applying one change, or a DAG planner.
  void ObservePlanning(const std::string& algorithm, double seconds);
  // One journal transaction (group commit) of `records` records, fsync included.
  void ObserveCommit(double seconds, std::size_t records);
  void CountSnapshot(bool written);
  // Trace spans sent to the collector, or dropped (the export queue was full, or the export
  // failed).
  void CountSpansExported(std::int64_t spans);
  void CountSpansDropped(std::int64_t spans);
  void WatchStarted();
  void WatchEnded();
  // Whether the journal commits (1) or refuses writes until a probe succeeds (0).
  void SetJournalWritable(bool writable);
  // A journal transaction that failed (its records and those queued after it fail with it).
  void CountFailedCommit();

 private:
  struct CallSeries {
    prometheus::Counter* calls;
    prometheus::Histogram* seconds;
  };
  // A family's Add builds a new metric (a histogram's buckets included) before it finds the
  // existing one, so each series is looked up once and kept: a call then costs a hash lookup.
  CallSeries CallSeriesOf(const std::string& method, absl::StatusCode code);
  prometheus::Histogram& PlanningSeriesOf(const std::string& algorithm);

  std::shared_ptr<prometheus::Registry> registry_;
  prometheus::Family<prometheus::Counter>& calls_;
  prometheus::Family<prometheus::Histogram>& call_seconds_;
  prometheus::Family<prometheus::Counter>& shed_;
  prometheus::Family<prometheus::Counter>& forwarded_;
  prometheus::Family<prometheus::Histogram>& planning_seconds_;
  prometheus::Histogram& commit_seconds_;
  prometheus::Histogram& commit_records_;
  prometheus::Counter& snapshots_written_;
  prometheus::Counter& snapshots_dropped_;
  prometheus::Gauge& watch_streams_;
  prometheus::Gauge& journal_writable_;
  prometheus::Counter& failed_commits_;
  prometheus::Counter& spans_exported_;
  prometheus::Counter& spans_dropped_;
  Mutex series_mu_;
  absl::flat_hash_map<std::pair<std::string, int>, CallSeries> call_series_
      ABSL_GUARDED_BY(series_mu_);
  absl::flat_hash_map<std::string, prometheus::Histogram*> planning_series_
      ABSL_GUARDED_BY(series_mu_);
};

}  // namespace resched::server
