#include "core/offline/list_schedule.h"

#include <algorithm>

#include "absl/strings/str_format.h"
#include "core/online/moldable_fit.h"

namespace resched {

absl::StatusOr<std::vector<Allocation>> ListSchedule(const OfflineProblem& problem,
                                                     const std::vector<ListEntry>& order) {
  Timeline timeline = problem.free.Copy();
  std::vector<Allocation> allocations(problem.jobs.size());
  for (const ListEntry& entry : order) {
    const OfflineJob& job = problem.jobs[entry.job];
    const Time not_before = std::max({problem.now, entry.not_before, job.release});
    std::optional<Allocation> fit;
    if (entry.width == 0) {
      fit = EarliestCompletion(timeline, job.model, not_before);
    } else {
      const Duration length = job.model.TimeOn(entry.width);
      const std::optional<Time> start = timeline.EarliestStart(not_before, length, entry.width);
      if (start) fit = Allocation{entry.width, *start, *start + length};
    }
    if (!fit && entry.width == 0) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "job '%s' fits on no width of the machine (%d processors)", job.id, timeline.capacity()));
    }
    if (!fit) {
      return absl::InvalidArgumentError(
          absl::StrFormat("job '%s' needs %d processors; the machine has %d", job.id, entry.width,
                          timeline.capacity()));
    }
    absl::StatusOr<ReservationId> booked = timeline.Add(fit->start, fit->end, fit->k);
    if (!booked.ok()) return booked.status();
    allocations[entry.job] = *fit;
  }
  return allocations;
}

absl::StatusOr<OfflinePlan> ListPlan(const OfflineProblem& problem,
                                     const std::vector<ListEntry>& order,
                                     std::optional<Duration> makespan_lower_bound) {
  absl::StatusOr<std::vector<Allocation>> allocations = ListSchedule(problem, order);
  if (!allocations.ok()) return allocations.status();
  OfflinePlan plan;
  plan.allocations = *std::move(allocations);
  plan.makespan_lower_bound = makespan_lower_bound;
  return plan;
}

}  // namespace resched
