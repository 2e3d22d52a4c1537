// The server's size limits, with their defaults; a configuration file may change them.
#pragma once

#include <cstddef>
#include <cstdint>

namespace resched::server {

// Threads running the service's calls: calls on different clusters proceed in parallel, and
// a slow plan on one cluster leaves the others this many threads minus one.
inline constexpr int kWorkerThreads = 16;

struct ServiceLimits {
  int max_clusters = 64;
  int max_active_jobs_per_cluster = 100'000;
  int max_dag_tasks = 10'000;
  int max_dag_edges = 100'000;
  // Events a WatchSchedule stream may have waiting to be written before it is ended with
  // RESOURCE_EXHAUSTED (a reader that stopped reading).
  size_t max_watch_backlog = 10'000;
  // WatchSchedule streams open at once, and of one client (a tenant, or an address without
  // tokens): each holds its cluster's snapshot while it is written, and up to max_watch_backlog
  // events (docs/security.md measures one), within max_watch_bytes for all of them.
  int max_watch_streams = 64;
  int max_watch_streams_per_client = 16;
  // Bytes all WatchSchedule streams together may hold in events not yet written: what bounds
  // their memory whatever the clusters' sizes (server/app/watch_budget.h).
  size_t max_watch_bytes = size_t{256} << 20;
  // Calls waiting for a worker thread before new ones are refused with RESOURCE_EXHAUSTED
  // (load shedding: a refused call was not applied and can be retried).
  size_t max_waiting_calls = 10'000;
  // A cluster's snapshot is written at the latest once it has journaled this many records since
  // the last one (sooner when its changes are slow to replay): Durability::snapshot_every.
  std::int64_t snapshot_every_records = 10'000;
  // Off only for a benchmark's baseline: start-up then replays every record ever journaled.
  bool snapshots = true;
};

}  // namespace resched::server
