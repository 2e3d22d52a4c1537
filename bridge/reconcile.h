// One round of keeping a resched cluster and a batch system's partition in step, as a pure
// function of what each side holds now, so that a restarted bridge (which remembers nothing but
// what the two sides show) converges on the same state, and tests need neither side running.
//
//   resched -> batch system: every QUEUED or RUNNING job, every DAG task that holds processors,
//     and every hold not made by the bridge becomes an advance reservation named after it
//     (MirrorName), created, moved or resized when resched moves it, deleted when it ends.
//   batch system -> resched: every advance reservation of its own (maintenance), every job
//     outside the mirrored reservations (running, or pending with a start estimate), and the free
//     CPUs of every unavailable node become holds whose reason names them (one per reason).
//   jobs back: the first batch job that ran in a mirrored reservation reports the start and the
//     end of the resched job or DAG task the reservation is for.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "bridge/batch_system.h"
#include "bridge/resched_view.h"

namespace resched::bridge {

struct SyncOptions {
  // Mirrored reservations are named "<prefix>-<id>" (a job or hold id) and
  // "<prefix>-<dag id>-<task>"; every reservation whose name starts with "<prefix>-" is the
  // bridge's to change.
  std::string name_prefix = "resched";
  // The bridge's holds have reasons "<hold_source>: ..."; they are never mirrored back.
  std::string hold_source = "batch";
  // Only work starting before now + horizon is mirrored: a reservation far ahead would be moved
  // many times before it begins.
  Duration horizon = 24 * 3600 * kMicrosPerSecond;
  // The length of a hold with no known end (an unavailable node, a job with no time limit);
  // renewed when less than half of it is left.
  Duration open_hold_length = 7 * 24 * 3600 * kMicrosPerSecond;
  // A hold for a job is moved only when its start or end is off by more than this (a pending
  // job's start estimate moves at every scheduling pass).
  Duration tolerance = 60 * kMicrosPerSecond;
  std::string users;     // who may run in a mirrored reservation
  std::string accounts;  // and which accounts
  // The batch system's account of a resched tenant: the reservation of a job or DAG task of a
  // tenant named here is for that account alone (and not for `users` and `accounts`).
  std::map<std::string, std::string> tenant_accounts;
};

struct SyncPlan {
  std::vector<EventReport> reports;          // first: an early end frees processors
  std::vector<std::string> holds_to_remove;  // hold ids
  std::vector<HoldSpec> holds_to_add;
  std::vector<ReservationChange> batch_changes;  // deletions, then updates, then creations
};

// What the bridge remembers between rounds: the batch jobs whose start it reported (a RUNNING
// resched job does not show whether its start was reported). Lost on restart, which only
// repeats a report that the server then answers with its first answer (same request id).
struct SyncMemory {
  std::set<std::string> reported_starts;
};

// The name of the reservation mirroring `work`: letters, digits, '_' and '.' of the DAG task's
// name, with a digest of the whole name when anything else was dropped or it was too long.
std::string MirrorName(const SyncOptions& options, const PlannedWork& work);

SyncPlan Reconcile(const ReschedView& resched, const BatchSnapshot& batch,
                   const SyncOptions& options, const SyncMemory& memory);

}  // namespace resched::bridge
