#include "bridge/sync_loop.h"

#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "server/base/log.h"

namespace resched::bridge {
namespace {

using server::Log;
using server::LogLevel;

// At most ten rounds a second, however often resched changes: each round reads both sides.
constexpr absl::Duration kCoalesce = absl::Milliseconds(100);

std::string Describe(const EventReport& report) {
  const char* event = report.event == WorkEvent::kStarted    ? "started"
                      : report.event == WorkEvent::kFinished ? "finished"
                                                             : "failed";
  return report.kind == PlannedKind::kDagTask
             ? absl::StrCat("DAG ", report.id, " task ", report.task, " ", event, " (batch job ",
                            report.batch_job, ")")
             : absl::StrCat("job ", report.id, " ", event, " (batch job ", report.batch_job, ")");
}

std::string Describe(const ReservationChange& change) {
  const BatchReservation& r = change.reservation;
  switch (change.kind) {
    case ReservationChange::Kind::kCreate:
      return absl::StrFormat("create reservation %s: %d cores over [%s, %s)", r.name, r.cores,
                             FormatInstant(r.start), FormatInstant(r.end));
    case ReservationChange::Kind::kUpdate:
      return absl::StrFormat("update reservation %s: %d cores over [%s, %s)", r.name, r.cores,
                             change.keep_start ? "(started)" : FormatInstant(r.start),
                             FormatInstant(r.end));
    case ReservationChange::Kind::kDelete:
      return absl::StrCat("delete reservation ", r.name);
  }
  return "";
}

}  // namespace

SyncLoop::SyncLoop(BatchSystem& batch, ReschedCluster& resched, SyncOptions options)
    : batch_(batch), resched_(resched), options_(std::move(options)) {}

void SyncLoop::Refused(const std::string& what, const absl::Status& status) {
  std::string& last = last_refusal_[what];
  const std::string message = std::string(status.message());
  if (last == message) return;
  last = message;
  Log(LogLevel::kWarning, "refused", absl::StrCat(what, ": ", message), {{"change", what}});
}

absl::StatusOr<RoundCounts> SyncLoop::Round() {
  auto batch = batch_.Read();
  if (!batch.ok()) return batch.status();
  auto resched = resched_.Read();
  if (!resched.ok()) return resched.status();
  const SyncPlan plan = Reconcile(*resched, *batch, options_, memory_);
  RoundCounts counts;
  std::set<std::string> start_refused;  // batch jobs whose end must wait for their start
  for (const EventReport& report : plan.reports) {
    if (start_refused.contains(report.batch_job)) continue;
    const std::string what = Describe(report);
    if (auto status = resched_.Report(report, options_.hold_source); !status.ok()) {
      ++counts.refused;
      Refused(what, status);
      if (report.event == WorkEvent::kStarted) start_refused.insert(report.batch_job);
      continue;
    }
    if (report.event == WorkEvent::kStarted) memory_.reported_starts.insert(report.batch_job);
    ++counts.reports;
    Log(LogLevel::kInfo, "reported", what);
  }
  for (const std::string& id : plan.holds_to_remove) {
    if (auto status = resched_.RemoveHold(id); !status.ok()) {
      ++counts.refused;
      Refused(absl::StrCat("remove hold ", id), status);
      continue;
    }
    ++counts.holds_removed;
    Log(LogLevel::kInfo, "hold_removed", absl::StrCat("removed hold ", id));
  }
  for (const HoldSpec& hold : plan.holds_to_add) {
    const std::string what =
        absl::StrFormat("hold %d processors over [%s, %s) for %s", hold.processors,
                        FormatInstant(hold.start), FormatInstant(hold.end), hold.reason);
    if (auto status = resched_.AddHold(hold); !status.ok()) {
      ++counts.refused;
      Refused(what, status);
      continue;
    }
    ++counts.holds_added;
    Log(LogLevel::kInfo, "hold_added", what);
  }
  // Called with no changes too: the batch system may have its own repairs to finish.
  auto refusals = batch_.Apply(plan.batch_changes);
  if (!refusals.ok()) return refusals.status();
  if (!refusals->empty()) Refused("the batch system", absl::UnavailableError(*refusals));
  counts.batch_changes = static_cast<int>(plan.batch_changes.size());
  for (const ReservationChange& change : plan.batch_changes) {
    Log(LogLevel::kInfo, "batch_change", Describe(change));
  }
  return counts;
}

void SyncLoop::Run(absl::Duration interval, Wakeup& wakeup, const std::atomic<bool>& stop) {
  std::string last_failure;
  while (!stop.load()) {
    auto counts = Round();
    if (!counts.ok()) {
      const std::string failure(counts.status().message());
      if (failure != last_failure) {
        Log(LogLevel::kWarning, "round_failed", absl::StrCat("round failed: ", failure));
      }
      last_failure = failure;
    } else if (!last_failure.empty()) {
      Log(LogLevel::kInfo, "round_ok", "both sides reachable again");
      last_failure.clear();
    }
    wakeup.WaitFor(interval);
    // A burst of changes (a DAG reserved, a replan) arrives as many events: one round for them.
    if (!stop.load()) absl::SleepFor(kCoalesce);
  }
}

}  // namespace resched::bridge
