// A committed Replan and the replanned queue it leaves (cluster_plan.h). Replanned jobs live
// beside the policy's queue, not in it: every policy plans around them as it plans around
// reservations, and only this file moves them, earlier, in their order, at their width. On
// groups of different speeds a replanned job stays in its group, whose capacity it counts in.
#include <algorithm>
#include <utility>

#include "absl/container/flat_hash_map.h"
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
  Timeline free = timeline_.Copy();
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
    // A job in a group keeps it: its processors and its model's speed are the group's.
    const int processors = job->group >= 0 ? spec_.groups[job->group].count : capacity();
    if (a.k < 1 || a.k > processors) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "plan[%d]: job '%s' must get a width in [1, %d]%s, got %d", i, p.id, processors,
          job->group >= 0
              ? absl::StrFormat(" (its group %d, '%s')", job->group, spec_.groups[job->group].name)
              : "",
          a.k));
    }
    const std::vector<int> widths = job->job.model.Widths(processors);
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
  const AccountOnReturn account(*this);
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
  // On several speeds each job must also fit in its group, beside the group's other bookings.
  std::vector<Timeline> own_bookings;
  if (!spec_.homogeneous()) own_bookings = OwnBookingsByGroup(now_, kTimeMax, QueuedJobsIn::kAll);
  std::vector<ReservationId> booked;
  for (std::size_t i = 0; i < planned.size(); ++i) {
    const PlannedJob& p = planned[i];
    const Allocation& a = p.allocation;
    Timeline* group = own_bookings.empty() ? nullptr : &own_bookings[jobs[i]->group];
    const bool fits_group = group == nullptr || a.start >= a.end ||
                            group->MinFree(std::max(a.start, now_), a.end) >= a.k;
    absl::StatusOr<ReservationId> id = fits_group
                                           ? timeline_.Add(a.start, a.end, a.k)
                                           : absl::ResourceExhaustedError("its group is full");
    if (id.ok() && group != nullptr && a.start < a.end) {
      (void)group->ForceAdd(std::max(a.start, now_), a.end, a.k);  // checked just above
    }
    if (!id.ok()) {
      for (ReservationId b : booked) timeline_.ReleaseHeld(b);
      for (const Previous& back : previous) {
        if (back.placed) state.Place(*back.job, back.allocation, back.guaranteed);
      }
      state.ForgetMoves();
      return absl::FailedPreconditionError(absl::StrFormat(
          "job '%s' of the plan no longer fits: %d processors%s over [%s, %s) are not free "
          "(the cluster changed while it was planned)",
          p.id, a.k,
          group == nullptr ? ""
                           : absl::StrFormat(" of group %d ('%s')", jobs[i]->group,
                                             spec_.groups[jobs[i]->group].name),
          FormatInstant(a.start), FormatInstant(a.end)));
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
  for (JobRecord* job : jobs) TouchJob(*job);
  queue_ = std::move(policy_queue);
  replanned_ = std::move(jobs);
  tracker_.replanned_order = true;
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
  if (replanned_.empty()) return;
  PlanState state = MakeState();
  // On several speeds a job also needs room in its group: each group's bookings, with each
  // replanned job's own so that it can leave its slot.
  std::vector<Timeline> own_bookings;
  absl::flat_hash_map<const JobRecord*, ReservationId> own_booking;
  if (!spec_.homogeneous()) {
    own_bookings = OwnBookingsByGroup(now_, kTimeMax, QueuedJobsIn::kPolicyQueueOnly);
    for (const JobRecord* job : replanned_) {
      const Allocation& a = job->allocation;
      if (a.start < a.end) {
        own_booking[job] = *own_bookings[job->group].ForceAdd(a.start, a.end, a.k);
      }
    }
  }
  Time previous_start = now_;
  bool predecessor_moved = false;
  for (JobRecord* job : replanned_) {
    // Ending by `freed_from` and with its predecessors in place, a job cannot move earlier.
    if (job->allocation.end <= freed_from && !predecessor_moved) {
      previous_start = job->allocation.start;
      continue;
    }
    const Allocation old = job->allocation;
    const Duration length = old.end - old.start;
    state.Unplace(*job);
    Timeline* group = own_bookings.empty() ? nullptr : &own_bookings[job->group];
    if (group != nullptr && own_booking.contains(job)) group->ReleaseHeld(own_booking[job]);
    // Its own slot is free again and starts no earlier than `not_before`: a start is found.
    // The earliest start where both the cluster and the group have room, before the job's own.
    const Time chosen =
        EarliestStartInBoth(timeline_, group, std::max({now_, job->job.release, previous_start}),
                            length, old.k, old.start)
            .value_or(old.start);
    state.Place(*job, Allocation{old.k, chosen, chosen + length}, true);
    if (group != nullptr && length > 0) {
      own_booking[job] = *group->ForceAdd(chosen, chosen + length, old.k);
    }
    previous_start = chosen;
    predecessor_moved |= chosen != old.start;
  }
  // The starts still rise along the list, but a job moved up to a later one's start now ties
  // with it: ties go by submission, as a restart from an image orders them, so that a restarted
  // plan decides as this one does.
  if (!std::is_sorted(replanned_.begin(), replanned_.end(), PlannedBefore)) {
    std::stable_sort(replanned_.begin(), replanned_.end(), PlannedBefore);
    tracker_.replanned_order = true;
  }
  AbsorbMoves(state);
}

void ClusterPlan::ReplanIfDue(PeriodicReplanner& replanner) {
  const PeriodicReplan& replan = spec_.replan;
  if (replan.every == 0 || spec_.clock != ClockKind::kSimulated || now_ < next_replan_) return;
  if (queued_count() > 0) {
    if (std::optional<std::vector<PlannedJob>> planned = replanner.PlanAt(*this)) {
      // Planned on this very plan, or on one in the same state: it applies (a failure would
      // leave the plan unchanged).
      (void)ApplyReplan(*planned);
    }
  }
  // The next multiple of the period since the cluster's creation, after now.
  next_replan_ = created_ + ((now_ - created_) / replan.every + 1) * replan.every;
}

void ClusterPlan::ReturnReplannedToPolicy() {
  if (!replanned_.empty()) tracker_.replanned_order = true;
  for (JobRecord* job : replanned_) {
    job->replanned = false;
    TouchJob(*job);
  }
  queue_.insert(queue_.end(), replanned_.begin(), replanned_.end());
  replanned_.clear();
  std::sort(queue_.begin(), queue_.end(), SubmittedBefore);
}

}  // namespace resched
