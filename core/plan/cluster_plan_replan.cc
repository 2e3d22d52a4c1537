// A committed Replan and the replanned queue it leaves (cluster_plan.h). Replanned jobs live
// beside the policy's queue, not in it: every policy plans around them as it plans around
// reservations, and only this file moves them, earlier, in their order, at their width.
#include <algorithm>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_format.h"
#include "core/plan/cluster_plan.h"
#include "core/plan/replan.h"
#include "core/registry/registry.h"

namespace resched {
namespace {

bool SubmittedBefore(const JobRecord* a, const JobRecord* b) { return a->sequence < b->sequence; }

bool PlannedBefore(const JobRecord* a, const JobRecord* b) {
  return std::pair(a->allocation.start, a->sequence) < std::pair(b->allocation.start, b->sequence);
}

}  // namespace

std::vector<const JobRecord*> ClusterPlan::QueuedJobs() const {
  std::vector<const JobRecord*> out;
  out.reserve(queue_.size() + replanned_.size());
  out.insert(out.end(), queue_.begin(), queue_.end());
  out.insert(out.end(), replanned_.begin(), replanned_.end());
  std::sort(out.begin(), out.end(), SubmittedBefore);
  return out;
}

Timeline ClusterPlan::FreeForQueued() const {
  Timeline free = timeline_.Snapshot();
  for (const std::vector<JobRecord*>* list : {&queue_, &replanned_}) {
    for (const JobRecord* job : *list) {
      if (job->placed) free.ReleaseHeld(job->reservation);
    }
  }
  return free;
}

absl::Status ClusterPlan::CheckPlanned(const std::vector<PlannedJob>& planned,
                                       std::vector<JobRecord*>& jobs) const {
  absl::flat_hash_set<JobId> seen;
  for (std::size_t i = 0; i < planned.size(); ++i) {
    const PlannedJob& p = planned[i];
    auto it = by_id_.find(p.id);
    if (it == by_id_.end() || it->second->state != JobState::kQueued) {
      return absl::FailedPreconditionError(
          absl::StrFormat("job '%s' of the plan is no longer queued (%s)", p.id,
                          it == by_id_.end() ? "unknown" : JobStateName(it->second->state)));
    }
    if (!seen.insert(p.id).second) {
      return absl::InvalidArgumentError(
          absl::StrFormat("plan[%d]: job '%s' appears twice", i, p.id));
    }
    JobRecord* job = it->second;
    const Allocation& a = p.allocation;
    const Time earliest = std::max(now_, job->job.release);
    if (a.k < 1 || a.k > capacity()) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "plan[%d]: job '%s' must get a width in [1, %d], got %d", i, p.id, capacity(), a.k));
    }
    const std::vector<int> widths = job->job.model.Widths(capacity());
    if (std::find(widths.begin(), widths.end(), a.k) == widths.end()) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "plan[%d]: job '%s' cannot run on %d processors (its model)", i, p.id, a.k));
    }
    if (a.start < earliest) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "plan[%d]: job '%s' must start at or after %s (now or its release), got %s", i, p.id,
          FormatInstant(earliest), FormatInstant(a.start)));
    }
    if (a.end - a.start != job->job.model.TimeOn(a.k)) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "plan[%d]: job '%s' runs %d us on %d processors, the allocation lasts %d us", i, p.id,
          job->job.model.TimeOn(a.k), a.k, a.end - a.start));
    }
    jobs.push_back(job);
  }
  return absl::OkStatus();
}

absl::Status ClusterPlan::ApplyReplan(const std::vector<PlannedJob>& planned) {
  if (absl::Status s = RequireOneSpeed("Replan"); !s.ok()) return s;
  std::vector<JobRecord*> jobs;
  if (absl::Status s = CheckPlanned(planned, jobs); !s.ok()) return s;

  // Every queued job leaves the timeline; the previous allocations come back on failure.
  struct Previous {
    JobRecord* job;
    Allocation allocation;
    bool placed;
    bool guaranteed;
  };
  std::vector<Previous> previous;
  PlanState state = MakeState();
  for (std::vector<JobRecord*>* list : {&queue_, &replanned_}) {
    for (JobRecord* job : *list) {
      previous.push_back({job, job->allocation, job->placed, job->guaranteed});
      state.Unplace(*job);
    }
  }
  std::vector<ReservationId> booked;
  for (const PlannedJob& p : planned) {
    const Allocation& a = p.allocation;
    absl::StatusOr<ReservationId> id = timeline_.Add(a.start, a.end, a.k);
    if (!id.ok()) {
      for (ReservationId b : booked) timeline_.ReleaseHeld(b);
      for (const Previous& back : previous) {
        if (back.placed) state.Place(*back.job, back.allocation, back.guaranteed);
      }
      state.ForgetMoves();
      return absl::FailedPreconditionError(absl::StrFormat(
          "job '%s' of the plan no longer fits: %d processors over [%s, %s) are not free "
          "(the cluster changed while it was planned)",
          p.id, a.k, FormatInstant(a.start), FormatInstant(a.end)));
    }
    booked.push_back(*id);
  }

  // Committed from here on: nothing below fails.
  absl::flat_hash_set<const JobRecord*> listed(jobs.begin(), jobs.end());
  std::vector<JobRecord*> policy_queue;
  for (const std::vector<JobRecord*>* list : {&queue_, &replanned_}) {
    for (JobRecord* job : *list) {
      if (!listed.contains(job)) policy_queue.push_back(job);
    }
  }
  for (JobRecord* job : policy_queue) job->replanned = false;
  std::sort(policy_queue.begin(), policy_queue.end(), SubmittedBefore);
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    JobRecord* job = jobs[i];
    const bool moved = job->allocation != planned[i].allocation;
    job->allocation = planned[i].allocation;
    job->reservation = booked[i];
    job->placed = true;
    job->guaranteed = true;
    job->replanned = true;
    if (moved) MarkChanged(job);
  }
  queue_ = std::move(policy_queue);
  replanned_ = std::move(jobs);
  std::sort(replanned_.begin(), replanned_.end(), PlannedBefore);
  // The jobs the plan does not know: placed by the policy around the plan, as if submitted now.
  PlanState rebuilt = MakeState();
  policy_->Rebuild(rebuilt);
  for (const Previous& p : previous) {
    if (!p.job->replanned && p.job->allocation != p.allocation) MarkChanged(p.job);
  }
  ProcessInstant();  // a job planned at now starts now
  return absl::OkStatus();
}

void ClusterPlan::Reoptimize(Time freed_from) {
  CompressReplanned(freed_from);
  PlanState state = MakeState();
  policy_->Reoptimize(state, freed_from);
  AbsorbMoves(state);
}

void ClusterPlan::CompressReplanned(Time freed_from) {
  PlanState state = MakeState();
  Time previous_start = now_;
  bool predecessor_moved = false;
  for (JobRecord* job : replanned_) {
    // Ending by `freed_from` and with its predecessors in place, a job cannot move earlier.
    if (job->allocation.end <= freed_from && !predecessor_moved) {
      previous_start = job->allocation.start;
      continue;
    }
    const Allocation old = job->allocation;
    state.Unplace(*job);
    const Time not_before = std::max({now_, job->job.release, previous_start});
    // Its own slot is free again and starts no earlier than `not_before`: a start is found.
    const std::optional<Time> start =
        timeline_.EarliestStart(not_before, old.end - old.start, old.k);
    const Time chosen = start && *start < old.start ? *start : old.start;
    state.Place(*job, Allocation{old.k, chosen, chosen + (old.end - old.start)}, true);
    previous_start = chosen;
    predecessor_moved |= chosen != old.start;
  }
  AbsorbMoves(state);
}

void ClusterPlan::ReplanIfDue() {
  const PeriodicReplan& replan = spec_.replan;
  if (replan.every == 0 || spec_.clock != ClockKind::kSimulated || now_ < next_replan_) return;
  if (queued_count() > 0) {
    // Checked at creation: the planner is a built one.
    absl::StatusOr<std::unique_ptr<OfflinePlanner>> planner =
        MakeOfflinePlanner(replan.algorithm, replan.params);
    absl::StatusOr<ReplanProposal> proposal =
        planner.ok() ? ProposeReplan(*this, **planner, replan.objective, {}, /*lower_bounds=*/false)
                     : absl::StatusOr<ReplanProposal>(planner.status());
    if (proposal.ok() &&
        IsBetter(replan.objective, proposal->trial.before, proposal->trial.after)) {
      // Planned on this very plan: it applies (a failure would leave the plan unchanged).
      (void)ApplyReplan(proposal->planned);
    }
  }
  // The next multiple of the period since the cluster's creation, after now.
  next_replan_ = created_ + ((now_ - created_) / replan.every + 1) * replan.every;
}

void ClusterPlan::ReturnReplannedToPolicy() {
  for (JobRecord* job : replanned_) job->replanned = false;
  queue_.insert(queue_.end(), replanned_.begin(), replanned_.end());
  replanned_.clear();
  std::sort(queue_.begin(), queue_.end(), SubmittedBefore);
}

}  // namespace resched
