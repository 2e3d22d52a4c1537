// "seq-lptf" (dutot §4.1, "Sequential"): each job on a single processor, list scheduling with the
// largest processing time first. Adaptation: a job that may not run on one processor runs on its
// narrowest allowed width; the list books each job at the earliest start of the free profile.
#include <algorithm>

#include "core/offline/list_schedule.h"
#include "core/offline/planners.h"

namespace resched {
namespace {

class SequentialLptfPlanner final : public OfflinePlanner {
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
      order.push_back({static_cast<int>(i), widths.front(), problem.now});
    }
    auto length = [&](const ListEntry& e) { return problem.jobs[e.job].model.TimeOn(e.width); };
    std::stable_sort(order.begin(), order.end(),
                     [&](const ListEntry& a, const ListEntry& b) { return length(a) > length(b); });
    return ListPlan(problem, order);
  }
};

}  // namespace

std::unique_ptr<OfflinePlanner> MakeSequentialLptfPlanner() {
  return std::make_unique<SequentialLptfPlanner>();
}

}  // namespace resched
