#include "bridge/reconcile.h"

#include <algorithm>
#include <cstdint>
#include <map>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"

namespace resched::bridge {
namespace {

constexpr std::size_t kMaxTaskNameInMirror = 40;

// Batch systems count whole seconds: a mirrored reservation starts at the next second and ends
// at the last whole one, so it never overlaps its neighbour on the same processors.
Time CeilSecond(Time t) { return (t + kMicrosPerSecond - 1) / kMicrosPerSecond * kMicrosPerSecond; }
Time FloorSecond(Time t) { return t / kMicrosPerSecond * kMicrosPerSecond; }

// FNV-1a: a digest that stays the same across builds and restarts, so a name too is.
std::uint32_t StableDigest(absl::string_view text) {
  std::uint32_t h = 2166136261u;
  for (unsigned char c : text) {
    h ^= c;
    h *= 16777619u;
  }
  return h;
}

std::string HoldPrefix(const SyncOptions& options) {
  return absl::StrCat(options.hold_source, ": ");
}

bool IsBridgeHold(const SyncOptions& options, const PlannedWork& work) {
  return work.kind == PlannedKind::kHold && absl::StartsWith(work.reason, HoldPrefix(options));
}

std::set<std::string, std::less<>> NameSet(absl::string_view list) {
  std::set<std::string, std::less<>> names;
  for (absl::string_view name : absl::StrSplit(list, ',', absl::SkipEmpty())) names.emplace(name);
  return names;
}

// Batch job ids are numbers in most batch systems: order by length first, so "10" follows "9".
bool EarlierJobId(const std::string& a, const std::string& b) {
  return a.size() != b.size() ? a.size() < b.size() : a < b;
}

struct WantedHold {
  HoldSpec spec;
  bool open_ended = false;  // its end is a horizon, not a fact: renewed, not compared
  Duration tolerance = 0;
};

bool HoldMatches(const PlannedWork& held, const WantedHold& wanted, Time now,
                 const SyncOptions& options) {
  if (held.processors != wanted.spec.processors) return false;
  const bool start_ok = wanted.spec.start <= now
                            ? held.start <= now + wanted.tolerance
                            : std::abs(held.start - wanted.spec.start) <= wanted.tolerance;
  if (!start_ok) return false;
  if (wanted.open_ended) return held.end - now >= options.open_hold_length / 2;
  return std::abs(held.end - wanted.spec.end) <= wanted.tolerance;
}

class Round {
 public:
  Round(const ReschedView& resched, const BatchSnapshot& batch, const SyncOptions& options,
        const SyncMemory& memory)
      : resched_(resched),
        batch_(batch),
        options_(options),
        memory_(memory),
        mirror_prefix_(absl::StrCat(options.name_prefix, "-")) {}

  SyncPlan Run() {
    CollectMirrors();
    ReportJobsBack();
    KeepReservationsInStep();
    KeepHoldsInStep();
    return std::move(plan_);
  }

 private:
  bool Ours(absl::string_view reservation) const {
    return absl::StartsWith(reservation, mirror_prefix_);
  }
  bool Ours(const BatchReservation& r) const { return Ours(r.name); }

  // What resched has promised: the reservations it should have in the batch system, and which
  // work each name stands for (also beyond the horizon, for the jobs that ran in it).
  void CollectMirrors() {
    const Time batch_now = CeilSecond(batch_.now);
    for (const PlannedWork& work : resched_.work) {
      if (IsBridgeHold(options_, work)) continue;
      const std::string name = MirrorName(options_, work);
      work_by_name_.emplace(name, &work);
      if (work.start >= resched_.now + options_.horizon) continue;
      BatchReservation r;
      r.name = name;
      r.start = std::max(CeilSecond(work.start), batch_now);
      r.end = FloorSecond(work.end);
      r.cores = work.processors;
      if (auto account = options_.tenant_accounts.find(work.owner);
          !work.owner.empty() && account != options_.tenant_accounts.end()) {
        r.accounts = account->second;
      } else {
        r.users = options_.users;
        r.accounts = options_.accounts;
      }
      if (r.end <= r.start) continue;  // less than a whole second left
      wanted_.emplace(name, std::move(r));
    }
    for (const BatchJob& job : batch_.jobs) {
      if (job.reservation.empty()) continue;
      auto& first = first_job_.try_emplace(job.reservation, &job).first->second;
      if (EarlierJobId(job.id, first->id)) first = &job;
      if (job.state == BatchJobState::kRunning) running_in_.insert(job.reservation);
      if (job.state == BatchJobState::kPending) waiting_in_[job.reservation].push_back(job.id);
    }
  }

  void ReportJobsBack() {
    for (const auto& [name, job] : first_job_) {
      auto work_it = work_by_name_.find(name);
      if (work_it == work_by_name_.end()) continue;
      const PlannedWork& work = *work_it->second;
      if (work.kind == PlannedKind::kHold || job->state == BatchJobState::kPending) continue;
      EventReport report{work.kind, work.id, work.task, WorkEvent::kStarted, job->start, job->id};
      const bool start_known = (work.kind == PlannedKind::kDagTask && work.running) ||
                               memory_.reported_starts.contains(job->id);
      if (!start_known && job->start > 0) plan_.reports.push_back(report);
      if (job->state == BatchJobState::kRunning) continue;
      report.event =
          job->state == BatchJobState::kCompleted ? WorkEvent::kFinished : WorkEvent::kFailed;
      report.at = job->end > 0 ? job->end : batch_.now;
      plan_.reports.push_back(std::move(report));
    }
  }

  void KeepReservationsInStep() {
    std::vector<ReservationChange> updates, creations;
    std::set<std::string> present;
    for (const BatchReservation& existing : batch_.reservations) {
      if (!Ours(existing)) continue;
      present.insert(existing.name);
      auto it = wanted_.find(existing.name);
      // One running a job stays as it is: its job has its processors (and a batch system may
      // refuse to change it); one that ended is purged by the batch system.
      if (running_in_.contains(existing.name)) continue;
      if (it == wanted_.end()) {
        if (existing.end > batch_.now) {
          plan_.batch_changes.push_back({ReservationChange::Kind::kDelete, existing, false, {}});
        }
        continue;
      }
      const BatchReservation& wanted = it->second;
      const bool both_began =
          existing.start <= batch_.now && wanted.start <= CeilSecond(batch_.now);
      const bool start_moved = !both_began && existing.start != wanted.start;
      const bool differs = start_moved || existing.end != wanted.end ||
                           existing.cores != wanted.cores ||
                           NameSet(existing.users) != NameSet(wanted.users) ||
                           NameSet(existing.accounts) != NameSet(wanted.accounts);
      if (differs) {
        updates.push_back(
            {ReservationChange::Kind::kUpdate, wanted, !start_moved, waiting_in_[existing.name]});
      }
    }
    for (const auto& [name, wanted] : wanted_) {
      if (!present.contains(name))
        creations.push_back({ReservationChange::Kind::kCreate, wanted, false, {}});
    }
    // Batch jobs still waiting for a reservation of ours that is gone and will not come back
    // (a move that failed half-way, its work over): deleting the name lets them go.
    std::set<std::string> orphaned;
    for (const BatchJob& job : batch_.jobs) {
      if (job.state == BatchJobState::kPending && Ours(job.reservation) &&
          !present.contains(job.reservation) && !wanted_.contains(job.reservation)) {
        orphaned.insert(job.reservation);
      }
    }
    for (const std::string& name : orphaned) {
      BatchReservation gone;
      gone.name = name;
      plan_.batch_changes.push_back({ReservationChange::Kind::kDelete, gone, false, {}});
    }
    plan_.batch_changes.insert(plan_.batch_changes.end(), updates.begin(), updates.end());
    plan_.batch_changes.insert(plan_.batch_changes.end(), creations.begin(), creations.end());
  }

  void Want(std::string reason, Time start, Time end, int processors, bool open_ended,
            Duration tolerance) {
    processors = std::min(processors, resched_.capacity);
    if (processors < 1 || end <= resched_.now || end <= start) return;
    WantedHold hold{{std::move(reason), start, end, processors}, open_ended, tolerance};
    wanted_holds_.insert_or_assign(hold.spec.reason, std::move(hold));
  }

  // The batch system's own load, as holds: its reservations, the jobs outside the mirrored
  // reservations (and those still running in one whose resched work has ended), and the free
  // CPUs of nodes that take no work.
  void CollectLoad() {
    const std::string prefix = HoldPrefix(options_);
    const Time open_end = resched_.now + options_.open_hold_length;
    for (const BatchReservation& r : batch_.reservations) {
      if (Ours(r)) continue;
      Want(absl::StrCat(prefix, "reservation ", r.name), r.start, r.end, r.cores, false, 0);
    }
    for (const BatchJob& job : batch_.jobs) {
      if (job.state == BatchJobState::kCompleted || job.state == BatchJobState::kFailed) continue;
      if (!job.reservation.empty()) {
        const bool in_ours = Ours(job.reservation);
        // In a foreign reservation: that reservation's hold covers it. In one of ours: resched
        // planned it, unless its work is over there while the job runs on.
        if (!in_ours || job.state != BatchJobState::kRunning) continue;
        auto it = wanted_.find(job.reservation);
        if (it != wanted_.end()) continue;
      }
      if (job.start <= 0) continue;  // pending with no estimate yet
      const bool open_ended = job.end <= job.start;
      Want(absl::StrCat(prefix, "job ", job.id), job.start, open_ended ? open_end : job.end,
           job.cpus, open_ended, options_.tolerance);
    }
    for (const BatchNode& node : batch_.nodes) {
      if (!node.unavailable) continue;
      Want(absl::StrCat(prefix, "node ", node.name, " unavailable"), resched_.now, open_end,
           node.cpus - node.allocated_cpus, true, options_.tolerance);
    }
  }

  void KeepHoldsInStep() {
    CollectLoad();
    std::map<std::string, std::vector<const PlannedWork*>> held;
    for (const PlannedWork& work : resched_.work) {
      if (IsBridgeHold(options_, work)) held[work.reason].push_back(&work);
    }
    for (const auto& [reason, holds] : held) {
      auto it = wanted_holds_.find(reason);
      const PlannedWork* kept = nullptr;
      for (const PlannedWork* hold : holds) {
        if (kept == nullptr && it != wanted_holds_.end() &&
            HoldMatches(*hold, it->second, resched_.now, options_)) {
          kept = hold;
        } else {
          plan_.holds_to_remove.push_back(hold->id);  // stale, moved, or a duplicate
        }
      }
      if (kept != nullptr) wanted_holds_.erase(it);
    }
    for (auto& [reason, wanted] : wanted_holds_) plan_.holds_to_add.push_back(wanted.spec);
  }

  const ReschedView& resched_;
  const BatchSnapshot& batch_;
  const SyncOptions& options_;
  const SyncMemory& memory_;
  SyncPlan plan_;
  std::map<std::string, BatchReservation> wanted_;
  std::map<std::string, const PlannedWork*> work_by_name_;
  const std::string mirror_prefix_;  // "<prefix>-": every reservation named so is the bridge's
  // By reservation name: the first batch job in it, whether one runs there, those waiting there.
  std::map<std::string, const BatchJob*> first_job_;
  std::set<std::string> running_in_;
  std::map<std::string, std::vector<std::string>> waiting_in_;
  std::map<std::string, WantedHold> wanted_holds_;  // by reason
};

}  // namespace

std::string MirrorName(const SyncOptions& options, const PlannedWork& work) {
  if (work.kind != PlannedKind::kDagTask) return absl::StrCat(options.name_prefix, "-", work.id);
  std::string task;
  bool dropped = work.task.size() > kMaxTaskNameInMirror;
  for (char c : work.task.substr(0, kMaxTaskNameInMirror)) {
    const bool kept = absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.';
    task.push_back(kept ? c : '_');
    dropped = dropped || !kept;
  }
  if (dropped) absl::StrAppend(&task, absl::StrFormat("-%08x", StableDigest(work.task)));
  return absl::StrCat(options.name_prefix, "-", work.id, "-", task);
}

SyncPlan Reconcile(const ReschedView& resched, const BatchSnapshot& batch,
                   const SyncOptions& options, const SyncMemory& memory) {
  return Round(resched, batch, options, memory).Run();
}

}  // namespace resched::bridge
