// ClusterPlan::TakeChange and ApplyChange (plan_change.h): a change read off the plan after it,
// and applied to a plan that was where this one was before, without the policy.
#include <algorithm>
#include <string>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "core/plan/booking_check.h"
#include "core/plan/plan_change.h"

namespace resched {
namespace {

void SortUnique(std::vector<std::int64_t>& v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
}

bool InPolicyQueue(const JobRecord& job) {
  return job.state == JobState::kQueued && !job.replanned;
}

}  // namespace

void ClusterPlan::TrackChanges(bool on) {
  const bool policy_remembers = tracker_.policy_remembers;
  tracker_ = ChangeTracker{};
  tracker_.policy_remembers = policy_remembers;
  tracker_.on = on;
  tracker_.first_new_job = next_job_;
  tracker_.first_new_reservation = next_reservation_;
  tracker_.first_new_dag = next_dag_;
  timeline_.LogOps(on);
}

PlanChange ClusterPlan::TakeChange() {
  PlanChange change;
  change.now = now_;
  change.last_start = last_start_;
  change.next_dag_expiry = next_dag_expiry_;
  change.next_replan = next_replan_;
  change.next_job = next_job_;
  change.next_reservation = next_reservation_;
  change.next_dag = next_dag_;
  change.timeline = timeline_.TakeOps();

  std::vector<std::int64_t>& jobs = tracker_.jobs;
  for (auto it = jobs_.lower_bound(tracker_.first_new_job); it != jobs_.end(); ++it) {
    jobs.push_back(it->first);
  }
  SortUnique(jobs);
  change.jobs.reserve(jobs.size());
  for (const std::int64_t seq : jobs) {
    // A job changed and then forgotten is listed as forgotten only.
    if (auto it = jobs_.find(seq); it != jobs_.end()) change.jobs.push_back(*it->second);
  }
  change.forgotten_jobs = std::move(tracker_.forgotten);
  change.started = std::move(tracker_.started);
  if (tracker_.replanned_order) {
    change.replanned_order.emplace();
    for (const JobRecord* job : replanned_) change.replanned_order->push_back(job->job.id);
  }

  for (auto it = reservations_.lower_bound(tracker_.first_new_reservation);
       it != reservations_.end(); ++it) {
    change.added_reservations.emplace_back(it->first, it->second);
  }
  change.removed_reservations = std::move(tracker_.removed_reservations);
  change.added_past_holds = std::move(tracker_.added_past_holds);
  change.past_holds = static_cast<std::int64_t>(past_holds_.size());

  std::vector<std::int64_t>& dags = tracker_.dags;
  for (auto it = dags_.lower_bound(tracker_.first_new_dag); it != dags_.end(); ++it) {
    dags.push_back(it->first);
  }
  SortUnique(dags);
  for (const std::int64_t seq : dags) {
    if (auto it = dags_.find(seq); it != dags_.end()) change.dags.emplace_back(seq, it->second);
  }
  change.removed_dags = std::move(tracker_.removed_dags);

  // Once the policy remembered anything, every change says what it remembers, until it
  // forgets (an emptied image) included.
  PolicyImage image = policy_->Image();
  const bool remembers = !image.empty();
  if (remembers || tracker_.policy_remembers) change.policy = std::move(image);
  TrackChanges(true);
  tracker_.policy_remembers = remembers;
  return change;
}

void ClusterPlan::DropFromLists(JobRecord* job) {
  for (std::vector<JobRecord*>* list : {&queue_, &replanned_, &running_}) {
    if (auto it = std::find(list->begin(), list->end(), job); it != list->end()) list->erase(it);
  }
}

absl::Status ClusterPlan::ApplyChange(PlanChange change) {
  const AccountOnReturn account(*this);
  for (const TimelineChange& op : change.timeline) {
    if (absl::Status s = timeline_.ApplyOp(op); !s.ok()) return s;
  }
  now_ = change.now;
  last_start_ = change.last_start;
  next_dag_expiry_ = change.next_dag_expiry;
  next_replan_ = change.next_replan;
  next_job_ = change.next_job;
  next_reservation_ = change.next_reservation;
  next_dag_ = change.next_dag;
  // Facts learned by searches here would be true still, but this plan's searches did not learn
  // them: start afresh rather than keep facts about a timeline the ops went past.
  start_bounds_ = StartBounds();
  if (absl::Status s = ApplyJobChanges(change); !s.ok()) return s;
  if (absl::Status s = ApplyBookingChanges(change); !s.ok()) return s;
  if (change.policy) return policy_->LoadImage(*change.policy, capacity());
  return absl::OkStatus();
}

absl::Status ClusterPlan::ApplyJobChanges(PlanChange& change) {
  for (const JobId& id : change.forgotten_jobs) {
    JobRecord* job = Mutable(id);
    if (job == nullptr) {
      return absl::DataLossError(
          absl::StrCat("the change forgets job ", id, ", which is not here"));
    }
    // Ended here too, almost always: it is then in no list.
    if (IsEnded(job->state)) {
      --ended_count_;
    } else {
      DropFromLists(job);
    }
    AccountChangedJobs();  // nothing pending may point at the job
    ledger_.Forget(*job);
    if (changed_set_.erase(job) > 0) std::erase(changed_, job);
    by_id_.erase(id);
    jobs_.erase(job->sequence);
  }
  absl::flat_hash_set<const JobRecord*> left_queue;
  absl::flat_hash_set<const JobRecord*> left_running;
  std::vector<JobRecord*> joined_queue;
  for (JobRecord& changed : change.jobs) {
    const std::string what = absl::StrCat("job ", changed.job.id);
    if (absl::Status s = RestoreGroup(changed, what); !s.ok()) return s;
    if (changed.placed) {
      if (absl::Status s = CheckBooking(timeline_, changed.reservation, changed.allocation, what);
          !s.ok()) {
        return s;
      }
    }
    if (changed.state == JobState::kQueued && changed.replanned && !changed.placed) {
      return absl::DataLossError(absl::StrCat(what, " is replanned but has no booking"));
    }
    JobRecord* job = Mutable(changed.job.id);
    bool was_queued = false;
    bool was_running = false;
    bool was_ended = false;
    if (job == nullptr) {
      if (jobs_.contains(changed.sequence)) {
        return absl::DataLossError(absl::StrCat(what, " has the sequence of another job"));
      }
      auto record = std::make_unique<JobRecord>(std::move(changed));
      job = record.get();
      jobs_[job->sequence] = std::move(record);
      by_id_[job->job.id] = job;
    } else {
      if (job->sequence != changed.sequence) {
        return absl::DataLossError(absl::StrCat(what, " changes its submission sequence"));
      }
      was_queued = InPolicyQueue(*job);
      was_running = job->state == JobState::kRunning;
      was_ended = IsEnded(job->state);
      *job = std::move(changed);
    }
    if (was_queued && !InPolicyQueue(*job)) left_queue.insert(job);
    if (!was_queued && InPolicyQueue(*job)) joined_queue.push_back(job);
    if (was_running && job->state != JobState::kRunning) left_running.insert(job);
    ended_count_ += static_cast<int>(IsEnded(job->state)) - static_cast<int>(was_ended);
    MarkChanged(job);
  }
  if (!left_queue.empty())
    std::erase_if(queue_, [&](JobRecord* j) { return left_queue.contains(j); });
  if (!joined_queue.empty()) {
    // The policy's queue stays in submission order.
    auto by_sequence = [](const JobRecord* a, const JobRecord* b) {
      return a->sequence < b->sequence;
    };
    std::sort(joined_queue.begin(), joined_queue.end(), by_sequence);
    std::vector<JobRecord*> merged;
    merged.reserve(queue_.size() + joined_queue.size());
    std::merge(queue_.begin(), queue_.end(), joined_queue.begin(), joined_queue.end(),
               std::back_inserter(merged), by_sequence);
    queue_ = std::move(merged);
  }
  if (!left_running.empty()) {
    std::erase_if(running_, [&](JobRecord* j) { return left_running.contains(j); });
  }
  for (const JobId& id : change.started) {
    JobRecord* job = Mutable(id);
    // A job that started and ended within the change is not running any more.
    if (job != nullptr && job->state == JobState::kRunning &&
        std::find(running_.begin(), running_.end(), job) == running_.end()) {
      running_.push_back(job);
    }
  }
  if (change.replanned_order) {
    replanned_.clear();
    for (const JobId& id : *change.replanned_order) {
      JobRecord* job = Mutable(id);
      if (job == nullptr || job->state != JobState::kQueued || !job->replanned) {
        return absl::DataLossError(
            absl::StrCat("the replanned queue lists job ", id, ", which is no replanned job here"));
      }
      replanned_.push_back(job);
    }
  }
  return absl::OkStatus();
}

absl::Status ClusterPlan::ApplyBookingChanges(PlanChange& change) {
  for (const std::int64_t n : change.removed_reservations) {
    auto it = reservations_.find(n);
    if (it == reservations_.end()) {
      return absl::DataLossError(
          absl::StrCat("the change removes reservation r", n, ", which is not here"));
    }
    group_bookings_.erase(it->second.booking);
    reservations_.erase(it);
  }
  for (auto& [n, r] : change.added_reservations) {
    const std::string what = absl::StrCat("reservation ", r.id);
    if (absl::Status s = CheckBooking(timeline_, r.booking, {r.k, r.start, r.end}, what); !s.ok()) {
      return s;
    }
    if (r.group != -1) {
      if (absl::Status s = CheckHoldGroup(r.group, r.k); !s.ok()) {
        return absl::DataLossError(absl::StrCat(what, ": ", s.message()));
      }
      group_bookings_[r.booking] = r.group;
    }
    reservations_[n] = std::move(r);
  }
  past_holds_.insert(past_holds_.end(), change.added_past_holds.begin(),
                     change.added_past_holds.end());
  if (static_cast<std::int64_t>(past_holds_.size()) < change.past_holds) {
    return absl::DataLossError(absl::StrCat("the change keeps ", change.past_holds,
                                            " past holds; there are ", past_holds_.size()));
  }
  while (static_cast<std::int64_t>(past_holds_.size()) > change.past_holds) past_holds_.pop_front();

  auto drop_task_groups = [&](const DagReservation& d) {
    for (const DagTaskBooking& t : d.tasks) {
      if (t.booking >= 0) group_bookings_.erase(t.booking);
    }
  };
  for (const std::int64_t n : change.removed_dags) {
    auto it = dags_.find(n);
    if (it == dags_.end()) {
      return absl::DataLossError(
          absl::StrCat("the change removes DAG reservation d", n, ", which is not here"));
    }
    drop_task_groups(it->second);
    dags_.erase(it);
  }
  for (auto& [n, d] : change.dags) {
    if (auto it = dags_.find(n); it != dags_.end()) drop_task_groups(it->second);
    for (const DagTaskBooking& t : d.tasks) {
      if (t.booking < 0) continue;  // ended: freed
      const std::string what = absl::StrCat("task ", t.task, " of ", d.id);
      if (absl::Status s = CheckBooking(timeline_, t.booking, t.allocation, what); !s.ok())
        return s;
      if (t.group != -1) group_bookings_[t.booking] = t.group;
    }
    dags_[n] = std::move(d);
  }
  return absl::OkStatus();
}

}  // namespace resched
