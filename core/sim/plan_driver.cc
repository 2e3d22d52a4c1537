#include "core/sim/plan_driver.h"

namespace resched {

absl::StatusOr<JobId> PlanDriver::Submit(const Job& job) {
  auto placed = Timed([&] { return plan_.Submit(job); });
  if (!placed.ok()) return placed.status();
  active_.push_back((*placed)->job.id);
  return active_.back();
}

absl::Status PlanDriver::ReportEnded(const JobId& id, Time t) {
  return Timed([&] { return plan_.ReportEnded(id, t, /*failed=*/false); }).status();
}

absl::Status PlanDriver::AdvanceTo(Time t) {
  return Timed([&] { return plan_.AdvanceTo(t); });
}

absl::StatusOr<std::vector<JobView>> PlanDriver::ActiveJobs() {
  std::vector<JobView> out;
  size_t kept = 0;
  for (const JobId& id : active_) {
    const JobRecord* job = plan_.FindJob(id);  // null once ended and forgotten
    if (job == nullptr || (job->state != JobState::kQueued && job->state != JobState::kRunning)) {
      continue;
    }
    out.push_back(JobView{id, job->state, job->allocation, job->group});
    active_[kept++] = id;
  }
  active_.resize(kept);
  return out;
}

}  // namespace resched
