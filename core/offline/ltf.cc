// "ltf": Largest Task First list scheduling, chrétien's baseline ("LIST", §1 and §5, after
// Dutot et al., who found it the best list order for the makespan of moldable jobs). Chrétien
// names the order but defines neither the size it sorts by nor how a moldable job's width is
// chosen; we sort by decreasing work (the least width x time over the job's widths: k t for a
// rigid job, reqproc x reqtime for chrétien's ceil model), the longer shortest run first on ties,
// and give each job, when its turn comes, the width with the earliest completion on the free
// profile (ties: fewer processors). A rigid job has one width, which is the paper's LIST.
#include "core/offline/ltf.h"

#include <algorithm>
#include <limits>

#include "core/offline/planners.h"

namespace resched {
namespace {

class LtfPlanner final : public OfflinePlanner {
 public:
  absl::StatusOr<OfflinePlan> Plan(const OfflineProblem& problem,
                                   const PlanControl&) const override {
    absl::StatusOr<std::vector<ListEntry>> order = LtfOrder(problem);
    if (!order.ok()) return order.status();
    return ListPlan(problem, *order);
  }
};

}  // namespace

absl::StatusOr<std::vector<ListEntry>> LtfOrder(const OfflineProblem& problem) {
  const int m = problem.free.capacity();
  struct Size {
    double work = 0;
    Duration shortest = 0;
  };
  std::vector<Size> sizes(problem.jobs.size());
  std::vector<ListEntry> order;
  order.reserve(problem.jobs.size());
  for (std::size_t i = 0; i < problem.jobs.size(); ++i) {
    const RuntimeModel& model = problem.jobs[i].model;
    const std::vector<int> widths = model.Widths(m);
    if (widths.empty()) {
      return absl::InvalidArgumentError("job '" + problem.jobs[i].id +
                                        "' fits on no width of the machine");
    }
    Size& size = sizes[i];
    size.work = std::numeric_limits<double>::infinity();
    size.shortest = std::numeric_limits<Duration>::max();
    for (int k : widths) {
      size.work =
          std::min(size.work, static_cast<double>(k) * static_cast<double>(model.TimeOn(k)));
      size.shortest = std::min(size.shortest, model.TimeOn(k));
    }
    order.push_back({static_cast<int>(i), /*width=*/0, problem.now});
  }
  std::stable_sort(order.begin(), order.end(), [&](const ListEntry& a, const ListEntry& b) {
    const Size& x = sizes[a.job];
    const Size& y = sizes[b.job];
    return x.work != y.work ? x.work > y.work : x.shortest > y.shortest;
  });
  return order;
}

std::unique_ptr<OfflinePlanner> MakeLtfPlanner() { return std::make_unique<LtfPlanner>(); }

}  // namespace resched
