// "list-mrt", "list-wlptf", "list-saf" (dutot §4.1, "List Graham"): multiprocessor list
// scheduling, every job on the width MRT's dual approximation gives it, in one of three orders.
// The list books each job at the earliest start the free profile allows, so a later job fills a
// hole an earlier one left. MRT's lower bound comes with the plan.
#include <algorithm>

#include "core/offline/list_schedule.h"
#include "core/offline/planners.h"

namespace resched {
namespace {

class ListPlanner final : public OfflinePlanner {
 public:
  ListPlanner(ListOrder order, double epsilon) : order_(order), epsilon_(epsilon) {}

  absl::StatusOr<OfflinePlan> Plan(const OfflineProblem& problem,
                                   const PlanControl& control) const override {
    absl::StatusOr<MrtShelves> shelves =
        MrtDualApproximation(problem.jobs, problem.free.capacity(), epsilon_, control);
    if (!shelves.ok()) return shelves.status();
    std::vector<ListEntry> order;
    order.reserve(shelves->order.size());
    for (int i : shelves->order) order.push_back({i, shelves->width[i], problem.now});
    auto length = [&](const ListEntry& e) {
      return static_cast<double>(problem.jobs[e.job].model.TimeOn(e.width));
    };
    if (order_ == ListOrder::kWlptf) {
      std::stable_sort(order.begin(), order.end(), [&](const ListEntry& a, const ListEntry& b) {
        return problem.jobs[a.job].weight / length(a) > problem.jobs[b.job].weight / length(b);
      });
    } else if (order_ == ListOrder::kSaf) {
      std::stable_sort(order.begin(), order.end(), [&](const ListEntry& a, const ListEntry& b) {
        return a.width * length(a) < b.width * length(b);
      });
    }
    return ListPlan(problem, order, shelves->lower_bound);
  }

 private:
  const ListOrder order_;
  const double epsilon_;
};

}  // namespace

std::unique_ptr<OfflinePlanner> MakeListPlanner(ListOrder order, const MrtOptions& mrt) {
  return std::make_unique<ListPlanner>(order, mrt.epsilon);
}

}  // namespace resched
