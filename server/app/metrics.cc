#include "server/app/metrics.h"

#include "absl/status/status.h"

namespace resched::server {
namespace {

// Latency buckets from 50 us (a read on an idle server) to 10 s (a large DAG plan).
const prometheus::Histogram::BucketBoundaries kSeconds = {
    0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01,
    0.025,   0.05,   0.1,     0.25,   0.5,   1,      2.5,   10};

// The code's canonical name (OK, NOT_FOUND, ...), the label clients filter on; gRPC's codes
// are Abseil's.
std::string CodeName(absl::StatusCode code) { return absl::StatusCodeToString(code); }

}  // namespace

ServerMetrics::ServerMetrics()
    : registry_(std::make_shared<prometheus::Registry>()),
      calls_(prometheus::BuildCounter()
                 .Name("resched_calls_total")
                 .Help("Unary calls answered, by method and status code")
                 .Register(*registry_)),
      call_seconds_(prometheus::BuildHistogram()
                        .Name("resched_call_duration_seconds")
                        .Help("Time from a unary call's arrival to its answer, by method and "
                              "status code")
                        .Register(*registry_)),
      shed_(prometheus::BuildCounter()
                .Name("resched_calls_shed_total")
                .Help("Calls refused with RESOURCE_EXHAUSTED because max_waiting_calls were "
                      "waiting for a worker")
                .Register(*registry_)),
      forwarded_(prometheus::BuildCounter()
                     .Name("resched_calls_forwarded_total")
                     .Help("Calls this replica sent on to the replica that serves their cluster")
                     .Register(*registry_)),
      planning_seconds_(prometheus::BuildHistogram()
                            .Name("resched_planning_duration_seconds")
                            .Help("Time an algorithm took: the cluster's online policy applying "
                                  "one change, or a DAG planner's plan")
                            .Register(*registry_)),
      commit_seconds_(prometheus::BuildHistogram()
                          .Name("resched_journal_commit_duration_seconds")
                          .Help("One journal transaction (group commit), fsync included")
                          .Register(*registry_)
                          .Add({}, kSeconds)),
      commit_records_(
          prometheus::BuildHistogram()
              .Name("resched_journal_commit_records")
              .Help("Records per journal transaction: how many changes share an fsync")
              .Register(*registry_)
              .Add({}, prometheus::Histogram::BucketBoundaries{1, 2, 4, 8, 16, 32, 64, 128, 256})),
      snapshots_written_(prometheus::BuildCounter()
                             .Name("resched_snapshots_total")
                             .Help("Cluster snapshots, by outcome")
                             .Register(*registry_)
                             .Add({{"outcome", "written"}})),
      snapshots_dropped_(prometheus::BuildCounter()
                             .Name("resched_snapshots_total")
                             .Help("Cluster snapshots, by outcome")
                             .Register(*registry_)
                             .Add({{"outcome", "dropped"}})),
      watch_streams_(prometheus::BuildGauge()
                         .Name("resched_watch_streams")
                         .Help("WatchSchedule streams open")
                         .Register(*registry_)
                         .Add({})),
      journal_writable_(prometheus::BuildGauge()
                            .Name("resched_journal_writable")
                            .Help("1 while the journal commits; 0 while its commits fail (disk "
                                  "full, I/O error) and every change is refused")
                            .Register(*registry_)
                            .Add({})),
      failed_commits_(prometheus::BuildCounter()
                          .Name("resched_journal_failed_commits_total")
                          .Help("Journal transactions that failed (disk full, I/O error); the "
                                "journal then refuses changes until a probe commits")
                          .Register(*registry_)
                          .Add({})),
      spans_exported_(prometheus::BuildCounter()
                          .Name("resched_trace_spans_exported_total")
                          .Help("Trace spans the OTLP collector accepted")
                          .Register(*registry_)
                          .Add({})),
      spans_dropped_(prometheus::BuildCounter()
                         .Name("resched_trace_spans_dropped_total")
                         .Help("Trace spans dropped: the export queue was full or the collector "
                               "could not take them")
                         .Register(*registry_)
                         .Add({})) {}

ServerMetrics::CallSeries ServerMetrics::CallSeriesOf(const std::string& method,
                                                      absl::StatusCode code) {
  MutexLock lock(&series_mu_);
  auto [it, added] = call_series_.try_emplace({method, static_cast<int>(code)});
  if (added) {
    const prometheus::Labels labels = {{"method", method}, {"code", CodeName(code)}};
    it->second = {&calls_.Add(labels), &call_seconds_.Add(labels, kSeconds)};
  }
  return it->second;
}

prometheus::Histogram& ServerMetrics::PlanningSeriesOf(const std::string& algorithm) {
  MutexLock lock(&series_mu_);
  auto [it, added] = planning_series_.try_emplace(algorithm);
  if (added) it->second = &planning_seconds_.Add({{"algorithm", algorithm}}, kSeconds);
  return *it->second;
}

void ServerMetrics::ObserveCall(const std::string& method, absl::StatusCode code, double seconds) {
  const CallSeries series = CallSeriesOf(method, code);
  series.calls->Increment();
  series.seconds->Observe(seconds);
}

void ServerMetrics::CountShed(const std::string& method) {
  shed_.Add({{"method", method}}).Increment();
}

void ServerMetrics::CountForwarded(const std::string& method) {
  forwarded_.Add({{"method", method}}).Increment();
}

void ServerMetrics::ObservePlanning(const std::string& algorithm, double seconds) {
  PlanningSeriesOf(algorithm).Observe(seconds);
}

void ServerMetrics::ObserveCommit(double seconds, std::size_t records) {
  commit_seconds_.Observe(seconds);
  commit_records_.Observe(static_cast<double>(records));
}

void ServerMetrics::CountSnapshot(bool written) {
  (written ? snapshots_written_ : snapshots_dropped_).Increment();
}

void ServerMetrics::CountSpansExported(std::int64_t spans) {
  spans_exported_.Increment(static_cast<double>(spans));
}

void ServerMetrics::CountSpansDropped(std::int64_t spans) {
  spans_dropped_.Increment(static_cast<double>(spans));
}

void ServerMetrics::WatchStarted() { watch_streams_.Increment(); }

void ServerMetrics::WatchEnded() { watch_streams_.Decrement(); }

void ServerMetrics::SetJournalWritable(bool writable) { journal_writable_.Set(writable ? 1 : 0); }

void ServerMetrics::CountFailedCommit() { failed_commits_.Increment(); }

}  // namespace resched::server
