// ClusterPlan::Image and FromImage (cluster_plan_image.h).
#include "core/plan/cluster_plan_image.h"

#include <algorithm>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/plan/booking_check.h"

namespace resched {

ClusterPlanImage ClusterPlan::Image() const {
  ClusterPlanImage image;
  image.spec = spec_;
  image.params = params_;
  image.limits = limits_;
  image.now = now_;
  image.created = created_;
  image.last_start = last_start_;
  image.next_dag_expiry = next_dag_expiry_;
  image.next_replan = next_replan_;
  image.next_job = next_job_;
  image.next_reservation = next_reservation_;
  image.next_dag = next_dag_;
  image.jobs.reserve(jobs_.size());
  for (const auto& [seq, job] : jobs_) image.jobs.push_back(*job);
  image.running.reserve(running_.size());
  for (const JobRecord* job : running_) image.running.push_back(job->job.id);
  image.reservations.assign(reservations_.begin(), reservations_.end());
  image.dags.assign(dags_.begin(), dags_.end());
  image.past_holds.assign(past_holds_.begin(), past_holds_.end());
  image.timeline = timeline_.Image();
  image.policy = policy_->Image();
  return image;
}

absl::Status ClusterPlan::RestoreGroup(JobRecord& job, const std::string& what) const {
  if (spec_.homogeneous()) {
    if (job.group == -1) return absl::OkStatus();
    return absl::DataLossError(
        absl::StrCat(what, " names processor group ", job.group, " on a cluster of one speed"));
  }
  if (job.group < 0 || job.group >= static_cast<int>(spec_.groups.size())) {
    return absl::DataLossError(absl::StrCat(what, " names processor group ", job.group,
                                            "; the cluster has ", spec_.groups.size()));
  }
  job.job.model = job.job.model.OnSpeed(spec_.groups[job.group].speed);
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<ClusterPlan>> ClusterPlan::FromImage(ClusterPlanImage image) {
  auto made = Create(image.spec, image.params, image.created, image.limits);
  if (!made.ok()) return made.status();
  std::unique_ptr<ClusterPlan> plan = *std::move(made);
  auto timeline = Timeline::FromImage(image.timeline);
  if (!timeline.ok()) return timeline.status();
  if (timeline->capacity() != plan->capacity()) {
    return absl::DataLossError(absl::StrCat("the timeline has ", timeline->capacity(),
                                            " processors; the cluster has ", plan->capacity()));
  }
  plan->timeline_ = *std::move(timeline);
  if (absl::Status s = plan->policy_->LoadImage(image.policy, plan->capacity()); !s.ok()) {
    return s;
  }
  plan->now_ = image.now;
  plan->last_start_ = image.last_start;
  plan->next_dag_expiry_ = image.next_dag_expiry;
  plan->next_replan_ = image.next_replan;
  plan->next_job_ = image.next_job;
  plan->next_reservation_ = image.next_reservation;
  plan->next_dag_ = image.next_dag;

  std::int64_t previous = 0;
  for (JobRecord& job : image.jobs) {
    const std::string what = absl::StrCat("job ", job.job.id);
    if (job.sequence <= previous) {
      return absl::DataLossError(absl::StrCat(what, " is out of submission order"));
    }
    previous = job.sequence;
    if (auto s = plan->RestoreGroup(job, what); !s.ok()) return s;
    if (job.placed) {
      if (auto s = CheckBooking(plan->timeline_, job.reservation, job.allocation, what); !s.ok()) {
        return s;
      }
    }
    auto record = std::make_unique<JobRecord>(std::move(job));
    JobRecord* raw = record.get();
    if (!plan->by_id_.emplace(raw->job.id, raw).second) {
      return absl::DataLossError(absl::StrCat(what, " appears twice"));
    }
    plan->jobs_[raw->sequence] = std::move(record);
    plan->ledger_.Account(*raw);
    if (raw->state == JobState::kQueued) {
      if (raw->replanned && !raw->placed) {
        return absl::DataLossError(absl::StrCat(what, " is replanned but has no booking"));
      }
      (raw->replanned ? plan->replanned_ : plan->queue_).push_back(raw);
    }
    if (raw->state != JobState::kQueued && raw->state != JobState::kRunning) ++plan->ended_count_;
  }
  for (const JobId& id : image.running) {
    JobRecord* job = plan->Mutable(id);
    if (job == nullptr || job->state != JobState::kRunning) {
      return absl::DataLossError(absl::StrCat("running job ", id, " is not a running job"));
    }
    plan->running_.push_back(job);
  }
  const std::size_t running = static_cast<std::size_t>(
      std::count_if(plan->jobs_.begin(), plan->jobs_.end(),
                    [](const auto& entry) { return entry.second->state == JobState::kRunning; }));
  if (running != plan->running_.size()) {
    return absl::DataLossError(
        absl::StrCat(running, " jobs are running; the running list has ", plan->running_.size()));
  }
  for (auto& [seq, reservation] : image.reservations) {
    const Allocation held{reservation.k, reservation.start, reservation.end};
    if (auto s = CheckBooking(plan->timeline_, reservation.booking, held,
                              absl::StrCat("reservation ", reservation.id));
        !s.ok()) {
      return s;
    }
    if (reservation.group != -1) {
      if (auto s = plan->CheckHoldGroup(reservation.group, reservation.k); !s.ok()) {
        return absl::DataLossError(absl::StrCat("reservation ", reservation.id, ": ", s.message()));
      }
      plan->group_bookings_[reservation.booking] = reservation.group;
    }
    plan->reservations_.emplace(seq, std::move(reservation));
  }
  for (auto& [seq, dag] : image.dags) {
    for (const DagTaskBooking& task : dag.tasks) {
      const std::string what = absl::StrCat("task ", task.task, " of ", dag.id);
      if (task.group != -1) {
        if (auto s = plan->CheckHoldGroup(task.group, task.allocation.k); !s.ok()) {
          return absl::DataLossError(absl::StrCat(what, ": ", s.message()));
        }
      }
      if (task.booking < 0) continue;  // ended: freed
      if (auto s = CheckBooking(plan->timeline_, task.booking, task.allocation, what); !s.ok()) {
        return s;
      }
      if (task.group != -1) plan->group_bookings_[task.booking] = task.group;
    }
    plan->dags_.emplace(seq, std::move(dag));
  }
  plan->past_holds_.assign(image.past_holds.begin(), image.past_holds.end());
  std::sort(plan->replanned_.begin(), plan->replanned_.end(),
            [](const JobRecord* a, const JobRecord* b) {
              return std::pair(a->allocation.start, a->sequence) <
                     std::pair(b->allocation.start, b->sequence);
            });
  return plan;
}

}  // namespace resched
