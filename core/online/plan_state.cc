#include "core/online/plan_state.h"

#include <cstdio>
#include <cstdlib>

namespace resched {

void PlanState::Place(JobRecord& job, const Allocation& allocation, bool guaranteed) {
  if (job.placed) Unplace(job);
  auto id = timeline_.Add(allocation.start, allocation.end, allocation.k);
  if (!id.ok()) {
    // A policy placed a job where it does not fit: the plan would be invalid. Never expected.
    std::fprintf(stderr, "resched: policy bug placing %s: %s\n", job.job.id.c_str(),
                 std::string(id.status().message()).c_str());
    std::abort();
  }
  const bool changed = job.allocation.start != allocation.start ||
                       job.allocation.end != allocation.end || job.allocation.k != allocation.k;
  if (changed && job.allocation.k != 0) moved_.push_back(&job);
  job.allocation = allocation;
  job.reservation = *id;
  job.placed = true;
  job.guaranteed = guaranteed;
  if (touched_ != nullptr) touched_->push_back(job.sequence);
}

void PlanState::Unplace(JobRecord& job) {
  if (!job.placed) return;
  // Searches from this state on begin at now or later: a booking that ended by now (a job that
  // ran to its end) frees nothing they could use.
  timeline_.ReleaseHeld(job.reservation, now_);
  job.placed = false;
  job.reservation = -1;
  if (touched_ != nullptr) touched_->push_back(job.sequence);
}

}  // namespace resched
