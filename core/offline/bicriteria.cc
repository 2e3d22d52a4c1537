// "bicriteria" (dutot §3.2, Figure 2): batches of doubling length, filled by a knapsack on
// weight, compacted by a list algorithm in batch order, the batch order shuffled a few times.
//
// 1. d = MRT's accepted guess (the paper's "approximate C*_max"); t_min the shortest time of any
//    job on any width; K = floor(log2(d / t_min)); batch j has length t_j = d / 2^(K-j).
// 2. For j = 0, 1, ...: the jobs left that fit in t_j (on their least width that does) are the
//    candidates. Those that run within t_j / 2 on one processor are merged, by decreasing weight,
//    into stacks of total length at most t_j on one processor. A knapsack by dynamic programming
//    over the m processors (W(i, j) = max(W(i-1, j), W(i-1, j - allot_i) + w_i)) selects the
//    candidates and stacks of most weight; they form batch j.
// 3. The list algorithm books the batches in order (inside a batch: decreasing weight over time;
//    a stack's jobs one after another in the stack's order), each job at the earliest start of
//    the free profile.
// 4. The batch order is shuffled `shuffles` times (seeded, so a plan is reproducible); the
//    compacted schedule with the least sum w C is kept (the paper keeps "the best" without
//    saying for which criterion; the batches serve the weighted sum).
//
// Deviations: the paper stops at batch K (length d); jobs the knapsacks left out go on into
// further batches, doubling until every job fits in one, then of that length, until every job
// is in one (many wide jobs need one batch each). Jobs are planned from now around the
// free profile (offline_planner.h); the batches only order the list.
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>

#include "core/offline/list_schedule.h"
#include "core/offline/planners.h"

namespace resched {
namespace {

// A knapsack item: one job, or a stack of small jobs run one after another on one processor.
struct Item {
  std::vector<int> jobs;
  int width = 1;
  double weight = 0;
};

// A job's weight in the knapsack: a weightless job still takes room it would otherwise leave
// unused, so that every batch takes what fits and the batches end.
double KnapsackWeight(const OfflineJob& job) { return std::max(job.weight, 1e-9); }

// The least allowed width running within `length`, or 0.
int LeastWidthWithin(const RuntimeModel& model, const std::vector<int>& widths, Duration length) {
  for (int k : widths) {
    if (model.TimeOn(k) <= length) return k;
  }
  return 0;
}

// Indices of the items of most total weight using at most m processors (dutot's O(mn) DP).
std::vector<int> Knapsack(const std::vector<Item>& items, int m) {
  std::vector<double> best(m + 1, 0.0);  // W(i, j): j processors at most
  std::vector<std::vector<bool>> taken(items.size(), std::vector<bool>(m + 1, false));
  for (std::size_t i = 0; i < items.size(); ++i) {
    for (int j = m; j >= items[i].width; --j) {
      const double with = best[j - items[i].width] + items[i].weight;
      if (with > best[j]) {
        best[j] = with;
        taken[i][j] = true;
      }
    }
  }
  std::vector<int> chosen;
  int j = m;
  for (std::size_t i = items.size(); i-- > 0;) {
    if (taken[i][j]) {
      chosen.push_back(static_cast<int>(i));
      j -= items[i].width;
    }
  }
  std::reverse(chosen.begin(), chosen.end());
  return chosen;
}

double WeightedCompletion(const OfflineProblem& problem, const std::vector<Allocation>& plan) {
  double sum = 0;
  for (std::size_t i = 0; i < plan.size(); ++i) {
    sum += problem.jobs[i].weight * static_cast<double>(plan[i].end - problem.now);
  }
  return sum;
}

class BicriteriaPlanner final : public OfflinePlanner {
 public:
  BicriteriaPlanner(double epsilon, int shuffles, std::uint64_t seed)
      : epsilon_(epsilon), shuffles_(shuffles), seed_(seed) {}

  absl::StatusOr<OfflinePlan> Plan(const OfflineProblem& problem,
                                   const PlanControl& control) const override {
    const int m = problem.free.capacity();
    const std::size_t n = problem.jobs.size();
    absl::StatusOr<MrtShelves> mrt = MrtDualApproximation(problem.jobs, m, epsilon_, control);
    if (!mrt.ok()) return mrt.status();
    OfflinePlan plan;
    plan.makespan_lower_bound = mrt->lower_bound;
    if (n == 0) return plan;

    std::vector<std::vector<int>> widths(n);
    Duration t_min = std::numeric_limits<Duration>::max();
    // Past twice the longest time on a job's narrowest width every job is a candidate (and every
    // one-processor job small): longer batches change nothing, so the length stops growing
    // there. Wide jobs may still need one batch each.
    Duration all_fit = 1;
    for (std::size_t i = 0; i < n; ++i) {
      widths[i] = problem.jobs[i].model.Widths(m);
      for (int k : widths[i]) t_min = std::min(t_min, problem.jobs[i].model.TimeOn(k));
      if (!widths[i].empty()) {
        all_fit = std::max(all_fit, 2 * problem.jobs[i].model.TimeOn(widths[i].front()));
      }
    }
    const auto levels = static_cast<int>(
        std::floor(std::log2(static_cast<double>(mrt->d) / static_cast<double>(t_min))));
    Duration length = std::max<Duration>(1, mrt->d >> std::max(0, levels));

    // Each batch: its list entries in order.
    std::vector<std::vector<ListEntry>> batches;
    std::vector<bool> placed(n, false);
    std::size_t left = n;
    while (left > 0) {
      if (control.Stop()) return absl::CancelledError("bicriteria: planning was stopped");
      std::vector<Item> items;
      std::vector<int> small;
      for (std::size_t i = 0; i < n; ++i) {
        if (placed[i]) continue;
        const RuntimeModel& model = problem.jobs[i].model;
        if (!widths[i].empty() && widths[i].front() == 1 && 2 * model.TimeOn(1) <= length) {
          small.push_back(static_cast<int>(i));
          continue;
        }
        const int k = LeastWidthWithin(model, widths[i], length);
        if (k > 0) items.push_back({{static_cast<int>(i)}, k, KnapsackWeight(problem.jobs[i])});
      }
      // Stacks of small jobs by decreasing weight, each at most `length` long.
      std::stable_sort(small.begin(), small.end(), [&](int a, int b) {
        return problem.jobs[a].weight > problem.jobs[b].weight;
      });
      std::vector<Item> stacks;
      Duration stacked = 0;
      for (int i : small) {
        const Duration t = problem.jobs[i].model.TimeOn(1);
        if (stacks.empty() || stacked + t > length) {
          stacks.push_back({{}, 1, 0});
          stacked = 0;
        }
        stacks.back().jobs.push_back(i);
        stacks.back().weight += KnapsackWeight(problem.jobs[i]);
        stacked += t;
      }
      items.insert(items.end(), stacks.begin(), stacks.end());
      std::vector<ListEntry> batch;
      for (int chosen : Knapsack(items, m)) {
        for (int i : items[chosen].jobs) {
          batch.push_back({i, items[chosen].width, problem.now});
          placed[i] = true;
          --left;
        }
      }
      // Inside a batch: decreasing weight over time (stacks keep their order: a stable sort,
      // and their jobs share width 1).
      std::stable_sort(batch.begin(), batch.end(), [&](const ListEntry& a, const ListEntry& b) {
        auto ratio = [&](const ListEntry& e) {
          return problem.jobs[e.job].weight /
                 static_cast<double>(problem.jobs[e.job].model.TimeOn(e.width));
        };
        return ratio(a) > ratio(b);
      });
      if (!batch.empty()) batches.push_back(std::move(batch));
      if (length < all_fit) length *= 2;
    }

    std::vector<int> batch_order(batches.size());
    std::iota(batch_order.begin(), batch_order.end(), 0);
    std::mt19937_64 rng(seed_);
    double best_sum = std::numeric_limits<double>::infinity();
    for (int attempt = 0; attempt <= shuffles_; ++attempt) {
      if (control.Stop()) return absl::CancelledError("bicriteria: planning was stopped");
      if (attempt > 0) std::shuffle(batch_order.begin(), batch_order.end(), rng);
      std::vector<ListEntry> order;
      order.reserve(n);
      for (int b : batch_order) order.insert(order.end(), batches[b].begin(), batches[b].end());
      absl::StatusOr<std::vector<Allocation>> allocations = ListSchedule(problem, order);
      if (!allocations.ok()) return allocations.status();
      const double sum = WeightedCompletion(problem, *allocations);
      if (sum < best_sum) {
        best_sum = sum;
        plan.allocations = *std::move(allocations);
      }
    }
    return plan;
  }

 private:
  const double epsilon_;
  const int shuffles_;
  const std::uint64_t seed_;
};

}  // namespace

std::unique_ptr<OfflinePlanner> MakeBicriteriaPlanner(const BicriteriaOptions& options) {
  return std::make_unique<BicriteriaPlanner>(options.epsilon, options.shuffles, options.seed);
}

}  // namespace resched
