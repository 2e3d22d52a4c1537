// "gang" (dutot §4.1): each job on all the processors, jobs by decreasing weight over execution
// time, which is optimal for jobs of linear speedup. Adaptation: a job whose model caps its
// width runs on its widest allowed width; the jobs are booked in that order at the earliest
// start the free profile allows.
#include <algorithm>
#include <numeric>

#include "core/offline/list_schedule.h"
#include "core/offline/planners.h"

namespace resched {
namespace {

class GangPlanner final : public OfflinePlanner {
 public:
  absl::StatusOr<OfflinePlan> Plan(const OfflineProblem& problem,
                                   const PlanControl&) const override {
    const int m = problem.free.capacity();
    std::vector<ListEntry> order;
    order.reserve(problem.jobs.size());
    for (std::size_t i = 0; i < problem.jobs.size(); ++i) {
      const std::vector<int> widths = problem.jobs[i].model.Widths(m);
      if (widths.empty()) {
        return absl::InvalidArgumentError("job '" + problem.jobs[i].id +
                                          "' fits on no width of the machine");
      }
      order.push_back({static_cast<int>(i), widths.back(), problem.now});
    }
    auto ratio = [&](const ListEntry& e) {
      const OfflineJob& job = problem.jobs[e.job];
      return job.weight / static_cast<double>(job.model.TimeOn(e.width));
    };
    std::stable_sort(order.begin(), order.end(),
                     [&](const ListEntry& a, const ListEntry& b) { return ratio(a) > ratio(b); });
    return ListPlan(problem, order);
  }
};

}  // namespace

std::unique_ptr<OfflinePlanner> MakeGangPlanner() { return std::make_unique<GangPlanner>(); }

}  // namespace resched
